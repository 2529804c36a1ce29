package inspect

import (
	"fmt"
	"io"
	"strings"

	"github.com/armature-dev/armature/generator"
	"github.com/armature-dev/armature/generator/classify"
	"github.com/armature-dev/armature/runtime/descriptor"
)

// Override writes the entry of specs/armature.yaml that gives a kind's
// property the class (`armature inspect --kind K --override PATH`): what a
// user adds when Azure refuses an update armature accepted (class
// createOnly), or updates a property armature refuses (class writable).
// It fails, naming what exists, when the kind or the path is unknown, and
// when the property already has that class (an override that changes
// nothing fails generation).
func Override(w io.Writer, a *generator.Analysis, kind, path, class string) error {
	if kind == "" {
		return fmt.Errorf("--override needs --kind")
	}
	c := classify.Class(class)
	switch c {
	case classify.Writable, classify.CreateOnly, classify.ReadOnly, classify.WriteOnly, classify.Secret:
	default:
		return fmt.Errorf("--class %q: want writable, createOnly, readOnly, writeOnly or secret", class)
	}
	p, err := descriptor.ParsePath(strings.TrimPrefix(path, "spec."))
	if err != nil {
		return fmt.Errorf("--override %q: %w", path, err)
	}
	p = p.Table()
	found, has := false, false
	for _, pkg := range a.Model.Packages {
		for _, k := range pkg.Kinds {
			if !strings.EqualFold(k.Name, kind) {
				continue
			}
			found = true
			e, ok := k.Table.Entry(p)
			if !ok {
				continue
			}
			has = true
			if e.Class == c {
				return fmt.Errorf("%s %s is %s already (source %s: %s); an override that changes nothing fails generation", k.Name, p, e.Class, e.Source, e.Rule)
			}
			fmt.Fprintf(w, "# %s %s/%s %s: %s now (source %s: %s)\n", k.Name, pkg.Group, pkg.Version, p, e.Class, e.Source, e.Rule)
		}
	}
	if !found {
		return fmt.Errorf("no kind %s (armature inspect lists the kinds)", kind)
	}
	if !has {
		return fmt.Errorf("%s has no property %s (armature inspect --properties --kind %s lists them)", kind, p, kind)
	}
	because := "<why: the ARM error code Azure answered, or the document that says so>"
	if c != classify.CreateOnly {
		because = "<why: Azure updates it in place — the request or document that shows it>"
	}
	fmt.Fprintf(w, "# add under overrides: in specs/armature.yaml, then make generate\n")
	fmt.Fprintf(w, "  - kind: %s\n    path: %s\n    class: %s\n    because: %q\n", canonicalKind(a, kind), p, c, because)
	return nil
}

// canonicalKind is the generated spelling of a kind named in any case.
func canonicalKind(a *generator.Analysis, kind string) string {
	for _, pkg := range a.Model.Packages {
		for _, k := range pkg.Kinds {
			if strings.EqualFold(k.Name, kind) {
				return k.Name
			}
		}
	}
	return kind
}
