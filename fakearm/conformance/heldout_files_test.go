package conformance_test

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/armature-dev/armature/fakearm"
	"github.com/armature-dev/armature/fakearm/conformance"
	"github.com/armature-dev/armature/generated/apis"
)

// heldoutRow is a row of test/recordings/heldout/SOURCES.md:
// | `file.yaml` | `upstream/path` | `commit` | bytes | `git blob SHA-1` |
var heldoutRow = regexp.MustCompile("^\\|\\s*`([^`]+\\.yaml)`\\s*\\|\\s*`[^`]+`\\s*\\|\\s*`[0-9a-f]{40}`\\s*\\|\\s*([0-9]+)\\s*\\|\\s*`([0-9a-f]{40})`\\s*\\|")

// TestHeldOutFiles checks the recordings kept out of learning
// (test/recordings/heldout): each is listed in its SOURCES.md and is byte
// for byte the copy described there. It logs how the emulator does on
// them (make conformance-outside OUTSIDE=test/recordings/heldout); no
// figure is asserted: nothing is tuned to them.
func TestHeldOutFiles(t *testing.T) {
	dir := filepath.Join("..", "..", "test", "recordings", "heldout")
	sources, err := os.ReadFile(filepath.Join(dir, "SOURCES.md"))
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		bytes int
		sha   string
	}
	listed := map[string]row{}
	for _, line := range strings.Split(string(sources), "\n") {
		if m := heldoutRow.FindStringSubmatch(line); m != nil {
			n, _ := strconv.Atoi(m[2])
			listed[m[1]] = row{n, m[3]}
		}
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 || len(files) != len(listed) {
		t.Errorf("%d files, SOURCES.md lists %d", len(files), len(listed))
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		r, ok := listed[filepath.Base(f)]
		h := sha1.New()
		fmt.Fprintf(h, "blob %d\x00", len(data))
		h.Write(data)
		switch sha := hex.EncodeToString(h.Sum(nil)); {
		case !ok:
			t.Errorf("%s is not in SOURCES.md", filepath.Base(f))
		case len(data) != r.bytes || sha != r.sha:
			t.Errorf("%s: %d bytes, blob %s; SOURCES.md says %d, %s", filepath.Base(f), len(data), sha, r.bytes, r.sha)
		}
	}
	descs := apis.Descriptors()
	rep, err := conformance.Run(files, conformance.Options{Descriptors: descs, New: func() (http.Handler, error) {
		return fakearm.New(descs, fakearm.Options{RetryAfter: -1})
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("held out: %d/%d steps match (served types %d/%d)", rep.Matching, rep.Total, rep.ServedMatching, rep.Served)
}
