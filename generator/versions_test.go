package generator

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/armature-dev/armature/generator/config"
	"github.com/armature-dev/armature/generator/model"
	"github.com/armature-dev/armature/generator/tree"
)

func TestVersionRanks(t *testing.T) {
	files := []string{
		"specification/resources/resource-manager/Microsoft.Resources/stable/2024-03-01/resources.json",
		"specification/storage/resource-manager/Microsoft.Storage/stable/2023-01-01/storage.json",
		"specification/storage/resource-manager/Microsoft.Storage/stable/2023-05-01/storage.json",
		"specification/storage/resource-manager/Microsoft.Storage/preview/2023-05-01-preview/storage.json",
		"specification/storage/resource-manager/Microsoft.Storage/stable/2023-05-01/blob.json",
		"local/contoso.json",
		// The folder says 2024-01-01, the document 2018-10-01 (as Network's
		// vmssNetworkInterface.json): the document decides.
		"specification/network/resource-manager/Microsoft.Network/stable/2024-01-01/vmss.json",
		"specification/network/resource-manager/Microsoft.Network/stable/2024-01-01/network.json",
	}
	root := t.TempDir()
	for _, f := range files {
		v := strings.Split(f, "/")
		version := v[len(v)-2]
		if strings.HasSuffix(f, "vmss.json") {
			version = "2018-10-01"
		}
		if f == "local/contoso.json" {
			version = "2020-01-01"
		}
		p := filepath.Join(root, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		body := `{"swagger": "2.0", "info": {"title": "t", "version": "` + version + `"}, "paths": {}}`
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := versionRanks(root, files)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{files[0], files[2], files[4], files[5], files[7]},
		{files[3], files[6]},
		{files[1]},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("versionRanks:\n got %q\nwant %q", got, want)
	}
	if _, err := versionRanks(root, []string{"specification/x/resource-manager/Microsoft.X/stable/2020-01-01/missing.json"}); err == nil || !strings.Contains(err.Error(), "missing.json") {
		t.Errorf("versionRanks of a missing file: %v, want an error naming it", err)
	}
}

func TestNewerAPIVersion(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"2023-05-01", "2023-01-01", true},
		{"2023-01-01", "2023-05-01", false},
		{"2023-05-01", "2023-05-01-preview", true},
		{"2023-05-01-preview", "2023-05-01", false},
		{"2024-01-01-preview", "2023-05-01", true},
	} {
		if got := newerAPIVersion(c.a, c.b); got != c.want {
			t.Errorf("newerAPIVersion(%s, %s) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

func models(versions ...string) []*model.Model {
	var out []*model.Model
	for _, av := range versions {
		p := &model.Package{Group: "storage.azure.armature.dev", Short: "storage", Version: model.Version(av), APIVersion: av}
		p.Kinds = []*model.Kind{{Name: "StorageAccount", Package: p}}
		out = append(out, &model.Model{Packages: []*model.Package{p}})
	}
	return out
}

func storageOf(m *model.Model) string {
	for _, p := range m.Packages {
		for _, k := range p.Kinds {
			if k.Storage {
				return p.Version
			}
		}
	}
	return ""
}

func TestMergeStorageVersion(t *testing.T) {
	m, errs := merge(nil, models("2023-05-01-preview", "2023-01-01")...)
	if len(errs) > 0 || storageOf(m) != "v20230101" {
		t.Errorf("default storage is the newest stable: got %q %v", storageOf(m), errs)
	}
	if k := m.Packages[0].Kinds[0]; !reflect.DeepEqual(k.Versions, []string{"v20230501preview", "v20230101"}) || k.StorageVersion != "v20230101" {
		t.Errorf("versions %v storage %s", k.Versions, k.StorageVersion)
	}
	c := &config.Config{File: "specs/armature.yaml", StorageVersions: map[string]string{"storage": "v20230501preview"}}
	if m, errs = merge(c, models("2023-05-01-preview", "2023-01-01")...); len(errs) > 0 || storageOf(m) != "v20230501preview" {
		t.Errorf("configured storage version: got %q %v", storageOf(m), errs)
	}
	c.StorageVersions = map[string]string{"storage": "v20990101"}
	if _, errs = merge(c, models("2023-05-01", "2023-01-01")...); len(errs) != 1 || !strings.Contains(errs[0].Error(), "v20990101 is not a generated version of StorageAccount") {
		t.Errorf("a version that does not exist must be named: %v", errs)
	}
	c.StorageVersions = map[string]string{"nosuch": "v1"}
	if _, errs = merge(c, models("2023-05-01")...); len(errs) != 1 || !strings.Contains(errs[0].Error(), "names no generated API group") {
		t.Errorf("an unknown group must be named: %v", errs)
	}
}

func TestChangeReportsNeedASharedARMType(t *testing.T) {
	kinds := func(av string, types ...string) *model.Model {
		p := &model.Package{Group: "insights.azure.armature.dev", Short: "insights", Version: model.Version(av), APIVersion: av, Provider: "Microsoft.Insights"}
		for _, at := range types {
			p.Kinds = append(p.Kinds, &model.Kind{Name: at, Package: p, Resource: &tree.Resource{ARMType: "Microsoft.Insights/" + at}})
		}
		return &model.Model{Packages: []*model.Package{p}}
	}
	newest := kinds("2018-03-01", "metricAlerts")
	older := []*Analysis{{Model: kinds("2016-03-01", "alertrules")}}
	if got := changeReports(newest, older); len(got) != 0 {
		t.Errorf("alertrules and metricAlerts are two APIs, not two versions of one: got %d reports", len(got))
	}
	if !shareARMType(kinds("2016-03-01", "alertRules", "x").Packages[0].Kinds, kinds("2018-03-01", "alertrules").Packages[0].Kinds) {
		t.Error("ARM types compare without regard to case")
	}
}
