package apidiff_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/armature-dev/armature/generator"
	"github.com/armature-dev/armature/generator/apidiff"
	"github.com/armature-dev/armature/generator/config"
	"github.com/armature-dev/armature/generator/model"
)

var update = flag.Bool("update", false, "rewrite testdata/storage-2023-01-01_2023-05-01.golden")

// analyze runs the generator's analysis over files below root.
func analyze(t *testing.T, root string, files ...string) *model.Model {
	t.Helper()
	a, err := generator.Analyze(generator.Options{SpecRoot: root, Files: files})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Errors) > 0 {
		t.Fatalf("analysis of %s: %v", strings.Join(files, ", "), a.Errors)
	}
	return a.Model
}

// lines projects a report onto one short line per change.
func lines(r *apidiff.Report) []string {
	var out []string
	for _, k := range r.Kinds {
		for _, c := range k.Changes {
			mark := "ok"
			if c.Breaking {
				mark = "BREAKING"
			}
			s := fmt.Sprintf("%s %s %s %s", mark, k.ARMType, c.Op, c.Path)
			if c.Old != "" || c.New != "" {
				s += fmt.Sprintf(" %s→%s", c.Old, c.New)
			}
			if c.Rule != "" && c.Op == apidiff.ClassChanged {
				s += " (" + c.Rule + ")"
			}
			if len(c.Values) > 0 {
				s += " " + strings.Join(c.Values, ",")
			}
			if c.Below > 0 {
				s += fmt.Sprintf(" +%d below", c.Below)
			}
			out = append(out, s)
		}
	}
	return out
}

// TestCases compares each hand-written pair under testdata/cases (old.json
// is api-version 2024-01-01 of Microsoft.Shop/widgets, new.json the same
// swagger with one edit) and checks every change and its mark.
func TestCases(t *testing.T) {
	const w = "Microsoft.Shop/widgets"
	cases := map[string]struct {
		reason   string
		want     []string
		breaking int
	}{
		"removed-field": {
			reason:   "a property removed from the PUT body is breaking",
			want:     []string{"BREAKING " + w + " removed properties.note writable string→"},
			breaking: 1,
		},
		"removed-object": {
			reason:   "an object removed is one breaking line; its properties are folded into it",
			want:     []string{"BREAKING " + w + " removed properties.network writable object→ +2 below"},
			breaking: 1,
		},
		"createonly-mutability": {
			reason:   "x-ms-mutability without update makes a writable property createOnly: breaking",
			want:     []string{"BREAKING " + w + " class properties.color writable→createOnly (x-ms-mutability has create but not update)"},
			breaking: 1,
		},
		"createonly-patch": {
			reason:   "a property removed from the PATCH body becomes createOnly: breaking",
			want:     []string{"BREAKING " + w + " class properties.size writable→createOnly (in the PUT body, not in the PATCH body)"},
			breaking: 1,
		},
		"createonly-object": {
			reason:   "an object removed from the PATCH body becomes createOnly with everything below it: one line",
			want:     []string{"BREAKING " + w + " class properties.network writable→createOnly (in the PUT body, not in the PATCH body) +2 below"},
			breaking: 1,
		},
		"enum-removed": {
			reason: "a removed enum value is breaking, an added one is not",
			want: []string{
				"BREAKING " + w + " enum-removed properties.mode Eco",
				"ok " + w + " enum-added properties.mode Turbo",
			},
			breaking: 1,
		},
		"enum-closed": {
			reason:   "an open enum (modelAsString) that closes rejects other values: breaking",
			want:     []string{"BREAKING " + w + " enum-closed properties.mode Eco,Fast,Slow"},
			breaking: 1,
		},
		"required": {
			reason:   "an existing property that becomes required is breaking",
			want:     []string{"BREAKING " + w + " required properties.color"},
			breaking: 1,
		},
		"added-optional": {
			reason:   "an added optional property is not breaking",
			want:     []string{"ok " + w + " added properties.label →writable string"},
			breaking: 0,
		},
		"added-required": {
			reason:   "an added property the PUT body requires is breaking",
			want:     []string{"BREAKING " + w + " added properties.serial →writable string, required"},
			breaking: 1,
		},
		"mixed": {
			reason: "resource types added and removed, createOnly → writable, → readOnly, → secret, a type change and an enum that opens",
			want: []string{
				"ok Microsoft.Shop/gadgets resource-added  →2024-06-01",
				"BREAKING Microsoft.Shop/sprockets resource-removed  2024-01-01→",
				"ok " + w + " class label createOnly→writable (in the PUT body and the PATCH body)",
				"BREAKING " + w + " class properties.color writable→readOnly (readOnly: true in the PUT body schema)",
				"ok " + w + " enum-opened properties.mode",
				"BREAKING " + w + " class properties.note writable→secret (x-ms-secret: true)",
				"BREAKING " + w + " type properties.size int32→string",
			},
			breaking: 4,
		},
	}
	dirs, err := os.ReadDir(filepath.Join("testdata", "cases"))
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) != len(cases) {
		t.Errorf("%d folders in testdata/cases, %d cases in the test: keep them in step", len(dirs), len(cases))
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			root := filepath.Join("testdata", "cases", name)
			rep := apidiff.Compare(analyze(t, root, "old.json"), analyze(t, root, "new.json"))
			if diff := cmp.Diff(tc.want, lines(rep)); diff != "" {
				t.Errorf("%s\nchanges (-want +got):\n%s", tc.reason, diff)
			}
			if rep.Summary.Breaking != tc.breaking || rep.HasBreaking() != (tc.breaking > 0) {
				t.Errorf("%s: %d breaking changes, want %d", tc.reason, rep.Summary.Breaking, tc.breaking)
			}
			// Every breaking line of the text says so and why.
			var b bytes.Buffer
			if err := rep.Write(&b); err != nil {
				t.Fatal(err)
			}
			if got := strings.Count(b.String(), "\n  BREAKING  "); got != tc.breaking {
				t.Errorf("%d BREAKING lines in the text, want %d:\n%s", got, tc.breaking, b.String())
			}
			wantSummary := fmt.Sprintf("; %d breaking change", tc.breaking)
			if !strings.Contains(b.String(), wantSummary) {
				t.Errorf("summary lacks %q:\n%s", wantSummary, b.String())
			}
		})
	}
}

// TestSameSpecHasNoChanges compares a swagger with itself.
func TestSameSpecHasNoChanges(t *testing.T) {
	root := filepath.Join("testdata", "cases", "mixed")
	m := analyze(t, root, "new.json")
	rep := apidiff.Compare(m, analyze(t, root, "new.json"))
	if len(rep.Kinds) != 0 || rep.Summary.Compared != 2 || rep.Summary.Changed != 0 {
		t.Fatalf("a swagger compared with itself: %+v", rep)
	}
}

// TestJSON checks the machine-readable form carries what the text shows.
func TestJSON(t *testing.T) {
	root := filepath.Join("testdata", "cases", "createonly-patch")
	rep := apidiff.Compare(analyze(t, root, "old.json"), analyze(t, root, "new.json"))
	var b bytes.Buffer
	if err := rep.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Old, New string
		Kinds    []struct {
			ARMType    string `json:"armType"`
			OldVersion string `json:"oldVersion"`
			NewVersion string `json:"newVersion"`
			Breaking   int    `json:"breaking"`
			Changes    []map[string]any
		}
		Summary map[string]int
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if got.Old != "2024-01-01" || got.New != "2024-06-01" || len(got.Kinds) != 1 {
		t.Fatalf("report header or kinds wrong:\n%s", b.String())
	}
	k := got.Kinds[0]
	want := map[string]any{
		"change": "class", "path": "properties.size", "old": "writable", "new": "createOnly",
		"rule": "in the PUT body, not in the PATCH body", "oldRule": "in the PUT body and the PATCH body",
		"breaking": true, "why": "a change after creation is rejected",
	}
	if k.ARMType != "Microsoft.Shop/widgets" || k.OldVersion != "v20240101" || k.NewVersion != "v20240601" || k.Breaking != 1 || len(k.Changes) != 1 {
		t.Fatalf("kind: %+v", k)
	}
	if diff := cmp.Diff(want, k.Changes[0]); diff != "" {
		t.Errorf("change (-want +got):\n%s", diff)
	}
	if got.Summary["breaking"] != 1 || got.Summary["changed"] != 1 || got.Summary["compared"] != 1 {
		t.Errorf("summary: %v", got.Summary)
	}
}

// storageRoot returns the real spec root, or skips.
func storageRoot(t *testing.T) string {
	t.Helper()
	root := config.ResolveSpecRoot("", nil, filepath.Join("..", ".."))
	if _, err := os.Stat(filepath.Join(root, storageDir)); err != nil {
		t.Skipf("the Azure specs are not at %s (no %s): run hack/sync-specs.sh or set %s", root, storageDir, config.EnvSpecRoot)
	}
	return root
}

const storageDir = "specification/storage/resource-manager/Microsoft.Storage/stable"

// storageFiles are the files of one Storage api-version that
// specs/armature.yaml generates.
func storageFiles(version string) []string {
	var out []string
	for _, f := range []string{"storage", "blob", "file", "queue", "table"} {
		out = append(out, storageDir+"/"+version+"/"+f+".json")
	}
	return out
}

// TestStorageGolden compares Microsoft.Storage 2023-01-01 with 2023-05-01
// and checks the report against testdata/storage-2023-01-01_2023-05-01.golden
// (`go test ./generator/apidiff -run TestStorageGolden -update` rewrites it;
// docs/api-diff.md lists the entries checked against the swagger).
func TestStorageGolden(t *testing.T) {
	root := storageRoot(t)
	older := analyze(t, root, storageFiles("2023-01-01")...)
	newer := analyze(t, root, storageFiles("2023-05-01")...)
	rep := apidiff.Compare(older, newer)
	var got bytes.Buffer
	if err := rep.Write(&got); err != nil {
		t.Fatal(err)
	}
	var again bytes.Buffer
	if err := apidiff.Compare(older, newer).Write(&again); err != nil {
		t.Fatal(err)
	}
	if got.String() != again.String() {
		t.Fatalf("two reports over the same input differ:\n%s", cmp.Diff(got.String(), again.String()))
	}

	// Facts read in the swagger, independent of the golden file.
	const sa, lu = "Microsoft.Storage/storageAccounts", "Microsoft.Storage/storageAccounts/localUsers"
	for _, want := range []string{
		"ok " + sa + " added properties.enableExtendedGroups →writable boolean",
		"ok " + sa + " enum-added properties.minimumTlsVersion TLS1_3",
		"ok " + sa + " enum-added properties.accessTier Cold",
		"ok " + sa + " enum-added properties.publicNetworkAccess SecuredByPerimeter",
		"ok " + sa + " enum-added properties.sasPolicy.expirationAction Block",
		"ok " + lu + " added properties.userId →readOnly int32",
		"ok " + lu + " added properties.groupId →writable int32",
		"ok " + lu + " added properties.extendedGroups →writable []int32",
	} {
		found := false
		for _, l := range lines(rep) {
			found = found || l == want
		}
		if !found {
			t.Errorf("the report lacks %q:\n%s", want, got.String())
		}
	}
	if rep.Summary.Breaking != 0 || rep.Summary.Added != 0 || rep.Summary.Removed != 0 || rep.Summary.Compared != 16 {
		t.Errorf("summary %+v: want 16 kinds compared, none added or removed, nothing breaking", rep.Summary)
	}

	golden := filepath.Join("testdata", "storage-2023-01-01_2023-05-01.golden")
	if *update {
		if err := os.WriteFile(golden, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if diff := cmp.Diff(string(want), got.String()); diff != "" {
		t.Errorf("report differs from %s (-want +got):\n%s", golden, diff)
	}
}
