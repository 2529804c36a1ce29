package facts

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/armature-dev/armature/runtime/descriptor"
)

// The facts of the data file.
const (
	// ForceNew is an unconditional ForceNew: Azure cannot update the
	// property in place.
	ForceNew = "forceNew"
	// ConditionalForceNew forces a new resource only under a condition
	// (a CustomizeDiff): shown, never enforced.
	ConditionalForceNew = "conditionalForceNew"
	// Updatable is a settable attribute without ForceNew: Terraform sends
	// it in an update, so Azure updates it in place.
	Updatable = "updatable"
)

// File is the data file hack/tffacts writes (specs/terraform/azurerm.json).
type File struct {
	Source            string             `json:"source"`
	Commit            string             `json:"commit"`
	GeneratedBy       string             `json:"generatedBy"`
	Resources         []Resource         `json:"resources"`
	UnmappedResources []UnmappedResource `json:"unmappedResources"`
	Summary           Summary            `json:"summary"`
}

// Summary counts a file: Attributes = Mapped + Unmapped attributes;
// ForceNew, ConditionalForceNew and Updatable count facts.
type Summary struct {
	Resources           int `json:"resources"`
	Attributes          int `json:"attributes"`
	Mapped              int `json:"mapped"`
	Unmapped            int `json:"unmapped"`
	ForceNew            int `json:"forceNew"`
	ConditionalForceNew int `json:"conditionalForceNew"`
	Updatable           int `json:"updatable"`
}

// Resource is one Terraform resource mapped to an ARM type.
type Resource struct {
	Resource   string     `json:"resource"`
	ARMType    string     `json:"armType"`
	APIVersion string     `json:"apiVersion"`
	File       string     `json:"file"`
	Facts      []Fact     `json:"facts"`
	Unmapped   []Unmapped `json:"unmapped"`
}

// Fact is what one attribute says about one property path.
type Fact struct {
	Attribute string `json:"attribute"`
	Path      string `json:"path"`
	Fact      string `json:"fact"`
	Line      int    `json:"line"`
	// Condition says when a conditional ForceNew applies, and where.
	Condition string `json:"condition,omitempty"`
}

// Unmapped is an attribute the reader could not map to a property.
type Unmapped struct {
	Attribute string `json:"attribute"`
	Line      int    `json:"line"`
	Reason    string `json:"reason"`
}

// UnmappedResource is a resource the reader could not map to an ARM type.
type UnmappedResource struct {
	Resource string `json:"resource"`
	File     string `json:"file"`
	Reason   string `json:"reason"`
}

// Evidence is one fact with where it comes from.
type Evidence struct {
	// Source names the table ("terraform").
	Source string
	// Resource and Attribute are the Terraform names.
	Resource, Attribute string
	Fact                string
	// File and Line locate the attribute in the source, Commit its version.
	File   string
	Line   int
	Commit string
	// Condition is the condition of a conditional ForceNew.
	Condition string
}

// Cite is the evidence in one line: `azurerm_virtual_network.location
// ForceNew (internal/services/network/virtual_network_resource.go:80)`.
func (e Evidence) Cite() string {
	what := map[string]string{ForceNew: "ForceNew", ConditionalForceNew: "conditional ForceNew", Updatable: "updated in place"}[e.Fact]
	s := fmt.Sprintf("%s.%s %s (%s:%d)", e.Resource, e.Attribute, what, e.File, e.Line)
	if e.Condition != "" {
		s += " when " + e.Condition
	}
	return s
}

// Verdict is what the facts say about a property.
type Verdict int

// The verdicts.
const (
	// None: no fact names the property.
	None Verdict = iota
	// CreateOnly: every fact is an unconditional ForceNew.
	CreateOnly
	// InPlace: the facts update it in place, none forces new.
	InPlace
	// Conditional: only conditional ForceNews (and perhaps in-place
	// updates under other conditions): decides nothing.
	Conditional
	// Conflict: some facts force new, others update in place.
	Conflict
)

var verdictNames = [...]string{"none", "createOnly", "in place", "conditional", "conflict"}

func (v Verdict) String() string { return verdictNames[v] }

// Answer is the verdict on one property and its evidence.
type Answer struct {
	Verdict  Verdict
	Evidence []Evidence
}

// Cite is the evidence joined by "; " (the first three, and a count).
func (a Answer) Cite() string {
	var parts []string
	for i, e := range a.Evidence {
		if i == 3 {
			parts = append(parts, fmt.Sprintf("and %d more", len(a.Evidence)-3))
			break
		}
		parts = append(parts, e.Cite())
	}
	return strings.Join(parts, "; ")
}

// Table holds the facts of one or more files by ARM type and path.
type Table struct {
	// by maps a lower-case ARM type to lower-case paths to evidence.
	by map[string]map[string][]Evidence
	// Files are the files read, for messages and docs.
	Files []*File
}

// Load reads data files into one table. A file that does not exist is an
// error naming it.
func Load(paths ...string) (*Table, error) {
	t := &Table{by: map[string]map[string][]Evidence{}}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("facts: %w", err)
		}
		var f File
		if err := json.Unmarshal(b, &f); err != nil {
			return nil, fmt.Errorf("facts: %s: %w", p, err)
		}
		if err := t.Add(&f); err != nil {
			return nil, fmt.Errorf("facts: %s: %w", p, err)
		}
	}
	return t, nil
}

// Add adds the facts of a file. A fact of an unknown kind or with a path
// that does not parse is an error naming the resource and attribute.
func (t *Table) Add(f *File) error {
	if t.by == nil {
		t.by = map[string]map[string][]Evidence{}
	}
	for _, r := range f.Resources {
		typ := strings.ToLower(r.ARMType)
		for _, x := range r.Facts {
			switch x.Fact {
			case ForceNew, ConditionalForceNew, Updatable:
			default:
				return fmt.Errorf("%s.%s: unknown fact %q", r.Resource, x.Attribute, x.Fact)
			}
			if _, err := descriptor.ParsePath(x.Path); err != nil || x.Path == "" {
				return fmt.Errorf("%s.%s: path %q: %v", r.Resource, x.Attribute, x.Path, err)
			}
			if t.by[typ] == nil {
				t.by[typ] = map[string][]Evidence{}
			}
			key := strings.ToLower(x.Path)
			t.by[typ][key] = append(t.by[typ][key], Evidence{
				Source: "terraform", Resource: r.Resource, Attribute: x.Attribute, Fact: x.Fact,
				File: r.File, Line: x.Line, Commit: f.Commit, Condition: x.Condition,
			})
		}
	}
	t.Files = append(t.Files, f)
	return nil
}

// Lookup answers what the facts say about one property of an ARM type. A
// nil table answers None.
func (t *Table) Lookup(armType string, path descriptor.Path) Answer {
	if t == nil {
		return Answer{}
	}
	ev := t.by[strings.ToLower(armType)][strings.ToLower(path.String())]
	return Answer{Verdict: judge(ev), Evidence: ev}
}

func judge(ev []Evidence) Verdict {
	var force, inPlace, cond bool
	for _, e := range ev {
		switch e.Fact {
		case ForceNew:
			force = true
		case Updatable:
			inPlace = true
		case ConditionalForceNew:
			cond = true
		}
	}
	switch {
	case force && inPlace:
		return Conflict
	case force && !cond:
		return CreateOnly
	case force || cond:
		return Conditional
	case inPlace:
		return InPlace
	}
	return None
}

// UpdatedBelow returns the facts that show Azure updating, in place, the
// property at path or one below it (sorted by path): then the property is
// not create-only as a whole, whatever the PUT/PATCH comparison says.
func (t *Table) UpdatedBelow(armType string, path descriptor.Path) []Evidence {
	if t == nil {
		return nil
	}
	prefix := strings.ToLower(path.String())
	var keys []string
	for p := range t.by[strings.ToLower(armType)] {
		if p == prefix || strings.HasPrefix(p, prefix+".") || strings.HasPrefix(p, prefix+"[") {
			keys = append(keys, p)
		}
	}
	slices.Sort(keys)
	var out []Evidence
	for _, p := range keys {
		for _, e := range t.by[strings.ToLower(armType)][p] {
			if e.Fact == Updatable {
				out = append(out, e)
			}
		}
	}
	return out
}

// Types returns the ARM types the table knows, lower case, sorted.
func (t *Table) Types() []string {
	if t == nil {
		return nil
	}
	out := make([]string, 0, len(t.by))
	for k := range t.by {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Paths returns the lower-case paths the table knows of one ARM type, with
// their answers.
func (t *Table) Paths(armType string) map[string]Answer {
	out := map[string]Answer{}
	if t == nil {
		return out
	}
	for p, ev := range t.by[strings.ToLower(armType)] {
		out[p] = Answer{Verdict: judge(ev), Evidence: ev}
	}
	return out
}
