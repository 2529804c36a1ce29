package sweep

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite testdata/coverage.md")

// fixedResult is a sweep result with every figure fixed.
func fixedResult() *Result {
	stages := Stages{Load: 1200 * time.Millisecond, Tree: 30 * time.Millisecond, Classify: 40 * time.Millisecond, Model: 50 * time.Millisecond,
		Emit: 600 * time.Millisecond, ControllerTools: 4 * time.Second, Examples: 70 * time.Millisecond}
	records := []Record{
		{Folder: Folder{Name: "alpha/Microsoft.Alpha", APIVersion: "2024-01-01"}, Kinds: 1, LargestCRD: 10240, Examples: 1, Accepted: 1, Build: BuildOK, Stages: stages,
			Classes:    Classes{CreateOnly: map[string]int{"arm": 1, "terraform": 2, "put/patch": 3}, Disagree: 2, Facts: 5, Undecided: 1},
			References: RefCounts{"subresource": 4, "arm-id-details": 2, "id-keyed-map": 1},
			Skipped:    []Skip{{Path: "/providers/Microsoft.Alpha/operations", Category: "list-only", Reason: "list of a type that has no PUT"}}},
		{Folder: Folder{Name: "beta/Microsoft.Beta", APIVersion: "2024-02-01"}, Kinds: 1, LargestCRD: 10300, Examples: 1, Build: BuildOK, Stages: stages,
			Skipped:  []Skip{{Category: "no-PUT"}, {Category: "list-only"}},
			Rejected: []Rejected{{Kind: "Widget", Title: "Create a widget", File: "beta/examples/WidgetPut.json", Why: "pruned: spec.properties.colour"}}},
		{Folder: Folder{Name: "gamma/Microsoft.Gamma", APIVersion: "2024-03-01"}, Build: BuildNone,
			Skipped: []Skip{{Category: "list-only"}, {Category: CategoryFailed}, {Reason: "unexplained"}},
			Problems: []Problem{{Stage: StageAnalysis, Where: "gamma.json#/paths/~1x/put/parameters/4/schema", Message: `Microsoft.Gamma/widgets: dangling $ref "#/definitions/WidgetCreate"`, Cause: `dangling $ref "…"`},
				{Stage: StageBuild, Where: "apis/gamma/v20240301/types.go:12:2", Message: "undefined: Sku", Cause: "undefined: Sku"}}},
	}
	records[0].KindList = []KindRecord{{Group: "alpha.azure.armature.dev", Version: "v20240101", Kind: "Widget", ARMType: "Microsoft.Alpha/widgets", APIVersion: "2024-01-01", CRD: "a.yaml", Examples: 1, Accepted: 1}}
	records[1].KindList = []KindRecord{{Group: "beta.azure.armature.dev", Version: "v20240201", Kind: "Widget", ARMType: "Microsoft.Beta/widgets", APIVersion: "2024-02-01", CRD: "b.yaml", Examples: 1}}
	s := Summarise(records)
	s.Stages.Build = 3 * time.Second
	s.Wall, s.PeakRSS, s.Jobs = 75*time.Second, 512<<20, 2
	curated := []CuratedKind{{Group: "alpha.azure.armature.dev", Version: "v20240101", Kind: "Widget", ARMType: "Microsoft.Alpha/widgets"},
		{Group: "resources.azure.armature.dev", Version: "v20240301", Kind: "ResourceGroup", ARMType: "Microsoft.Resources/resourceGroups"}}
	tiers := AssignTiers(records, curated, map[string]bool{"microsoft.resources/resourcegroups": true})
	return &Result{Records: records, Summary: s, Tiers: tiers}
}

func TestWriteMarkdown(t *testing.T) {
	var b bytes.Buffer
	if err := WriteMarkdown(&b, fixedResult(), "testdata"); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "coverage.md")
	if *update {
		if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./generator/sweep -run TestWriteMarkdown -update)", err)
	}
	if diff := cmp.Diff(string(want), b.String()); diff != "" {
		t.Errorf("%s (-want +got; go test -update rewrites it):\n%s", golden, diff)
	}
}

func TestWriteJSON(t *testing.T) {
	var b bytes.Buffer
	if err := WriteJSON(&b, fixedResult()); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Summary struct {
			Line   string         `json:"line"`
			WallMs int64          `json:"wallMs"`
			Stages map[string]int `json:"stages"`
		} `json:"summary"`
		Folders []struct {
			Name     string    `json:"name"`
			Clean    bool      `json:"clean"`
			Skipped  []Skip    `json:"skipped"`
			Problems []Problem `json:"problems"`
		} `json:"folders"`
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if got.Summary.Line != "providers clean: 2/3 (66.7%), kinds: 2, examples accepted: 1/2 (50.0%), build: ok" || got.Summary.WallMs != 75000 || got.Summary.Stages["controllerToolsMs"] != 8000 {
		t.Errorf("summary = %+v", got.Summary)
	}
	if len(got.Folders) != 3 || !got.Folders[0].Clean || got.Folders[2].Clean || len(got.Folders[2].Problems) != 2 || got.Folders[2].Skipped[2].Category != "" {
		t.Errorf("folders = %+v", got.Folders)
	}
}

// unpack extracts a .tar.xz into a temporary folder, or skips the test
// when tar cannot.
func unpack(t *testing.T, archive string) string {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("tar", "-xJf", archive, "-C", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot unpack %s with tar (xz needed): %v\n%s", archive, err, out)
	}
	return dir
}
