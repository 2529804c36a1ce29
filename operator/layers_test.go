package operator_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestLayers: imports point down (DESIGN.md, Layers). runtime/ never
// imports webhook/, generated/, examples/ or this package; the production
// operator binary carries no example code.
func TestLayers(t *testing.T) {
	const mod = "github.com/armature-dev/armature/"
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", "../cmd/operator").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	if strings.Contains(string(out), mod+"examples/") {
		t.Error("cmd/operator depends on examples/: example compositions must come only with a build of the example (operator.WithComposition)")
	}
	out, err = exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Deps}} {{.}}{{end}}`, "../runtime/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, deps, _ := strings.Cut(line, " ")
		for _, d := range strings.Fields(deps) {
			for _, up := range []string{"webhook", "generated", "examples", "operator"} {
				if d == mod+up || strings.HasPrefix(d, mod+up+"/") {
					t.Errorf("%s imports %s: runtime/ must not import %s/", pkg, d, up)
				}
			}
		}
	}
}
