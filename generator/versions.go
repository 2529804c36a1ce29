package generator

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/armature-dev/armature/generator/apidiff"
	"github.com/armature-dev/armature/generator/config"
	"github.com/armature-dev/armature/generator/load"
	"github.com/armature-dev/armature/generator/model"
)

// apiVersionSegment matches the api-version folder of a swagger path
// (…/Microsoft.Storage/stable/2023-05-01/storage.json).
var apiVersionSegment = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}(-[A-Za-z0-9.]+)?$`)

// fileProvider returns the provider folder of a swagger path
// (microsoft.storage), or "" when the path does not follow the
// azure-rest-api-specs layout (provider, stable|preview, api-version).
func fileProvider(file string) string {
	segs := strings.Split(path.Clean(strings.ReplaceAll(file, "\\", "/")), "/")
	for i := len(segs) - 2; i >= 0; i-- {
		if !apiVersionSegment.MatchString(segs[i]) {
			continue
		}
		for j := i - 1; j >= 0; j-- {
			if strings.Contains(segs[j], ".") && !strings.EqualFold(segs[j], "resource-manager") {
				return strings.ToLower(segs[j])
			}
		}
		return ""
	}
	return ""
}

// newerAPIVersion orders api-versions newest first; on the same date a
// stable version comes before its previews.
func newerAPIVersion(a, b string) bool {
	da, db := a[:min(10, len(a))], b[:min(10, len(b))]
	if da != db {
		return da > db
	}
	sa, sb := !strings.Contains(a, "-preview") && len(a) == 10, !strings.Contains(b, "-preview") && len(b) == 10
	if sa != sb {
		return sa
	}
	return a > b
}

// versionRanks splits the files by api-version within each provider: rank
// 0 holds every provider's newest api-version, rank 1 the next older one,
// and so on. Each rank is analysed on its own, because one resource tree
// holds one api-version per ARM type. The api-version is the document's
// (load.ReadAPIVersion, the source the resource tree reads too), the
// provider its folder; files outside the usual layout go to rank 0. The
// order of files within a rank is kept.
func versionRanks(root string, files []string) ([][]string, error) {
	versions := map[string][]string{}
	of := make([]string, len(files))
	for i, f := range files {
		p := fileProvider(f)
		if p == "" {
			continue
		}
		v, err := load.ReadAPIVersion(root, f)
		if err != nil {
			return nil, err
		}
		of[i] = v
		if v != "" && !slices.Contains(versions[p], v) {
			versions[p] = append(versions[p], v)
		}
	}
	for p := range versions {
		sort.Slice(versions[p], func(i, j int) bool { return newerAPIVersion(versions[p][i], versions[p][j]) })
	}
	var ranks [][]string
	for i, f := range files {
		r := max(0, slices.Index(versions[fileProvider(f)], of[i]))
		for len(ranks) <= r {
			ranks = append(ranks, nil)
		}
		ranks[r] = append(ranks[r], f)
	}
	if len(ranks) == 0 {
		ranks = [][]string{nil}
	}
	return ranks, nil
}

// linkOwners gives the kinds of an older api-version the owner kinds of
// the newest analysis when their own files do not declare the owner (a
// StorageAccount of 2023-01-01 is owned by the ResourceGroup of the
// Microsoft.Resources files).
func linkOwners(older, newest *model.Model) {
	for _, p := range older.Packages {
		for _, k := range p.Kinds {
			if k.Owner == nil && k.Resource.Owner != "" {
				k.Owner = newest.Kinds[strings.ToLower(k.Resource.Owner)]
			}
		}
	}
}

// merge returns one model holding the packages of every analysed
// api-version, and sets each kind's Versions and Storage: the storage
// version is the one specs/armature.yaml names for the group, else the
// newest stable one.
func merge(c *config.Config, models ...*model.Model) (*model.Model, []error) {
	out := &model.Model{Kinds: models[0].Kinds}
	type gk struct{ group, kind string }
	byKind := map[gk][]*model.Kind{}
	for _, m := range models {
		for _, p := range m.Packages {
			out.Packages = append(out.Packages, p)
			for _, k := range p.Kinds {
				key := gk{p.Group, k.Name}
				byKind[key] = append(byKind[key], k)
			}
		}
	}
	sort.SliceStable(out.Packages, func(i, j int) bool {
		a, b := out.Packages[i], out.Packages[j]
		if a.Group != b.Group {
			return a.Group < b.Group
		}
		return newerAPIVersion(a.APIVersion, b.APIVersion)
	})
	var errs []error
	named := map[string]bool{}
	for key, kinds := range byKind {
		sort.Slice(kinds, func(i, j int) bool {
			return newerAPIVersion(kinds[i].Package.APIVersion, kinds[j].Package.APIVersion)
		})
		want := ""
		if c != nil {
			short := strings.SplitN(key.group, ".", 2)[0]
			for _, g := range []string{key.group, short} {
				if v, ok := c.StorageVersions[g]; ok {
					want = v
					named[g] = true
				}
			}
		}
		storage := kinds[0]
		for _, k := range kinds {
			if !strings.Contains(k.Package.APIVersion, "preview") {
				storage = k
				break
			}
		}
		if want != "" {
			storage = nil
			for _, k := range kinds {
				if k.Package.Version == want {
					storage = k
				}
			}
			if storage == nil && len(kinds) > 1 {
				errs = append(errs, &config.Error{File: c.ConfigFile(), Entry: "storageVersions." + key.group, Msg: fmt.Sprintf("%s is not a generated version of %s (%s)", want, key.kind, versionList(kinds))})
				storage = kinds[0]
			} else if storage == nil {
				storage = kinds[0] // a kind the named version lacks keeps its only version
			}
		}
		var versions []string
		for _, k := range kinds {
			versions = append(versions, k.Package.Version)
		}
		for _, k := range kinds {
			k.Storage = k == storage
			k.Versions = versions
			k.StorageVersion = storage.Package.Version
		}
	}
	if c != nil {
		for g := range c.StorageVersions {
			if !named[g] {
				errs = append(errs, &config.Error{File: c.ConfigFile(), Entry: "storageVersions." + g, Msg: "names no generated API group (use the group, e.g. storage.azure.armature.dev, or its first label)"})
			}
		}
	}
	sort.Slice(errs, func(i, j int) bool { return errs[i].Error() < errs[j].Error() })
	return out, errs
}

func versionList(kinds []*model.Kind) string {
	var v []string
	for _, k := range kinds {
		v = append(v, k.Package.Version)
	}
	return strings.Join(v, ", ")
}

// ChangeReport is the API change report between two api-versions of a
// provider, made by Generate when specs/armature.yaml names several.
type ChangeReport struct {
	Provider, Older, Newer string
	Report                 *apidiff.Report
}

// changeReports compares each older api-version with the newest one of
// the same provider. Two api-versions that share no ARM type are two APIs
// of one namespace, not two versions of one (classic Microsoft.Insights
// alertrules at 2016-03-01, metricAlerts at 2018-03-01): no report, where
// one would call every kind of the older removed.
func changeReports(newest *model.Model, older []*Analysis) []ChangeReport {
	var out []ChangeReport
	for _, o := range older {
		for _, p := range o.Model.Packages {
			var olds, news []*model.Kind
			olds = p.Kinds
			newer := ""
			for _, np := range newest.Packages {
				if np.Provider == p.Provider {
					news = append(news, np.Kinds...)
					newer = np.APIVersion
				}
			}
			if newer == "" || !shareARMType(olds, news) {
				continue
			}
			out = append(out, ChangeReport{Provider: p.Provider, Older: p.APIVersion, Newer: newer, Report: apidiff.CompareKinds(olds, news)})
		}
	}
	return out
}

// shareARMType reports whether two sets of kinds have an ARM type in common.
func shareARMType(a, b []*model.Kind) bool {
	types := map[string]bool{}
	for _, k := range a {
		types[strings.ToLower(k.Resource.ARMType)] = true
	}
	for _, k := range b {
		if types[strings.ToLower(k.Resource.ARMType)] {
			return true
		}
	}
	return false
}
