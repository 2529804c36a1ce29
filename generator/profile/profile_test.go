package profile

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/armature-dev/armature/generator/classify"
	"github.com/armature-dev/armature/generator/tree"
	"github.com/armature-dev/armature/recording"
)

const (
	sub     = "/subscriptions/00000000-0000-0000-0000-000000000000"
	group   = sub + "/resourceGroups/rg"
	account = group + "/providers/Microsoft.Contoso/widgets/w1"
	host    = "https://management.azure.com"
)

// step is one interaction of a synthetic cassette.
type step struct {
	method, path string
	code         int
	headers      map[string]string
	body         string
}

func cassetteOf(t *testing.T, steps ...step) *recording.Cassette {
	t.Helper()
	var b strings.Builder
	b.WriteString("version: 1\ninteractions:\n")
	for _, s := range steps {
		fmt.Fprintf(&b, "- request:\n    body: '{}'\n    headers: {}\n    url: %s%s?api-version=2020-01-01\n    method: %s\n  response:\n    body: '%s'\n    headers:\n", host, s.path, s.method, strings.ReplaceAll(s.body, "'", "''"))
		if len(s.headers) == 0 {
			b.WriteString("      X-Nothing: [\"\"]\n")
		}
		for k, v := range s.headers {
			fmt.Fprintf(&b, "      %s: [%q]\n", k, v)
		}
		fmt.Fprintf(&b, "    code: %d\n", s.code)
	}
	c, err := recording.ParseCassette([]byte(b.String()))
	if err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	return c
}

func matcher() *typeMatcher {
	m := &typeMatcher{}
	m.add("Microsoft.Resources/resourceGroups", "/subscriptions/{subscriptionId}/resourcegroups/{resourceGroupName}")
	m.add("Microsoft.Contoso/widgets", "/subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.Contoso/widgets/{widgetName}")
	m.add("Microsoft.Contoso/widgets/parts", "/subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.Contoso/widgets/{widgetName}/parts/{partName}")
	return m
}

// TestGroupGone: a nested resource's 404 once ARM said its group is gone
// is evidence of what the type answers below a gone group, not of its
// parent's absence nor of a missing resource.
func TestGroupGone(t *testing.T) {
	part := account + "/parts/p1"
	c := cassetteOf(t,
		step{method: "PUT", path: group, code: 201, body: `{"name":"rg"}`},
		step{method: "PUT", path: account, code: 200, body: `{"name":"w1"}`},
		step{method: "PUT", path: part, code: 200, body: `{"name":"p1"}`},
		step{method: "DELETE", path: group, code: 202, headers: map[string]string{"Location": host + sub + "/operationresults/x"}},
		step{method: "DELETE", path: account, code: 404, body: `{"error":{"code":"ResourceGroupNotFound"}}`},
		step{method: "DELETE", path: part, code: 404, body: `{"error":{"code":"ResourceGroupNotFound"}}`, headers: map[string]string{"X-Ms-Failure-Cause": "gateway"}},
	)
	ev := gather([]Recording{{Name: "t.yaml", Cassette: c}}, matcher())
	parts := ev["microsoft.contoso/widgets/parts"]
	if parts == nil || len(parts.groupGone) != 1 || parts.groupGone[0].err.Code != "ResourceGroupNotFound" || !parts.groupGone[0].err.Gateway {
		t.Fatalf("parts evidence %+v, want one groupGone ResourceGroupNotFound from the gateway", parts)
	}
	if len(parts.parentNotFound)+len(parts.notFound)+len(parts.answers[caseDeleteMissing]) != 0 {
		t.Errorf("the DELETE below the gone group also counted as parentNotFound %v, notFound %v or deleteMissing %v", parts.parentNotFound, parts.notFound, parts.answers[caseDeleteMissing])
	}
	if w := ev["microsoft.contoso/widgets"]; len(w.groupGone) != 0 {
		t.Errorf("a top-level resource's 404 counted as groupGone: %+v", w.groupGone)
	}
}

// TestGather reads a recorded life cycle: what each answer says of the
// type, with the resource's state followed through the recording.
func TestGather(t *testing.T) {
	op := host + sub + "/providers/Microsoft.Contoso/locations/westus2/operations/1"
	c := cassetteOf(t,
		step{method: "PUT", path: group, code: 201, body: `{"name":"rg"}`},
		step{method: "PUT", path: account, code: 202, headers: map[string]string{"Location": op}},
		step{method: "GET", path: account, code: 200, body: `{"name":"w1","properties":{"color":"blue"}}`},
		step{method: "PUT", path: account, code: 200, body: `{"name":"w1"}`},
		step{method: "DELETE", path: account, code: 200},
		step{method: "GET", path: account, code: 404, headers: map[string]string{"X-Ms-Failure-Cause": "gateway"}, body: `{"error":{"code":"ResourceNotFound"}}`},
		step{method: "DELETE", path: account, code: 204},
		step{method: "PUT", path: group + "/providers/Microsoft.Contoso/widgets/Bad_Name", code: 400, body: `{"error":{"code":"WidgetNameInvalid"}}`},
		step{method: "DELETE", path: group, code: 202, headers: map[string]string{"Location": host + sub + "/operationresults/x"}},
		step{method: "DELETE", path: account, code: 404, body: `{"error":{"code":"ResourceGroupNotFound"}}`},
	)
	ev := gather([]Recording{{Name: "t.yaml", Cassette: c}}, matcher())["microsoft.contoso/widgets"]
	if ev == nil {
		t.Fatal("no evidence for widgets")
	}
	at := func(obs []seen) []string {
		var out []string
		for _, o := range obs {
			a := o.answer
			out = append(out, fmt.Sprintf("%s %d async=%v location=%s empty=%v", o.where, a.Status, a.AsyncOperation, a.Location, a.EmptyBody))
		}
		return out
	}
	want := map[string][]string{
		caseCreate:        {"t.yaml #1 202 async=false location=operation empty=true"},
		caseUpdate:        {"t.yaml #3 200 async=false location= empty=false"},
		caseDelete:        {"t.yaml #4 200 async=false location= empty=true"},
		caseDeleteMissing: {"t.yaml #6 204 async=false location= empty=true"},
	}
	got := map[string][]string{}
	for c, obs := range ev.answers {
		got[c] = at(obs)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("answers (-want +got):\n%s", diff)
	}
	if len(ev.notFound) != 1 || ev.notFound[0].err.Code != "ResourceNotFound" || !ev.notFound[0].err.Gateway {
		t.Errorf("notFound = %+v, want the gateway's ResourceNotFound (the DELETE in the deleted group says nothing of the type)", ev.notFound)
	}
	if len(ev.refused) != 1 || ev.refused[0].name != "Bad_Name" {
		t.Errorf("refused = %+v", ev.refused)
	}
	if len(ev.gets) != 1 || ev.gets[0].request == nil {
		t.Errorf("gets = %+v, want the GET with the request that made the widget", ev.gets)
	}
}

// TestExistedBefore: a first PUT answered 200, in a recording that did not
// create the group, is an update of a resource that existed.
func TestExistedBefore(t *testing.T) {
	c := cassetteOf(t,
		step{method: "PUT", path: group, code: 200},
		step{method: "PUT", path: account, code: 200},
	)
	ev := gather([]Recording{{Name: "t.yaml", Cassette: c}}, matcher())
	if n := len(ev["microsoft.contoso/widgets"].answers[caseUpdate]); n != 1 {
		t.Errorf("%d updates, want 1", n)
	}
	if n := len(ev["microsoft.resources/resourcegroups"].answers[caseCreate]); n != 0 {
		t.Errorf("%d group creates, want none", n)
	}
}

func TestSpecAnswer(t *testing.T) {
	codes := func(cs ...int) codeSet {
		s := codeSet{count: map[int]int{}, n: 1}
		for _, c := range cs {
			s.count[c]++
		}
		return s
	}
	none := codeSet{count: map[int]int{}}
	cases := map[string]struct {
		reason string
		op     tree.Operation
		codes  codeSet
		c      string
		want   recording.Answer
	}{
		"SyncCreateFromExamples": {reason: "examples list 200 only: the create answers 200", op: tree.Operation{Method: http.MethodPut}, codes: codes(200), c: caseCreate,
			want: recording.Answer{Status: 200}},
		"CreateWithoutExamples": {reason: "the rule: 201", op: tree.Operation{Method: http.MethodPut}, codes: none, c: caseCreate,
			want: recording.Answer{Status: 201}},
		"LROCreate201": {reason: "a long-running 201: Azure-AsyncOperation", op: tree.Operation{Method: http.MethodPut, LongRunning: true}, codes: codes(200, 201), c: caseCreate,
			want: recording.Answer{Status: 201, AsyncOperation: true}},
		"LROCreate202": {reason: "a long-running 202: Location, no body", op: tree.Operation{Method: http.MethodPut, LongRunning: true}, codes: codes(200, 202), c: caseCreate,
			want: recording.Answer{Status: 202, Location: recording.LocationOperation, EmptyBody: true}},
		"LROUpdateViaLocation": {reason: "final-state-via location: 202 and Location for an update too", op: tree.Operation{Method: http.MethodPut, LongRunning: true, FinalStateVia: "location"}, codes: codes(200), c: caseUpdate,
			want: recording.Answer{Status: 202, Location: recording.LocationOperation, EmptyBody: true}},
		"LRODelete": {reason: "a long-running DELETE: 202 with both headers", op: tree.Operation{Method: http.MethodDelete, LongRunning: true}, codes: codes(200, 202, 204), c: caseDelete,
			want: recording.Answer{Status: 202, AsyncOperation: true, Location: recording.LocationOperation, EmptyBody: true}},
		"SyncDelete204": {reason: "examples list 204 only", op: tree.Operation{Method: http.MethodDelete}, codes: codes(204), c: caseDelete,
			want: recording.Answer{Status: 204, EmptyBody: true}},
		"DeleteMissing": {reason: "204", op: tree.Operation{Method: http.MethodDelete}, codes: codes(200), c: caseDeleteMissing,
			want: recording.Answer{Status: 204, EmptyBody: true}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := *specAnswer(&tc.op, tc.codes, tc.c)
			got.Source = ""
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s (-want +got):\n%s", tc.reason, diff)
			}
		})
	}
}

func TestPickPrefersTheRecordedMajority(t *testing.T) {
	obs := []seen{
		{where: "a #1", answer: recording.Answer{Status: 201}},
		{where: "b #1", answer: recording.Answer{Status: 200}},
		{where: "c #1", answer: recording.Answer{Status: 201}},
	}
	got := pick(obs, &recording.Answer{Status: 202, Source: "spec"})
	if got.Status != 201 || got.Source != "recorded 2×: a #1, c #1; also 1× 200" {
		t.Errorf("pick = %+v", got)
	}
	if got := pick(nil, &recording.Answer{Status: 202, Source: "spec"}); got.Source != "spec" {
		t.Errorf("without recordings the fallback wins: %+v", got)
	}
}

func TestUpdateLikeCreate(t *testing.T) {
	sync := &recording.Answer{Status: 200, Source: "recorded 1×: k #2"}
	spec := &recording.Answer{Status: 200, AsyncOperation: true, Source: "spec"}
	got := updateLikeCreate([]seen{{}}, sync, spec)
	if got.LongRunning() || got.Status != 200 {
		t.Errorf("a synchronous create makes the update synchronous: %+v", got)
	}
	if got := updateLikeCreate(nil, nil, spec); got != spec {
		t.Errorf("without a recorded create the swagger decides: %+v", got)
	}
}

func TestAllowedRegions(t *testing.T) {
	got := allowedRegions(object(`{"error":{"code":"LocationNotAvailableForResourceGroup","message":"The provided location 'x' is not available for resource group. List of available regions is 'centralus,eastasia'."}}`))
	if diff := cmp.Diff([]string{"centralus", "eastasia"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestLearnsWhatARMAnswersBeyondTheSwagger reads the behaviours issue 16's
// recordings showed the swagger does not say: a DELETE refused while
// children exist, the members of finished operation statuses, the error
// for a resource whose parent was deleted, and members ARM answers that
// the schema lacks (templated by the resource's names).
func TestLearnsWhatARMAnswersBeyondTheSwagger(t *testing.T) {
	link := account + "/links/l1"
	op := host + sub + "/providers/Microsoft.Contoso/locations/westus2/operations/7"
	m := matcher()
	m.add("Microsoft.Contoso/widgets/links", "/subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.Contoso/widgets/{widgetName}/links/{linkName}")
	c := cassetteOf(t,
		step{method: "PUT", path: group, code: 201, body: `{"name":"rg"}`},
		step{method: "PUT", path: account, code: 201, headers: map[string]string{"Azure-AsyncOperation": op}, body: `{"name":"w1"}`},
		step{method: "GET", path: sub + "/providers/Microsoft.Contoso/locations/westus2/operations/7", code: 200, body: `{"status":"Succeeded","error":{"code":"None"},"properties":{"output":{"name":"w1"}}}`},
		step{method: "GET", path: account, code: 200, body: `{"name":"w1","properties":{"webSpace":"rg-westus","mdmId":"w1-mdm"}}`},
		step{method: "PUT", path: link, code: 201, body: `{"name":"l1"}`},
		step{method: "DELETE", path: account, code: 409, body: `{"error":{"code":"CannotDeleteResource"}}`},
		step{method: "DELETE", path: link, code: 200},
		step{method: "DELETE", path: account, code: 200},
		step{method: "GET", path: link, code: 404, body: `{"error":{"code":"ResourceNotFound"}}`},
	)
	evs := gather([]Recording{{Name: "t.yaml", Cassette: c}}, m)
	w, l := evs["microsoft.contoso/widgets"], evs["microsoft.contoso/widgets/links"]
	if w == nil || l == nil {
		t.Fatalf("evidence: %v", evs)
	}
	b := pickBlocked(w.blocked)
	if b == nil || b.Error.Code != "CannotDeleteResource" || b.Error.Status != 409 || !cmp.Equal(b.Children, []string{"Microsoft.Contoso/widgets/links"}) {
		t.Errorf("deleteBlocked = %+v, want 409 CannotDeleteResource while links exist", b)
	}
	o := operationShape(w.ops)
	if o == nil || !o.Output || len(o.Members) != 1 || o.Members[0].Path != "error" || string(o.Members[0].Value) != `{"code":"None"}` {
		t.Errorf("operation = %+v, want output and error {code: None}", o)
	}
	if e := pickError(l.parentNotFound); e == nil || e.Code != "ResourceNotFound" {
		t.Errorf("parentNotFound = %+v, want the recorded ResourceNotFound of a link whose widget is gone", e)
	}
	if len(l.notFound) != 0 {
		t.Errorf("notFound = %+v: a 404 under a deleted parent says nothing of a missing link", l.notFound)
	}
	got := answered(&classify.Table{}, w.gets, false)
	want := []recording.Member{
		// A name shorter than three letters is not templated: it would
		// match inside unrelated words.
		{Path: "properties.mdmId", Value: []byte(`"w1-mdm"`), Source: "recorded 1×: t.yaml #3"},
		{Path: "properties.webSpace", Value: []byte(`"{resourceGroup}-westus"`), Source: "recorded 1×: t.yaml #3"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("answered (-want +got):\n%s", diff)
	}
}

// TestNewestRecordingsWin: when recordings disagree, the answer of the
// newest (go-vcr format 2) ones is kept even against a majority of older
// ones; among recordings of one format the majority still decides.
func TestNewestRecordingsWin(t *testing.T) {
	old := recording.Answer{Status: 200}
	now := recording.Answer{Status: 201, AsyncOperation: true, Location: recording.LocationOperation}
	obs := []seen{
		{where: "a.yaml #2", format: 1, answer: old},
		{where: "b.yaml #2", format: 1, answer: old},
		{where: "c.yaml #2", format: 2, answer: now},
	}
	if got := pick(obs, nil); got.Status != 201 || !got.AsyncOperation {
		t.Errorf("pick = %+v, want the format-2 recording's 201 with an operation", got)
	}
	obs = append(obs, seen{where: "d.yaml #2", format: 2, answer: old}, seen{where: "e.yaml #2", format: 2, answer: old})
	if got := pick(obs, nil); got.Status != 200 {
		t.Errorf("pick = %+v, want the 200 most format-2 recordings show", got)
	}
	errs := []seen{
		{where: "a.yaml #9", format: 1, err: recording.Error{Status: 404, Code: "ParentResourceNotFound"}},
		{where: "b.yaml #9", format: 1, err: recording.Error{Status: 404, Code: "ParentResourceNotFound"}},
		{where: "c.yaml #9", format: 2, err: recording.Error{Status: 404, Code: "ResourceGroupNotFound"}},
	}
	if got := pickError(errs); got.Code != "ResourceGroupNotFound" {
		t.Errorf("pickError = %+v, want the format-2 recording's ResourceGroupNotFound", got)
	}
}

// TestGatherSetsFormats: every observation carries its recording's format.
func TestGatherSetsFormats(t *testing.T) {
	c := cassetteOf(t,
		step{method: "PUT", path: group, code: 201, body: `{"name":"rg"}`},
		step{method: "PUT", path: account, code: 200, body: `{"name":"w1"}`},
	)
	c.Version = 2
	ev := gather([]Recording{{Name: "t.yaml", Cassette: c}}, matcher())["microsoft.contoso/widgets"]
	for _, o := range ev.answers[caseCreate] {
		if o.format != 2 {
			t.Errorf("%s: format %d, want 2", o.where, o.format)
		}
	}
	if len(ev.answers[caseCreate]) == 0 {
		t.Fatal("no create seen")
	}
}

// TestImplicitChild: a POST action on a child the recording never wrote,
// below a parent it wrote, names a child the service made with the parent;
// one the recording created first does not.
func TestImplicitChild(t *testing.T) {
	c := cassetteOf(t,
		step{method: "PUT", path: group, code: 201, body: `{"name":"rg"}`},
		step{method: "PUT", path: account, code: 201, body: `{"name":"w1"}`},
		step{method: "POST", path: account + "/parts/Root/listKeys", code: 200, body: `{"primaryKey":"{KEY}"}`},
		step{method: "PUT", path: account + "/parts/mine", code: 200, body: `{"name":"mine"}`},
		step{method: "POST", path: account + "/parts/mine/listKeys", code: 200, body: `{"primaryKey":"{KEY}"}`},
	)
	ev := gather([]Recording{{Name: "t.yaml", Cassette: c}}, matcher())["microsoft.contoso/widgets/parts"]
	got := implicitOf(ev.implicit)
	if got == nil || len(got.Names) != 1 || got.Names[0] != "Root" {
		t.Fatalf("createdWithParent = %+v, want Root only", got)
	}
}
