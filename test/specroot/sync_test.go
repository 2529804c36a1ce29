package specroot

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/armature-dev/armature/test/envtestutil"
)

// layout makes repo/hack/sync-specs.sh and a shared/specs folder beside it
// holding one upstream service, and returns repo.
func layout(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	repo := filepath.Join(dir, "repo")
	script, err := os.ReadFile(filepath.Join(envtestutil.RepoRoot(), "hack", "sync-specs.sh"))
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(repo, "hack", "sync-specs.sh"), string(script), 0o755)
	write(t, filepath.Join(dir, "shared", "specs", "azure-rest-api-specs", "specification", "storage", "resource-manager", "a.json"), "{}", 0o644)
	write(t, filepath.Join(dir, "shared", "specs", "azure-rest-api-specs", "specification", "contoso", "resource-manager", "upstream.json"), `{"upstream":true}`, 0o644)
	return repo
}

func write(t *testing.T, p, s string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), mode); err != nil {
		t.Fatal(err)
	}
}

func sync(t *testing.T, repo string) {
	t.Helper()
	cmd := exec.Command("bash", filepath.Join(repo, "hack", "sync-specs.sh"))
	cmd.Env = append(os.Environ(), "ARMATURE_SPECS=")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("sync-specs.sh: %v\n%s", err, out)
	}
}

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		return ""
	}
	return string(b)
}

// TestLocalSpecs: the folders of specs/local are added to the spec root
// beside the upstream ones (a folder upstream has too is merged, the local
// file winning), the root is rebuilt when they change, and removing them
// removes them.
func TestLocalSpecs(t *testing.T) {
	repo := layout(t)
	spec := filepath.Join(repo, "specs", "azure-rest-api-specs", "specification")
	sync(t, repo)
	if read(t, filepath.Join(spec, "storage", "resource-manager", "a.json")) != "{}" {
		t.Fatal("the upstream service is not in the spec root")
	}

	write(t, filepath.Join(repo, "specs", "local", "mine", "resource-manager", "m.json"), `{"mine":true}`, 0o644)
	write(t, filepath.Join(repo, "specs", "local", "contoso", "resource-manager", "upstream.json"), `{"local":true}`, 0o644)
	write(t, filepath.Join(repo, "specs", "local", "contoso", "resource-manager", "extra.json"), `{"extra":true}`, 0o644)
	sync(t, repo) // no --force: the change of specs/local rebuilds it
	for p, want := range map[string]string{
		"mine/resource-manager/m.json":           `{"mine":true}`,
		"contoso/resource-manager/upstream.json": `{"local":true}`, // yours win
		"contoso/resource-manager/extra.json":    `{"extra":true}`,
		"storage/resource-manager/a.json":        "{}",
	} {
		if got := read(t, filepath.Join(spec, p)); got != want {
			t.Errorf("%s = %q, want %q", p, got, want)
		}
	}
	if src := read(t, filepath.Join(repo, "specs", "azure-rest-api-specs", ".sources")); !strings.Contains(src, filepath.Join(repo, "specs", "local")) {
		t.Errorf(".sources %q does not name specs/local", src)
	}

	if err := os.RemoveAll(filepath.Join(repo, "specs", "local")); err != nil {
		t.Fatal(err)
	}
	sync(t, repo)
	if _, err := os.Stat(filepath.Join(spec, "mine")); !os.IsNotExist(err) {
		t.Errorf("specs/local removed, but the spec root still holds mine (%v)", err)
	}
	if got := read(t, filepath.Join(spec, "contoso", "resource-manager", "upstream.json")); got != `{"upstream":true}` {
		t.Errorf("contoso after specs/local went: %q, want the upstream file", got)
	}
}
