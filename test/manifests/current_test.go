package manifests

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/armature-dev/armature/generated/apis"
	"github.com/armature-dev/armature/hack/manifests/render"
	"github.com/armature-dev/armature/test/envtestutil"
)

// configDir is the committed config/.
func configDir() string { return filepath.Join(envtestutil.RepoRoot(), "config") }

// renderInto renders config/ with o into a new folder, hand-written files
// copied from the committed config/, and returns the folder.
func renderInto(t *testing.T, o render.Options) string {
	t.Helper()
	files, err := render.Render(o)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "config")
	if err := render.Write(out, files, configDir()); err != nil {
		t.Fatal(err)
	}
	return out
}

// tree reads every file under dir (slash paths).
func tree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = b
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCommittedConfigIsCurrent fails when generated/ changed and config/
// was not re-rendered (make manifests), or config/ was edited by hand
// where it is generated.
func TestCommittedConfigIsCurrent(t *testing.T) {
	fresh := tree(t, renderInto(t, render.DefaultOptions(envtestutil.RepoRoot(), apis.Descriptors())))
	committed := tree(t, configDir())
	var problems []string
	for p, want := range fresh {
		got, ok := committed[p]
		switch {
		case !ok:
			problems = append(problems, "missing from config/: "+p)
		case !bytes.Equal(got, want):
			problems = append(problems, "differs from a fresh render: config/"+p)
		}
	}
	for p := range committed {
		if _, ok := fresh[p]; !ok {
			problems = append(problems, "no longer rendered: config/"+p)
		}
	}
	sort.Strings(problems)
	for _, p := range problems {
		t.Error(p)
	}
	if len(problems) > 0 {
		t.Log("config/ is stale: run 'make manifests' (go run ./hack/manifests) and commit the result")
	}
	if n := len(fresh); n < 20 {
		t.Errorf("a fresh render has %d files: the comparison covers too little", n)
	}
}
