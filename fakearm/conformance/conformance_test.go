package conformance_test

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/armature-dev/armature/fakearm"
	"github.com/armature-dev/armature/fakearm/conformance"
	"github.com/armature-dev/armature/generated/apis"
	"github.com/armature-dev/armature/recording"
)

const base = "https://management.azure.com/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rg/providers/Microsoft.Storage/storageAccounts/acct01"

// interaction writes one cassette interaction.
func interaction(method, url string, code int, headers ...string) string {
	var h strings.Builder
	for i := 0; i+1 < len(headers); i += 2 {
		h.WriteString("      " + headers[i] + ":\n      - " + headers[i+1] + "\n")
	}
	hs := "{}"
	if h.Len() > 0 {
		hs = "\n" + strings.TrimRight(h.String(), "\n")
	}
	return "- request:\n    body: \"\"\n    headers: {}\n    url: " + url + "\n    method: " + method + "\n  response:\n    body: \"\"\n    headers: " + hs + "\n    code: " + strconv.Itoa(code) + "\n"
}

func TestSteps(t *testing.T) {
	op := "https://management.azure.com/subscriptions/00000000-0000-0000-0000-000000000000/providers/Microsoft.Storage/locations/westus2/asyncoperations/1?monitor=true&api-version=2021-04-01"
	q := "?api-version=2021-04-01"
	c, err := recording.ParseCassette([]byte("version: 1\ninteractions:\n" +
		interaction("PUT", base+q, 202, "Location", op) + // 0: the create
		interaction("GET", op, 202, "Location", op) + // 1: its polls…
		interaction("GET", base+q, 200) + // 2: a read between the polls
		interaction("GET", op, 200) + // 3: …the last poll
		interaction("GET", base+q, 200) + // 4, 5: a run of reads
		interaction("GET", base+q, 200) +
		interaction("DELETE", base+q, 200) + // 6
		interaction("GET", base+q, 404))) // 7
	if err != nil {
		t.Fatal(err)
	}
	type short struct {
		Kind         conformance.Kind
		Interactions []int
		Of           int
		Via          string
	}
	var got []short
	for _, s := range conformance.Steps(c) {
		got = append(got, short{s.Kind, s.Interactions, s.Of, s.Via})
	}
	want := []short{
		{conformance.Mutation, []int{0}, 0, ""},
		{conformance.Operation, []int{1, 3}, 0, "location"},
		{conformance.Read, []int{2}, 0, ""},
		{conformance.Read, []int{4, 5}, 0, ""},
		{conformance.Mutation, []int{6}, 0, ""},
		{conformance.Read, []int{7}, 0, ""},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("steps (-want +got):\n%s", diff)
	}
}

// TestRecordings replays test/recordings and ../shared/recordings against
// the emulator: at least 98% of the steps must match (make conformance
// prints the same report).
func TestRecordings(t *testing.T) {
	dirs := []string{filepath.Join("..", "..", "test", "recordings")}
	if _, err := os.Stat(filepath.Join("..", "..", "..", "shared", "recordings")); err == nil {
		dirs = append(dirs, filepath.Join("..", "..", "..", "shared", "recordings"))
	} else {
		t.Log("../shared/recordings is absent: test/recordings only")
	}
	var files []string
	for _, d := range dirs {
		fs, err := filepath.Glob(filepath.Join(d, "*.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, fs...)
	}
	descs := apis.Descriptors()
	rep, err := conformance.Run(files, conformance.Options{Descriptors: descs, New: func() (http.Handler, error) {
		return fakearm.New(descs, fakearm.Options{RetryAfter: -1})
	}})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := rep.Write(&out); err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + out.String())
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if last := lines[len(lines)-1]; !regexp.MustCompile(`^interactions matching: \d+/\d+$`).MatchString(last) {
		t.Errorf("the last line is %q, want exactly \"interactions matching: N/M\"", last)
	}
	// Issue 16's goal: 98% of every step, with the emulator serving every
	// type the recordings touch (recordings of types no swagger in reach
	// defines wait in test/recordings/unserved). Measured: 1038/1055 (98.4%)
	// since issue 28 added nine recordings; 1919/1957 (98.1%) with the 37
	// of its sixth to eighth rounds, every step served.
	if rep.Total == 0 || float64(rep.Matching) < 0.98*float64(rep.Total) {
		t.Errorf("%d of %d steps match; want at least 98%%", rep.Matching, rep.Total)
	}
	if rep.Served != rep.Total {
		t.Errorf("%d of %d steps are of types the emulator does not serve; the recordings' types and POST actions must be served", rep.Total-rep.Served, rep.Total)
	}
}

// TestGroupDeletionSeenGone (issue 28.1): the deletion of a resource
// group the recording never polls is driven where the recording first
// sees the group gone (an answer ResourceGroupNotFound in it): a GET
// before it meets the group being deleted (ResourceNotFound), the
// requests from there on a group that does not exist, GETs too.
func TestGroupDeletionSeenGone(t *testing.T) {
	const (
		sub = "https://management.azure.com/subscriptions/00000000-0000-0000-0000-000000000000"
		rg  = sub + "/resourceGroups/rg1"
		mi  = rg + "/providers/Microsoft.ManagedIdentity/userAssignedIdentities/mi1?api-version=2018-11-30"
	)
	const loc = `{"location":"westus2"}` // every request's body
	its := []written{
		{"PUT", rg + "?api-version=2020-06-01", 201, loc, `{"name":"rg1"}`, ""},
		{"PUT", mi, 201, loc, `{"name":"mi1"}`, strings.TrimPrefix(strings.TrimSuffix(mi, "?api-version=2018-11-30"), "https://management.azure.com")}, // a synchronous create naming itself
		{"DELETE", mi, 200, loc, "", ""},
		{"DELETE", rg + "?api-version=2020-06-01", 202, loc, "", sub + "/operationresults/abc?api-version=2020-06-01"},
		{"GET", mi, 404, loc, `{"error":{"code":"ResourceNotFound"}}`, ""},
		{"DELETE", mi, 404, loc, `{"error":{"code":"ResourceGroupNotFound"}}`, ""},
		{"GET", mi, 404, loc, `{"error":{"code":"ResourceGroupNotFound"}}`, ""},
	}
	replayWritten(t, "t.yaml", its)
}
