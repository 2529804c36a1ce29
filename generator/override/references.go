package override

import (
	"fmt"
	"strings"

	"github.com/armature-dev/armature/generator/config"
	"github.com/armature-dev/armature/runtime/descriptor"
)

// Refs is the references entries of one config file (config.Reference) and
// what became of them: like a Set, it reports every entry that selects no
// kind, matches no path or changes nothing, so that corrections of the
// ARM-id detection (generator/refs) cannot rot silently either.
type Refs struct {
	file string
	list []config.Reference
	// kinds are the kinds each entry selected.
	kinds [][]string
	// paths counts the paths each entry matched; first is the first.
	paths []int
	first []string
	// applied records the entries that changed a detection.
	applied  []bool
	problems []error
	seen     map[string]bool
}

// NewRefs returns the references entries of a config file; file names it
// in messages.
func NewRefs(file string, list []config.Reference) *Refs {
	n := len(list)
	list = append([]config.Reference(nil), list...)
	for i := range list {
		list[i].Index = i // as Load sets it; a list built in code may not
	}
	return &Refs{file: file, list: list, kinds: make([][]string, n), paths: make([]int, n), first: make([]string, n), applied: make([]bool, n), seen: map[string]bool{}}
}

// For returns the entries that select a resource type, or nil when none
// does. A nil *RefKind is valid and has no entries.
func (s *Refs) For(t Target) *RefKind {
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
	return &RefKind{set: s, target: t, idx: idx}
}

// Errors returns every problem, in file order: entries that select no kind,
// match no path or change nothing, then the problems the detection
// reported. Each is a *config.Error.
func (s *Refs) Errors() []error {
	if s == nil {
		return nil
	}
	var out []error
	for i := range s.list {
		r := &s.list[i]
		switch {
		case len(s.kinds[i]) == 0:
			out = append(out, s.errorf(i, "selects no generated kind (`armature inspect` lists them; excluded types are not generated)"))
		case s.paths[i] == 0:
			kinds := dedup(s.kinds[i])
			what := "a string of the spec"
			if r.Remove {
				what = "a detected reference"
			}
			hint := ""
			if len(kinds) == 1 {
				hint = fmt.Sprintf("; `armature inspect --references --kind %s` lists its references, `--properties` its paths", kinds[0])
			}
			out = append(out, s.errorf(i, "matches no path of %s that is %s%s", strings.Join(kinds, ", "), what, hint))
		case !s.applied[i] && r.Remove:
			out = append(out, s.errorf(i, "remove changes nothing at the %d paths it matches (first: %s): no rule detects them; remove the entry", s.paths[i], s.first[i]))
		case !s.applied[i]:
			out = append(out, s.errorf(i, "add changes nothing at the %d paths it matches (first: %s): the rules detect them already, with the same targets; remove the entry", s.paths[i], s.first[i]))
		}
	}
	return append(out, s.problems...)
}

func (s *Refs) errorf(i int, format string, args ...any) error {
	return &config.Error{File: s.file, Entry: s.list[i].Entry(), Msg: fmt.Sprintf(format, args...)}
}

// RefKind is the references entries that select one resource type.
type RefKind struct {
	set    *Refs
	target Target
	idx    []int
}

// At returns the entries whose path pattern matches a path, in file
// order, and records the match. The detection asks once per path it can
// judge: the detected references and the strings of the spec.
func (k *RefKind) At(path descriptor.Path) []*config.Reference {
	if k == nil {
		return nil
	}
	var out []*config.Reference
	for _, i := range k.idx {
		r := &k.set.list[i]
		if !r.MatchPath(path) {
			continue
		}
		if k.set.paths[i] == 0 {
			k.set.first[i] = k.target.Kind + " " + path.String()
		}
		k.set.paths[i]++
		out = append(out, r)
	}
	return out
}

// Applied records that an entry changed a detection.
func (k *RefKind) Applied(r *config.Reference) {
	if k != nil && r != nil {
		k.set.applied[r.Index] = true
	}
}

// Problem records that an entry cannot apply at a path; msg says why.
func (k *RefKind) Problem(r *config.Reference, path descriptor.Path, msg string) {
	if k == nil || r == nil {
		return
	}
	key := fmt.Sprint(r.Index, k.target.Kind, path, msg)
	if k.set.seen[key] {
		return
	}
	k.set.seen[key] = true
	k.set.problems = append(k.set.problems, k.set.errorf(r.Index, "%s %s: %s", k.target.Kind, path, msg))
}

// Cite names an entry with its file, for evidence:
// `specs/armature.yaml: references[2] (RoleAssignment properties.roleDefinitionId)`.
func (k *RefKind) Cite(r *config.Reference) string {
	if k == nil || r == nil {
		return ""
	}
	return k.set.file + ": " + r.Entry()
}
