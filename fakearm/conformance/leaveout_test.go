package conformance_test

import (
	"bytes"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/armature-dev/armature/fakearm"
	"github.com/armature-dev/armature/fakearm/conformance"
	"github.com/armature-dev/armature/generated/apis"
	"github.com/armature-dev/armature/generated/profiles"
	"github.com/armature-dev/armature/recording"
)

// TestLeaveOneOut replays three recordings, each against the profiles its
// learner returns for it: the generated profiles, except for the
// recording of a refused region, which gets profiles that never saw a
// refusal (as learning without it would). Learning itself is
// heldout's (TestHeldOut).
func TestLeaveOneOut(t *testing.T) {
	dir := filepath.Join("..", "..", "test", "recordings")
	files := []string{
		filepath.Join(dir, "Test_NewResourceGroup.yaml"),
		filepath.Join(dir, "Test_NewResourceGroup_Error.yaml"),
		filepath.Join(dir, "Test_ResourceGroup_CRUD.yaml"),
	}
	generated, err := recording.LoadProfiles(profiles.Files)
	if err != nil {
		t.Fatal(err)
	}
	var without []string
	learn := func(name string) (*recording.ProfileSet, error) {
		without = append(without, name)
		if name == "Test_NewResourceGroup_Error.yaml" {
			return recording.NewProfileSet(nil), nil
		}
		return generated, nil
	}
	descs := apis.Descriptors()
	rep, err := conformance.LeaveOneOut(files, conformance.Options{Descriptors: descs}, learn, func(set *recording.ProfileSet) (http.Handler, error) {
		return fakearm.New(descs, fakearm.Options{RetryAfter: -1, Profiles: set})
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"Test_NewResourceGroup.yaml", "Test_NewResourceGroup_Error.yaml", "Test_ResourceGroup_CRUD.yaml"}, without); diff != "" {
		t.Errorf("recordings held out (-want +got):\n%s", diff)
	}
	type fig struct{ Matching, Total int }
	var got []fig
	for _, rec := range rep.Recordings {
		got = append(got, fig{rec.Matching, rec.Total})
	}
	// The refused region is not in profiles without its recording: the
	// emulator creates the group (201, recorded 400).
	want := []fig{{4, 4}, {0, 1}, {6, 6}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("per recording (-want +got):\n%s", diff)
	}
	wantProv := []conformance.ProviderTally{{Provider: "Microsoft.Resources", Tally: conformance.Tally{Matching: 10, Total: 11, ServedMatching: 10, Served: 11}}}
	if diff := cmp.Diff(wantProv, rep.Providers()); diff != "" {
		t.Errorf("per provider (-want +got):\n%s", diff)
	}
	var out bytes.Buffer
	if err := rep.WriteLeaveOneOut(&out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if last := lines[len(lines)-1]; last != "leave-one-out: 10/11" {
		t.Errorf("last line %q, want \"leave-one-out: 10/11\"\n%s", last, out.String())
	}
}
