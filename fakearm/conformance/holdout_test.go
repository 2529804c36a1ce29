package conformance_test

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/armature-dev/armature/fakearm"
	"github.com/armature-dev/armature/fakearm/conformance"
	"github.com/armature-dev/armature/generated/apis"
	"github.com/armature-dev/armature/generator"
	"github.com/armature-dev/armature/generator/config"
	"github.com/armature-dev/armature/generator/model"
	genprofile "github.com/armature-dev/armature/generator/profile"
	"github.com/armature-dev/armature/recording"
)

// TestHeldOut measures what TestRecordings cannot: the profiles learn from
// the same recordings the replay compares with. Here each recording is
// replayed against an emulator whose profiles were learned from all the
// other recordings (leave one out), so the figure says how well what was
// learned carries over to traffic the learner never saw. It is printed,
// not asserted: a recording that alone shows a behaviour (the only
// refused storage account name) cannot be predicted from the others.
func TestHeldOut(t *testing.T) {
	if testing.Short() {
		t.Skip("learns the profiles once per recording")
	}
	root, _ := filepath.Abs(filepath.Join("..", ".."))
	c, err := config.Load(filepath.Join(root, "specs", "armature.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	specs := config.ResolveSpecRoot("", c, c.Dir)
	if _, err := os.Stat(filepath.Join(specs, "specification")); err != nil {
		t.Skipf("the Azure specs are not at %s: run hack/sync-specs.sh", specs)
	}
	a, err := generator.Analyze(generator.Options{SpecRoot: specs, Files: c.Files, Config: c, Domain: c.Domain})
	if err != nil {
		t.Fatal(err)
	}
	m := &model.Model{Packages: a.Packages()}
	recs, err := genprofile.LoadRecordings([]string{filepath.Join(root, "test", "recordings")})
	if err != nil {
		t.Fatal(err)
	}
	descs := apis.Descriptors()
	var all conformance.Tally
	var lines []string
	for i, held := range recs {
		others := append(append([]genprofile.Recording(nil), recs[:i]...), recs[i+1:]...)
		files, _, err := genprofile.Learn(m, genprofile.Options{SpecRoot: specs, Recordings: others, Header: "held out"})
		if err != nil {
			t.Fatal(err)
		}
		var types []recording.Profile
		for name, b := range files {
			if !strings.HasSuffix(name, ".yaml") {
				continue
			}
			f, err := recording.ParseProfile(b)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			types = append(types, f.Types...)
		}
		set := recording.NewProfileSet(types)
		em, err := fakearm.New(descs, fakearm.Options{RetryAfter: -1, Profiles: set})
		if err != nil {
			t.Fatal(err)
		}
		rec := conformance.Replay(held.Name, held.Cassette, em, conformance.Options{Descriptors: descs, New: func() (http.Handler, error) { return em, nil }})
		all.ServedMatching += rec.ServedMatching
		all.Served += rec.Served
		if rec.ServedMatching < rec.Served {
			var why []string
			for _, s := range rec.Steps {
				if s.Served && !s.Match {
					why = append(why, fmt.Sprintf("#%d %s: %s", s.Interactions[len(s.Interactions)-1], s.Method, s.Why))
				}
			}
			lines = append(lines, fmt.Sprintf("  %s %d/%d: %s", held.Name, rec.ServedMatching, rec.Served, strings.Join(why, "; ")))
		}
	}
	sort.Strings(lines)
	t.Logf("held out, steps of served types matching: %d/%d (%.1f%%)\n%s", all.ServedMatching, all.Served, 100*float64(all.ServedMatching)/float64(max(all.Served, 1)), strings.Join(lines, "\n"))
}
