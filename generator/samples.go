package generator

import (
	"maps"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/armature-dev/armature/generator/emit"
	"github.com/armature-dev/armature/generator/examples"
	"github.com/armature-dev/armature/generator/model"
	"github.com/armature-dev/armature/generator/profile"
)

// learnFromExamples reads the PUT examples of every kind: it sets the
// kind's server defaults (the values ARM's responses add) and makes, from
// the first example (by title) of the newest version of each kind that has
// one, the sample sets of examples.Sets: samples/<group>.yaml and, when
// its objects read Secrets, samples/secrets/<group>.yaml. Kinds without
// examples get neither.
func learnFromExamples(m *model.Model, root string) (map[string][]byte, []string) {
	out := map[string][]byte{}
	var notes []string
	chosen := map[string]examples.Sample{} // lower-case ARM type → newest version's sample
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
			t := strings.ToLower(k.Resource.ARMType)
			c, ok := chosen[t]
			switch {
			case len(exs) == 0 && !ok:
				chosen[t] = examples.Sample{Kind: k} // made only as an owner
			case len(exs) == 0:
			case !ok, len(c.Example.Names) == 0, newerVersion(p.Version, c.Kind.Package.Version):
				chosen[t] = examples.Sample{Kind: k, Example: exs[0]}
			}
		}
	}
	samples := make([]examples.Sample, 0, len(chosen))
	for _, t := range slices.Sorted(maps.Keys(chosen)) {
		samples = append(samples, chosen[t])
	}
	sets, snotes := examples.Sets(samples, emit.Header)
	notes = append(notes, snotes...)
	for g, f := range sets {
		out[path.Join("samples", g+".yaml")] = f.CRs
		if f.Secrets != nil {
			out[path.Join("samples", "secrets", g+".yaml")] = f.Secrets
		}
	}
	return out, notes
}

// newerVersion tells whether the package version a (v20240101,
// v20240101preview) is newer than b: by date, then a stable version over a
// preview of the same date.
func newerVersion(a, b string) bool {
	key := func(v string) string {
		if strings.Contains(v, "preview") {
			return strings.TrimSuffix(v, "preview") + "0"
		}
		return v + "1"
	}
	return key(a) > key(b)
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
