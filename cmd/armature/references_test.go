package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const refsRules = "../../generator/refs/testdata/rules"

// refsConfig writes a config over generator/refs' name.json with the given
// references section.
func refsConfig(t *testing.T, references string) (cfg, spec string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "specs")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg = filepath.Join(dir, "armature.yaml")
	if err := os.WriteFile(cfg, []byte("files: [name.json]\nreferences:\n"+references), 0o644); err != nil {
		t.Fatal(err)
	}
	spec, err := filepath.Abs(refsRules)
	if err != nil {
		t.Fatal(err)
	}
	return cfg, spec
}

func TestInspectReferences(t *testing.T) {
	cfg, spec := refsConfig(t, "  - {kind: Widget, path: properties.displayId, add: true, targets: [Microsoft.Portal/dashboards], because: the examples send a dashboard id}\n")
	var out, errb bytes.Buffer
	args := []string{"--references", "--config", cfg, "--spec-root", spec}
	if err := runInspect(args, &out, &errb); err != nil {
		t.Fatalf("inspect --references: %v\n%s", err, errb.String())
	}
	for _, want := range []string{
		"Widget (Microsoft.Refs/widgets)",
		"properties.serverFarmId",
		"→ Microsoft.Web/serverfarms",
		"properties.displayId",
		"override",
		"7 references in 1 of 1 kinds (name+description 6, override 1)",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the table lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	if err := runInspect(append(args, "--json", "--kind", "widget"), &out, &errb); err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Kinds []struct {
			Kind       string `json:"kind"`
			References []struct {
				Path, Rule string
				Targets    []string
			} `json:"references"`
		} `json:"kinds"`
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Kinds) != 1 || len(rep.Kinds[0].References) != 7 || rep.Kinds[0].References[0].Path != "properties.displayId" {
		t.Errorf("--json = %s", out.String())
	}
}

func TestStaleReferencesEntryFails(t *testing.T) {
	cfg, spec := refsConfig(t, "  - {kind: Widget, path: properties.serverFarmId, remove: true, because: a name}\n  - {kind: Widget, path: properties.nameOfThing, add: true, because: renamed upstream}\n")
	var out, errb bytes.Buffer
	err := runInspect([]string{"--references", "--config", cfg, "--spec-root", spec}, &out, &errb)
	want := cfg + ": references[1] (Widget properties.nameOfThing): matches no path of Widget"
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(out.String(), "removed") {
		t.Fatalf("inspect: err = %v, want %q\n%s", err, want, out.String())
	}
	err = runGenerate([]string{"--quiet", "--config", cfg, "--spec-root", spec, "--out", t.TempDir()}, &out, &errb)
	if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "references[0]") {
		t.Errorf("generate: err = %v, want only %q", err, want)
	}
}
