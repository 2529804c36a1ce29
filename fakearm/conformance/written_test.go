package conformance_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/armature-dev/armature/fakearm"
	"github.com/armature-dev/armature/fakearm/conformance"
	"github.com/armature-dev/armature/generated/apis"
	"github.com/armature-dev/armature/recording"
)

// written is one interaction of a cassette a test writes: the request
// (req: its body) and ARM's answer.
type written struct {
	method, url string
	code        int
	req, body   string
	location    string
}

// replayWritten writes its as a cassette, replays it against the
// emulator with every generated kind and fails the test unless every
// step matches.
func replayWritten(t *testing.T, name string, its []written) {
	t.Helper()
	rec := replayOf(t, name, its)
	var why []string
	for _, s := range rec.Steps {
		if !s.Match {
			why = append(why, s.Method+" #"+strconv.Itoa(s.Interactions[0])+" "+s.Path+": "+s.Why)
		}
	}
	if len(why) > 0 || rec.Total != len(its) {
		t.Errorf("%d of %d steps match (want %d):\n%s", rec.Matching, rec.Total, len(its), strings.Join(why, "\n"))
	}
}

// replayOf writes its as a cassette and replays it against the emulator
// with every generated kind.
func replayOf(t *testing.T, name string, its []written) conformance.Recording {
	t.Helper()
	var b strings.Builder
	b.WriteString("version: 1\ninteractions:\n")
	for _, x := range its {
		b.WriteString("- request:\n    body: '" + x.req + "'\n    headers: {}\n    url: " + x.url + "\n    method: " + x.method + "\n  response:\n    body: '" + x.body + "'\n    headers:\n")
		if x.location != "" {
			b.WriteString("      Location:\n      - " + x.location + "\n")
		} else {
			b.WriteString("      X-Nothing:\n      - \"\"\n")
		}
		b.WriteString("    code: " + strconv.Itoa(x.code) + "\n")
	}
	c, err := recording.ParseCassette([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	descs := apis.Descriptors()
	h, err := fakearm.New(descs, fakearm.Options{RetryAfter: -1})
	if err != nil {
		t.Fatal(err)
	}
	return conformance.Replay(name, c, h, conformance.Options{Descriptors: descs})
}
