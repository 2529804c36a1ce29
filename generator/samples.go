package generator

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/armature-dev/armature/generator/emit"
	"github.com/armature-dev/armature/generator/examples"
	"github.com/armature-dev/armature/generator/model"
	"github.com/armature-dev/armature/generator/profile"
)

// learnFromExamples reads the PUT examples of every kind: it makes one
// sample custom resource per kind from the first example (by title),
// samples/<group>_<version>_<kind>.yaml, and sets the kind's server defaults
// (the values ARM's responses add). Kinds without examples get neither.
func learnFromExamples(m *model.Model, root string) (map[string][]byte, []string) {
	out := map[string][]byte{}
	var notes []string
	for _, p := range m.Packages {
		for _, k := range p.Kinds {
			exs, errs := examples.Load(root, k.Resource)
			for _, err := range errs {
				notes = append(notes, "example skipped: "+err.Error())
			}
			k.ServerDefaults = nil
			for _, d := range examples.ServerDefaults(k.Table, exs) {
				k.ServerDefaults = append(k.ServerDefaults, model.ServerDefault{Path: d.Path, JSON: d.JSON})
			}
			k.NameDerived = nil
			for _, d := range examples.NameDerived(k.Table, exs) {
				k.NameDerived = append(k.NameDerived, model.ServerDefault{Path: d.Path, JSON: d.JSON})
			}
			if len(exs) == 0 {
				continue
			}
			b, err := sampleYAML(k, exs[0])
			if err != nil {
				notes = append(notes, fmt.Sprintf("sample for %s: %v", k.Name, err))
				continue
			}
			out[path.Join("samples", fmt.Sprintf("%s_%s_%s.yaml", p.Group, p.Version, strings.ToLower(k.Name)))] = b
		}
	}
	return out, notes
}

func sampleYAML(k *model.Kind, ex examples.Example) ([]byte, error) {
	cr := examples.ToCR(k, ex)
	body, err := yaml.Marshal(cr.Object)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n# A %s from the x-ms-examples entry %q\n# (%s).\n", emit.Header, k.Resource.ARMType, ex.Title, ex.File)
	if len(cr.Dropped) > 0 {
		fmt.Fprintf(&b, "# Dropped readOnly values of the example: %s.\n", strings.Join(cr.Dropped, ", "))
	}
	if len(cr.Hidden) > 0 {
		fmt.Fprintf(&b, "# Dropped values of the example that specs/armature.yaml hides: %s.\n", strings.Join(cr.Hidden, ", "))
	}
	for _, s := range cr.Secrets {
		fmt.Fprintf(&b, "# spec.%s references a Secret: create it before applying this sample.\n", s)
	}
	b.WriteString("---\n")
	b.Write(body)
	return []byte(b.String()), nil
}

// learnProfiles learns the behaviour profile of every kind (generator/profile)
// from the recordings the config names, the examples and the swagger:
// profiles/<provider>.yaml and profiles/profiles.go.
func learnProfiles(m *model.Model, opts Options) (map[string][]byte, []string, error) {
	var dirs []string
	if opts.Config != nil {
		for _, r := range opts.Config.Recordings {
			dirs = append(dirs, filepath.Join(opts.Config.Dir, filepath.FromSlash(r)))
		}
	}
	recs, err := profile.LoadRecordings(dirs)
	if err != nil {
		return nil, nil, err
	}
	return profile.Learn(m, profile.Options{SpecRoot: opts.SpecRoot, Recordings: recs, Header: emit.Header})
}
