package helm

import (
	"testing"

	"github.com/armature-dev/armature/generated/apis"
	"github.com/armature-dev/armature/hack/manifests/render"
	"github.com/armature-dev/armature/test/envtestutil"
)

// TestCommittedChartIsCurrent fails when config/ or generated/ changed
// and the chart was not re-rendered (make manifests), or a generated file
// of the chart was edited by hand. It needs no helm.
func TestCommittedChartIsCurrent(t *testing.T) {
	o := render.DefaultOptions(envtestutil.RepoRoot(), apis.Descriptors())
	files, err := render.Render(o)
	if err != nil {
		t.Fatal(err)
	}
	chart, err := render.Chart(o, files, configDir())
	if err != nil {
		t.Fatal(err)
	}
	diffs, err := render.Diff(chartDir(), chart)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range diffs {
		t.Error(d)
	}
	if len(diffs) > 0 {
		t.Log("run 'make manifests' and commit charts/")
	}
}
