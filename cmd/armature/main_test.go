package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestInspectJSONShape(t *testing.T) {
	var out, errb bytes.Buffer
	err := runInspect([]string{"--json", "--spec-root", "../../generator/testdata/contoso/input", "widgets.json"}, &out, &errb)
	if err != nil {
		t.Fatalf("inspect: %v\n%s", err, errb.String())
	}
	var rep struct {
		Resources []map[string]json.RawMessage `json:"resources"`
		Skipped   []map[string]string          `json:"skipped"`
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Resources) != 4 || len(rep.Skipped) != 4 {
		t.Fatalf("%d resources, %d skipped; want 4 and 4", len(rep.Resources), len(rep.Skipped))
	}
	var widget map[string]json.RawMessage
	for _, r := range rep.Resources {
		if string(r["armType"]) == `"Microsoft.Contoso/widgets"` {
			widget = r
		}
	}
	want := map[string]string{
		"armType":     `"Microsoft.Contoso/widgets"`,
		"apiVersion":  `"2024-01-01-preview"`,
		"group":       `"contoso.azure.armature.dev"`,
		"version":     `"v20240101preview"`,
		"kind":        `"Widget"`,
		"path":        `"/subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.Contoso/widgets/{widgetName}"`,
		"owner":       `"Microsoft.Resources/resourceGroups"`,
		"scope":       `"resourceGroup"`,
		"verbs":       `["DELETE","GET","PATCH","PUT"]`,
		"longRunning": `["DELETE","PUT"]`,
	}
	for k, v := range want {
		var compact bytes.Buffer
		if err := json.Compact(&compact, widget[k]); err != nil {
			t.Fatal(err)
		}
		if got := compact.String(); got != v {
			t.Errorf("%s = %s, want %s", k, got, v)
		}
	}
	var props map[string]string
	if err := json.Unmarshal(widget["properties"], &props); err != nil {
		t.Fatal(err)
	}
	for path, class := range map[string]string{"location": "createOnly", "sku": "writable", "sku.name": "writable", "properties.provisioningState": "readOnly", "properties.adminPassword": "secret", "properties.createMode": "writeOnly"} {
		if props[path] != class {
			t.Errorf("properties[%q] = %q, want %q", path, props[path], class)
		}
	}
	if s := rep.Skipped[0]; s["path"] == "" || s["reason"] == "" {
		t.Errorf("skipped entries need path and reason: %v", s)
	}
}

func TestBadInputIsLocated(t *testing.T) {
	cases := map[string]struct {
		args []string
		want []string
	}{
		"MalformedJSON": {
			args: []string{"--spec-root", "../../generator/load/testdata", "malformed.json"},
			want: []string{"malformed.json#: invalid JSON at line 6"},
		},
		"MissingFile": {
			args: []string{"--spec-root", "../../generator/load/testdata", "nope.json"},
			want: []string{"nope.json#: file not found"},
		},
		"DanglingRefInResource": {
			args: []string{"--spec-root", "testdata", "broken.json"},
			want: []string{"1 problems", "Microsoft.Broken/things", "broken.json#/definitions/Thing/properties/properties/properties/size", `dangling $ref "#/definitions/Size"`},
		},
		"NoSpecRoot": {
			args: []string{"--spec-root", "testdata/nowhere", "x.json"},
			want: []string{"spec root testdata/nowhere is not a folder", "hack/sync-specs.sh"},
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var out, errb bytes.Buffer
			err := runInspect(tc.args, &out, &errb)
			if err == nil {
				t.Fatal("want an error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestBrokenResourceDoesNotStopTheOthers(t *testing.T) {
	var out, errb bytes.Buffer
	err := runInspect([]string{"--json", "--spec-root", "testdata", "broken.json"}, &out, &errb)
	if err == nil {
		t.Fatal("want the located error")
	}
	if !strings.Contains(out.String(), `"armType": "Microsoft.Broken/fine"`) {
		t.Errorf("the healthy resource must still be reported:\n%s", out.String())
	}
}

func TestUsageErrors(t *testing.T) {
	var out, errb bytes.Buffer
	err := runInspect([]string{"--no-such-flag"}, &out, &errb)
	var ue usageError
	if !errors.As(err, &ue) {
		t.Fatalf("want a usage error, got %v", err)
	}
}

func TestHelpExitsZero(t *testing.T) {
	runs := map[string]func([]string, io.Writer, io.Writer) error{
		"generate": runGenerate, "inspect": runInspect, "check-examples": runCheckExamples, "diff": runDiff, "sweep": runSweep,
	}
	for name, run := range runs {
		for _, flagName := range []string{"-h", "--help"} {
			var out, errb bytes.Buffer
			if code := exitCode(run([]string{flagName}, &out, &errb)); code != 0 {
				t.Errorf("%s %s: exit %d", name, flagName, code)
			}
		}
	}
	var out, errb bytes.Buffer
	if code := exitCode(runInspect([]string{"--no-such-flag"}, &out, &errb)); code != 2 {
		t.Errorf("a bad flag: exit %d, want 2", code)
	}
}

func TestGenerateFromFileArguments(t *testing.T) {
	outDir := t.TempDir()
	var out, errb bytes.Buffer
	input, err := filepath.Abs("../../generator/testdata/contoso/input/widgets.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := runGenerate([]string{"--quiet", "--out", outDir, input}, &out, &errb); err != nil {
		t.Fatalf("generate: %v\n%s", err, errb.String())
	}
	for _, f := range []string{"apis/contoso/v20240101preview/widget_types.go", "crds/contoso.azure.armature.dev_widgets.yaml", "docs/contoso.azure.armature.dev.md"} {
		if _, err := os.Stat(filepath.Join(outDir, f)); err != nil {
			t.Errorf("missing %s: %v", f, err)
		}
	}
}

const overridesCase = "../../generator/testdata/overrides/input"

func TestInspectShowsOverrides(t *testing.T) {
	var out, errb bytes.Buffer
	args := []string{"--properties", "--kind", "Gadget", "--config", overridesCase + "/armature.yaml", "--spec-root", overridesCase}
	if err := runInspect(args, &out, &errb); err != nil {
		t.Fatalf("inspect: %v\n%s", err, errb.String())
	}
	lines := map[string]string{}
	for _, l := range strings.Split(out.String(), "\n") {
		if f := strings.Fields(l); len(f) > 0 {
			lines[f[0]] = l
		}
	}
	for path, want := range map[string][]string{
		"properties.endpoint":   {"readOnly", "override: the service computes the endpoint; the swagger forgets readOnly", "[override: class readOnly (swagger: createOnly)]"},
		"properties.legacyMode": {"writable", "hidden by override: deprecated; the service ignores it since 2024", "[override: hidden]"},
		"properties.tier":       {"writable", `[override: default "Standard": our clusters run Standard unless a team says otherwise]`},
	} {
		for _, w := range want {
			if !strings.Contains(lines[path], w) {
				t.Errorf("inspect --properties: the line of %s lacks %q: %q", path, w, lines[path])
			}
		}
	}
	out.Reset()
	if err := runInspect(append(args, "--json"), &out, &errb); err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Resources []struct {
			Kind      string            `json:"kind"`
			Overrides map[string]string `json:"overrides"`
		} `json:"resources"`
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	if got := rep.Resources[0].Overrides["properties.endpoint"]; got != "class readOnly (swagger: createOnly): the service computes the endpoint; the swagger forgets readOnly" {
		t.Errorf("overrides[properties.endpoint] = %q", got)
	}
}

func TestStaleOverrideFailsGenerate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "specs")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "armature.yaml")
	body := "files: [gizmo.json]\noverrides:\n  - kind: Gadget\n    path: properties.endpointUri\n    class: readOnly\n    because: renamed upstream\n"
	if err := os.WriteFile(cfg, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	spec, err := filepath.Abs(overridesCase)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	var stdout, errb bytes.Buffer
	err = runGenerate([]string{"--quiet", "--config", cfg, "--spec-root", spec, "--out", out}, &stdout, &errb)
	want := cfg + ": overrides[0] (Gadget properties.endpointUri): matches no property of Gadget"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("err = %v, want it to contain %q", err, want)
	}
	if entries, _ := os.ReadDir(out); len(entries) > 0 {
		t.Errorf("a stale override must stop generation before anything is written")
	}
	// inspect still shows everything, and the problem.
	stdout.Reset()
	err = runInspect([]string{"--config", cfg, "--spec-root", spec}, &stdout, &errb)
	if err == nil || !strings.Contains(err.Error(), "1 entries of the config do not apply") || !strings.Contains(stdout.String(), "Gadget") {
		t.Errorf("inspect: err = %v\n%s", err, stdout.String())
	}
}
