package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/armature-dev/armature/generator/sweep/tier"
)

func TestTierUsage(t *testing.T) {
	cases := map[string]struct {
		args []string
		want string
	}{
		"NoDir":         {args: nil, want: "tier takes one DIR, got 0 arguments"},
		"CheckWithDir":  {args: []string{"--check-only", "dir"}, want: "tier --check-only takes no DIR"},
		"BadJobs":       {args: []string{"-j", "0", "dir"}, want: "-j 0: want at least 1"},
		"UnknownOption": {args: []string{"--all-versions", "dir"}, want: "flag provided but not defined: -all-versions"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var out, errb bytes.Buffer
			err := runTier(append([]string{"--out", t.TempDir()}, tc.args...), &out, &errb)
			var ue usageError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("runTier(%q) = %v, want a usage error containing %q", tc.args, err, tc.want)
			}
		})
	}
}

// TestTierCheckOnly checks a tier without generating it: nothing there,
// then CRDs that are the last generation's and a manifest that differs
// (exit 3), then --update.
func TestTierCheckOnly(t *testing.T) {
	out, crds := t.TempDir(), t.TempDir()
	var stdout, stderr bytes.Buffer
	if err := runTier([]string{"--check-only", "--out", out, "--crds", crds}, &stdout, &stderr); err == nil || !strings.Contains(err.Error(), "no generated tier") {
		t.Fatalf("check-only without a tier = %v, want 'no generated tier'", err)
	}

	crd := tier.Header + "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec:\n  group: g.azure.armature.dev\n  names:\n    kind: Widget\n"
	if err := os.MkdirAll(filepath.Join(crds, "g.azure.armature.dev"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(crds, "g.azure.armature.dev", "widgets.yaml"), []byte(crd), 0o644); err != nil {
		t.Fatal(err)
	}
	sums, err := tier.Installed(crds)
	if err != nil {
		t.Fatal(err)
	}
	produced := tier.Manifest{Corpus: "c", Rows: []tier.Row{{Group: "g.azure.armature.dev", Kind: "Widget", Version: "v1", ARMType: "G/widgets", APIVersion: "2024-01-01", Folder: "g/G", CRDSHA256: sums["g.azure.armature.dev/Widget"]}}}
	if err := writeFileWith(filepath.Join(out, producedManifest), func(w io.Writer) error { return tier.WriteManifest(w, produced) }); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(out, "apis"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(out, "apis", "registry.go"), []byte("package apis\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"--check-only", "--out", out, "--crds", crds}
	err = runTier(args, &stdout, &stderr)
	var ee exitError
	if !errors.As(err, &ee) || ee.code != exitManifest || !strings.Contains(stdout.String(), "+ g.azure.armature.dev/Widget: new (v1, G/widgets, g/G)") {
		t.Fatalf("check-only against no manifest = %v, stdout:\n%s\nwant exit %d listing the new kind", err, stdout.String(), exitManifest)
	}
	if err := runTier(append(args, "--update"), &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	stdout.Reset()
	if err := runTier(args, &stdout, &stderr); err != nil || !strings.Contains(stdout.String(), "the 1 kinds generated match") {
		t.Fatalf("check-only after --update = %v, stdout:\n%s", err, stdout.String())
	}

	// A CRD edited after the generation is found.
	if err := os.WriteFile(filepath.Join(crds, "g.azure.armature.dev", "widgets.yaml"), []byte(crd+"# edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := runTier(args, &stdout, &stderr); err == nil || !strings.Contains(err.Error(), "not those the last generation wrote") {
		t.Errorf("check-only with an edited CRD = %v, want it found", err)
	}
}
