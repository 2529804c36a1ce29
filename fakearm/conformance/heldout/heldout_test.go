package heldout_test

import (
	"bytes"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/armature-dev/armature/fakearm"
	"github.com/armature-dev/armature/fakearm/conformance"
	"github.com/armature-dev/armature/fakearm/conformance/heldout"
	"github.com/armature-dev/armature/generated/apis"
	"github.com/armature-dev/armature/recording"
)

// TestHeldOut measures what conformance's TestRecordings cannot: there the
// profiles learn from the recordings the replay compares with. Here each
// recording of test/recordings is replayed against an emulator whose
// profiles were learned from all the others (`make conformance` prints the
// same figure). The figure is printed, not asserted: a recording that alone
// shows a behaviour cannot be predicted from the others. What is asserted
// is that holding out changes what is learned (the only recording of a
// refused region), and nothing when the name is outside the learning set.
func TestHeldOut(t *testing.T) {
	if testing.Short() {
		t.Skip("learns the profiles once per recording")
	}
	root := filepath.Join("..", "..", "..")
	l, err := heldout.New(filepath.Join(root, "specs", "armature.yaml"), "")
	if err != nil {
		t.Skip(err)
	}
	whole, err := l.Without("not-a-recording.yaml")
	if err != nil {
		t.Fatal(err)
	}
	without, err := l.Without("Test_NewResourceGroup_Error.yaml")
	if err != nil {
		t.Fatal(err)
	}
	const rg, v = "Microsoft.Resources/resourceGroups", "2024-03-01"
	if p := whole.For(rg, v); p == nil || p.Locations == nil {
		t.Errorf("learned from every recording, %s has no region list; want the one Test_NewResourceGroup_Error.yaml records", rg)
	}
	if p := without.For(rg, v); p == nil || p.Locations != nil {
		t.Errorf("learned without Test_NewResourceGroup_Error.yaml, %s has a region list %v; want none", rg, p)
	}
	files, err := filepath.Glob(filepath.Join(root, "test", "recordings", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	descs := apis.Descriptors()
	rep, err := conformance.LeaveOneOut(files, conformance.Options{Descriptors: descs}, l.Without, func(set *recording.ProfileSet) (http.Handler, error) {
		return fakearm.New(descs, fakearm.Options{RetryAfter: -1, Profiles: set})
	})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := rep.WriteLeaveOneOut(&out); err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + out.String())
	if !strings.HasSuffix(out.String(), "\n") || rep.Total == 0 {
		t.Errorf("no leave-one-out report")
	}
}
