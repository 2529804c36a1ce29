package override

import (
	"fmt"
	"sort"
	"strings"

	"github.com/armature-dev/armature/generator/config"
	"github.com/armature-dev/armature/runtime/descriptor"
)

// Target is one resource type as the selectors of an override see it.
type Target struct {
	// Group is the API group (keyvault.azure.armature.dev) and Short its
	// first label (keyvault).
	Group, Short string
	// Version is the Kubernetes version (v20230701), APIVersion the ARM
	// api-version (2023-07-01).
	Version, APIVersion string
	// Kind is the generated kind, ARMType the ARM type.
	Kind, ARMType string
}

// Set is the overrides of one config file and what became of them.
type Set struct {
	file string
	list []config.Override
	// kinds are the kinds each override selected.
	kinds [][]string
	// paths counts the property paths each override matched.
	paths []int
	// first is the first path each override matched (kind and path).
	first []string
	// applied records, per override, the actions that changed something.
	applied  []map[string]bool
	problems []error
	seen     map[string]bool
}

// New returns the set of overrides of a config file; file names it in
// messages.
func New(file string, list []config.Override) *Set {
	n := len(list)
	s := &Set{file: file, list: list, kinds: make([][]string, n), paths: make([]int, n), first: make([]string, n), applied: make([]map[string]bool, n), seen: map[string]bool{}}
	for i := range s.applied {
		s.applied[i] = map[string]bool{}
	}
	return s
}

// Len returns the number of overrides.
func (s *Set) Len() int {
	if s == nil {
		return 0
	}
	return len(s.list)
}

// For returns the overrides that select a resource type, or nil when none
// does. A nil *Kind is valid and has no fixes.
func (s *Set) For(t Target) *Kind {
	if s == nil {
		return nil
	}
	var idx []int
	for i := range s.list {
		if s.list[i].MatchKind(t.Group, t.Short, t.Version, t.APIVersion, t.Kind, t.ARMType) {
			idx = append(idx, i)
			s.kinds[i] = append(s.kinds[i], t.Kind)
		}
	}
	if len(idx) == 0 {
		return nil
	}
	return &Kind{set: s, target: t, idx: idx, cache: map[string]*Fix{}}
}

// Errors returns every problem, in file order: overrides that select no
// kind, match no property or apply nowhere, then the problems the stages
// reported. Each is a *config.Error.
func (s *Set) Errors() []error {
	if s == nil {
		return nil
	}
	var out []error
	for i := range s.list {
		o := &s.list[i]
		switch {
		case len(s.kinds[i]) == 0:
			out = append(out, s.errorf(i, "selects no generated kind (`armature inspect` lists them; excluded types are not generated)"))
		case s.paths[i] == 0:
			kinds := dedup(s.kinds[i])
			hint := ""
			if len(kinds) == 1 {
				hint = fmt.Sprintf("; `armature inspect --properties --kind %s` lists its paths", kinds[0])
			}
			out = append(out, s.errorf(i, "matches no property of %s%s", strings.Join(kinds, ", "), hint))
		default:
			for _, a := range o.Actions() {
				if !s.applied[i][a] {
					out = append(out, s.errorf(i, "%s changes nothing at the %d properties it matches (first: %s): %s", a, s.paths[i], s.first[i], nothingWhy[a]))
				}
			}
		}
	}
	return append(out, s.problems...)
}

var nothingWhy = map[string]string{
	"class":   "the swagger already gives that class, or the properties are not in the PUT body; remove the override",
	"enum":    "none of them is a closed enum (the swagger may have been fixed); remove the override",
	"type":    "none of them is generated",
	"hide":    "none of them is generated",
	"default": "none of them can take it",
	"rename":  "none of them is a generated Go field (a recursion may cut it)",
}

func (s *Set) errorf(i int, format string, args ...any) error {
	return &config.Error{File: s.file, Entry: s.list[i].Entry(), Msg: fmt.Sprintf(format, args...)}
}

func (s *Set) problem(i int, msg string) {
	if s.seen[fmt.Sprint(i, msg)] {
		return
	}
	s.seen[fmt.Sprint(i, msg)] = true
	s.problems = append(s.problems, s.errorf(i, "%s", msg))
}

func dedup(v []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range v {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}

// Kind is the overrides that select one resource type.
type Kind struct {
	set     *Set
	target  Target
	idx     []int
	cache   map[string]*Fix
	matched []descriptor.Path
}

// Target returns the resource type the overrides were selected for.
func (k *Kind) Target() Target { return k.target }

// At returns what the overrides say about a property path, or nil when no
// override matches it.
func (k *Kind) At(path descriptor.Path) *Fix {
	if k == nil {
		return nil
	}
	key := path.String()
	if f, ok := k.cache[key]; ok {
		return f
	}
	var f *Fix
	for _, i := range k.idx {
		o := &k.set.list[i]
		if !o.MatchPath(path) {
			continue
		}
		if k.set.paths[i] == 0 {
			k.set.first[i] = k.target.Kind + " " + key
		}
		k.set.paths[i]++
		if f == nil {
			f = &Fix{Path: path, from: map[string]int{}, why: map[string]string{}}
			k.matched = append(k.matched, path)
		}
		k.merge(f, o)
	}
	k.cache[key] = f
	return f
}

// merge adds what o says to f; a different value for an action f already
// has is a conflict.
func (k *Kind) merge(f *Fix, o *config.Override) {
	set := func(action string, have *string, v string) {
		if v == "" {
			return
		}
		if *have != "" && *have != v {
			j := f.from[action]
			k.set.problem(o.Index, fmt.Sprintf("%s %s: %s %s conflicts with %s %s of %s", k.target.Kind, f.Path, action, v, action, *have, k.set.list[j].Entry()))
			return
		}
		if *have == "" {
			*have = v
			f.from[action], f.why[action] = o.Index, strings.TrimSpace(o.Because)
		}
	}
	set("class", &f.Class, o.Class)
	set("type", &f.Type, o.Type)
	set("default", &f.Default, o.DefaultJSON())
	set("rename", &f.Rename, o.Rename)
	if o.Enum == "open" && !f.EnumOpen {
		f.EnumOpen = true
		f.from["enum"], f.why["enum"] = o.Index, strings.TrimSpace(o.Because)
	}
	if o.Hide && !f.Hide {
		f.Hide = true
		f.from["hide"], f.why["hide"] = o.Index, strings.TrimSpace(o.Because)
	}
	because := strings.TrimSpace(o.Because)
	for _, b := range f.reasons {
		if b == because {
			return
		}
	}
	f.reasons = append(f.reasons, because)
	f.Because = strings.Join(f.reasons, "; ")
}

// Below reports whether an override matched a path strictly below prefix
// (empty for the body root): the model then builds the structs along that
// path for this kind alone.
func (k *Kind) Below(prefix descriptor.Path) bool {
	if k == nil {
		return false
	}
	for _, p := range k.matched {
		if p.Under(prefix) {
			return true
		}
	}
	return false
}

// Applied records that the action of f changed the generated output.
func (k *Kind) Applied(f *Fix, action string) {
	if k == nil || f == nil {
		return
	}
	if i, ok := f.from[action]; ok {
		k.set.applied[i][action] = true
	}
}

// Problem records that the action of f cannot apply at its path; msg says
// why.
func (k *Kind) Problem(f *Fix, action, msg string) {
	if k == nil || f == nil {
		return
	}
	if i, ok := f.from[action]; ok {
		k.set.problem(i, fmt.Sprintf("%s %s: %s", k.target.Kind, f.Path, msg))
	}
}

// Fix is what the overrides say about one property path of one kind.
type Fix struct {
	// Path is the property path.
	Path descriptor.Path `json:"-"`
	// Class is the forced class, or "".
	Class string `json:"class,omitempty"`
	// EnumOpen turns a closed enum into an open one.
	EnumOpen bool `json:"enumOpen,omitempty"`
	// Type is the schema that replaces the swagger's (config.Types), or "".
	Type string `json:"type,omitempty"`
	// Hide keeps the property out of the CRD.
	Hide bool `json:"hide,omitempty"`
	// Default is the default value as compact JSON, or "".
	Default string `json:"default,omitempty"`
	// Rename is the Go field name, or "".
	Rename string `json:"rename,omitempty"`
	// Because is the reasons of the matching overrides, in file order,
	// joined by "; ".
	Because string `json:"because"`

	reasons []string
	from    map[string]int
	why     map[string]string
}

// Why returns the because of the override that set an action ("" when
// none did).
func (f *Fix) Why(action string) string {
	if f == nil {
		return ""
	}
	return f.why[action]
}

// Has reports whether the fix sets an action (class, enum, type, hide,
// default, rename).
func (f *Fix) Has(action string) bool {
	if f == nil {
		return false
	}
	_, ok := f.from[action]
	return ok
}
