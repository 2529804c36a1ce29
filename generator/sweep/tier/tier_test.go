package tier

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/armature-dev/armature/generator/sweep"
)

// TestWrite sweeps generator/sweep's test specs into a lasting module with
// alpha's Widget curated, writes the tier before the build and compiles
// it: the registry must build, and hold beta's Widget only, its owner the
// curated ResourceGroup.
func TestWrite(t *testing.T) {
	if testing.Short() {
		t.Skip("generates, runs controller-tools and compiles three folders")
	}
	mod, err := sweep.ModuleRoot("")
	if err != nil {
		t.Fatal(err)
	}
	curated, err := sweep.ReadCurated("testdata/curated")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	module, crds := filepath.Join(dir, "tier"), filepath.Join(dir, "crds")
	// A file of an earlier run, to be removed; a stale provider folder too.
	if err := os.MkdirAll(filepath.Join(crds, "old.azure.armature.dev"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(crds, "old.azure.armature.dev", "olds.yaml"), []byte(Header+"x: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(module, "providers", "gone"), 0o755); err != nil {
		t.Fatal(err)
	}
	opts := sweep.Options{Root: "../testdata/specs", ModuleRoot: mod, Jobs: 2, Module: module, ModulePath: "example.com/tier", Optimise: true, Curated: curated}
	var out *Output
	opts.BeforeBuild = func(res *sweep.Result) error {
		out, err = Write(res, Options{Module: module, ModulePath: opts.ModulePath, CRDs: crds, Corpus: "specs"})
		return err
	}
	res, err := sweep.Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if res.Summary.Build != "ok" || res.Summary.BuildError != "" {
		t.Fatalf("the tier does not build: %s %s", res.Summary.Build, res.Summary.BuildError)
	}
	if _, err := os.Stat(filepath.Join(module, "providers", "gone")); !os.IsNotExist(err) {
		t.Errorf("the stale provider folder is still there (%v)", err)
	}
	var kinds []string
	for _, r := range out.Rows {
		kinds = append(kinds, r.Group+"/"+r.Kind+" "+r.Version+" "+r.ARMType+" "+r.Folder)
	}
	want := []string{"beta.azure.armature.dev/Widget v20240201 Microsoft.Beta/widgets beta/Microsoft.Beta"}
	if diff := cmp.Diff(want, kinds); diff != "" {
		t.Fatalf("tier kinds (-want +got):\n%s", diff)
	}
	if out.Removed != 1 || len(out.Groups) != 1 {
		t.Errorf("removed %d files, %d groups; want the old CRD removed and one group", out.Removed, len(out.Groups))
	}
	for _, r := range out.Rows {
		file := filepath.Join(crds, r.Group, strings.ToLower(r.Kind)+"s.yaml")
		raw, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(raw)
		if hex.EncodeToString(sum[:]) != r.CRDSHA256 || !bytes.HasPrefix(raw, []byte(Header)) {
			t.Errorf("%s: sha256 or header differ from the row", file)
		}
	}
	kust, _ := os.ReadFile(filepath.Join(crds, "beta.azure.armature.dev", "kustomization.yaml"))
	if !strings.HasSuffix(string(kust), "resources:\n- widgets.yaml\n") {
		t.Errorf("group kustomization:\n%s", kust)
	}
	reg, err := os.ReadFile(filepath.Join(module, "apis", "registry.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"betav20240201.WidgetDescriptor", `Group: "resources.azure.armature.dev"`} {
		if !strings.Contains(string(reg), s) {
			t.Errorf("registry.go does not name %s", s)
		}
	}
	if strings.Contains(string(reg), "alpha") {
		t.Error("registry.go names alpha, whose Widget is curated")
	}
	// The installed files are those of the rows.
	diffs, err := CheckInstalled(crds, out.Rows)
	if err != nil || len(diffs) > 0 {
		t.Errorf("CheckInstalled = %v, %v; want no difference", diffs, err)
	}
}

func TestManifest(t *testing.T) {
	m := Manifest{Corpus: "arm-stable-x", Rows: []Row{
		{Group: "b.azure.armature.dev", Kind: "Z", Version: "v1", ARMType: "B/z", APIVersion: "2024-01-01", Folder: "b/B", CRDSHA256: strings.Repeat("1", 64)},
		{Group: "a.azure.armature.dev", Kind: "Y", Version: "v1", ARMType: "A/y", APIVersion: "2024-01-01", Folder: "a/A", CRDSHA256: strings.Repeat("2", 64)},
	}}
	var b bytes.Buffer
	if err := WriteManifest(&b, m); err != nil {
		t.Fatal(err)
	}
	got, err := ReadManifest(&b)
	if err != nil {
		t.Fatal(err)
	}
	want := Manifest{Corpus: m.Corpus, Rows: []Row{m.Rows[1], m.Rows[0]}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("manifest read back, sorted (-want +got):\n%s", diff)
	}
	if _, err := ReadManifest(strings.NewReader("group\tkind\n")); err == nil {
		t.Error("a manifest with other columns must fail")
	}
}

func TestDiff(t *testing.T) {
	row := func(kind, version, sum string) Row {
		return Row{Group: "g", Kind: kind, Version: version, ARMType: "G/" + kind, APIVersion: "2024-01-01", Folder: "g/G", CRDSHA256: sum}
	}
	sum1, sum2 := strings.Repeat("a", 64), strings.Repeat("b", 64)
	cases := map[string]struct {
		reason    string
		want, got []Row
		diff      []string
	}{
		"Same": {reason: "nothing differs", want: []Row{row("A", "v1", sum1)}, got: []Row{row("A", "v1", sum1)}},
		"Changed": {reason: "a new CRD and version of a kind", want: []Row{row("A", "v1", sum1)}, got: []Row{row("A", "v2", sum2)},
			diff: []string{"~ g/A: version v1 → v2, crdSHA256 aaaaaaaaaaaa… → bbbbbbbbbbbb…"}},
		"AddedAndGone": {reason: "one kind new, one gone, in kind order", want: []Row{row("B", "v1", sum1)}, got: []Row{row("A", "v1", sum1), {Group: "g", Kind: "C", CRDSHA256: sum1}},
			diff: []string{"+ g/A: new (v1, G/A, g/G)", "- g/B: gone", "+ g/C: not in the manifest"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.diff, Diff(tc.want, tc.got)); diff != "" {
				t.Errorf("%s (-want +got):\n%s", tc.reason, diff)
			}
		})
	}
}
