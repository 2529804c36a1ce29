package reconciler

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/armature-dev/armature/runtime/arm"
	"github.com/armature-dev/armature/runtime/descriptor"
)

// The state-machine tests (machine_test.go) drive Reconcile over
// controller-runtime's fake client with a scripted ARM: every call the
// reconcile makes must be the next armStep of the script (method, path and,
// where a armStep says, body), and every armStep must be taken.

// mName is the name of every case's object; mID its ARM id.
const (
	mName = "m"
	mID   = gadgetOwner + "/providers/Test.RP/gadgets/" + mName
	// mList is the collection the drift observer lists.
	mList = gadgetOwner + "/providers/Test.RP/gadgets"
)

// The settings of every case: periods that tell the requeues apart.
const (
	mSync  = time.Hour
	mPoll  = 7 * time.Second
	mRetry = 2 * time.Second
	mWorld = 3 * time.Minute
	mTaken = 5 * time.Minute
)

func machineConfig() Config {
	return Config{
		StateKey: []byte("machine-key"), ReconcileTimeout: time.Minute,
		SyncPeriod: mSync, Jitter: 1e-12, PollInterval: mPoll,
		RetryBackoff:     Backoff{Initial: mRetry, Max: time.Minute},
		WorldBackoff:     Backoff{Initial: mWorld, Max: 30 * time.Minute},
		NameTakenBackoff: Backoff{Initial: mTaken, Max: time.Hour},
	}
}

// armStep is one ARM call a reconcile is expected to make, and its answer.
type armStep struct {
	method string // GET, PUT, PATCH, DELETE, POLL, LIST
	path   string // the id (the token for POLL, the collection for LIST); "" is mID
	body   string // when set, the request body must be this JSON
	res    *arm.Result
	err    error
	items  []map[string]any // a LIST's answer
}

func (s armStep) String() string {
	p := s.path
	if p == "" {
		p = mID
	}
	return s.method + " " + p
}

// Steps and answers.
func get(res *arm.Result, err error) armStep {
	return armStep{method: http.MethodGet, res: res, err: err}
}
func put(body string, res *arm.Result, err error) armStep {
	return armStep{method: http.MethodPut, body: body, res: res, err: err}
}
func patch(body string, res *arm.Result, err error) armStep {
	return armStep{method: http.MethodPatch, body: body, res: res, err: err}
}
func del(res *arm.Result, err error) armStep {
	return armStep{method: http.MethodDelete, res: res, err: err}
}
func poll(token string, res *arm.Result, err error) armStep {
	return armStep{method: "POLL", path: token, res: res, err: err}
}
func list(items ...map[string]any) armStep { return armStep{method: "LIST", path: mList, items: items} }

func ok(body map[string]any) *arm.Result { return &arm.Result{Status: http.StatusOK, Body: body} }
func accepted(token string) *arm.Result {
	return &arm.Result{Status: http.StatusAccepted, Token: token}
}
func noContent() *arm.Result { return &arm.Result{Status: http.StatusNoContent} }
func armErr(status int, code, msg string) error {
	return &arm.Error{Status: status, Code: code, Message: msg}
}

var notFound = armErr(http.StatusNotFound, "ResourceNotFound", "not found")

// live is the resource as ARM answers it: the spec's location, Succeeded,
// changed by the edits (a path "a.b" set to a value; nil deletes).
func live(kv ...any) map[string]any {
	b := map[string]any{"id": mID, "name": mName, "type": "Test.RP/gadgets", "location": "westeurope",
		"properties": map[string]any{"provisioningState": "Succeeded"}}
	for i := 0; i+1 < len(kv); i += 2 {
		path := strings.Split(kv[i].(string), ".")
		m := b
		for _, k := range path[:len(path)-1] {
			next, _ := m[k].(map[string]any)
			if next == nil {
				next = map[string]any{}
				m[k] = next
			}
			m = next
		}
		if kv[i+1] == nil {
			delete(m, path[len(path)-1])
		} else {
			m[path[len(path)-1]] = kv[i+1]
		}
	}
	return b
}

// script is the scripted ARM of one reconcile.
type script struct {
	t     *testing.T
	mu    sync.Mutex
	steps []armStep
	seen  []string
	// lastItems is the answer of the LIST armStep.
	lastItems []map[string]any
}

func (s *script) call(method, path string, body []byte) (*arm.Result, error) {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seen = append(s.seen, method+" "+path)
	if len(s.steps) == 0 {
		s.t.Errorf("unexpected call %s %s %s", method, path, body)
		return nil, fmt.Errorf("script: unexpected call %s %s", method, path)
	}
	want := s.steps[0]
	s.steps = s.steps[1:]
	if want.String() != method+" "+path {
		s.t.Errorf("call %s %s, want %s", method, path, want)
		return nil, fmt.Errorf("script: call %s %s, want %s", method, path, want)
	}
	if want.body != "" && !sameJSON(want.body, string(body)) {
		s.t.Errorf("%s body\n got %s\nwant %s", want, body, want.body)
	}
	return want.res, want.err
}

func (s *script) list(path string, page func([]map[string]any) error) error {
	s.t.Helper()
	if _, err := s.call("LIST", path, nil); err != nil {
		return err
	}
	s.mu.Lock()
	items := s.lastItems
	s.mu.Unlock()
	return page(items)
}

func sameJSON(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return a == b
	}
	return reflect.DeepEqual(x, y)
}

// machine is one case's world: the fake apiserver, the reconciler, the
// scripted ARM.
type machine struct {
	t      *testing.T
	d      *descriptor.Descriptor
	cfg    Config
	lister bool
	c      client.Client
	rec    *record.FakeRecorder
	r      *Reconciler
	s      *script
	obj    *unstructured.Unstructured
	hooks  Hooks
}

func newMachine(t *testing.T, d *descriptor.Descriptor, cfg Config, lister bool, obj *unstructured.Unstructured) *machine {
	t.Helper()
	gvk := d.GroupVersionKind()
	s := runtime.NewScheme()
	if err := corev1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	s.AddKnownTypeWithName(gvk, &unstructured.Unstructured{})
	s.AddKnownTypeWithName(gvk.GroupVersion().WithKind(d.Kind+"List"), &unstructured.UnstructuredList{})
	obj.SetGroupVersionKind(gvk)
	m := &machine{t: t, d: d, cfg: cfg, lister: lister, obj: obj, s: &script{t: t}}
	m.c = fake.NewClientBuilder().WithScheme(s).WithObjects(obj).WithStatusSubresource(obj).Build()
	m.rec = record.NewFakeRecorder(256)
	m.restart()
	return m
}

// armClient is the scripted ARM as an arm.Client, a Lister when the case
// lists.
func (m *machine) armClient() arm.Client {
	f := arm.ClientFuncs{
		GetFn: func(_ context.Context, id, _ string) (*arm.Result, error) { return m.s.call(http.MethodGet, id, nil) },
		PutFn: func(_ context.Context, id, _ string, b []byte) (*arm.Result, error) {
			return m.s.call(http.MethodPut, id, b)
		},
		PatchFn: func(_ context.Context, id, _ string, b []byte) (*arm.Result, error) {
			return m.s.call(http.MethodPatch, id, b)
		},
		DeleteFn: func(_ context.Context, id, _ string) (*arm.Result, error) {
			return m.s.call(http.MethodDelete, id, nil)
		},
		PollFn: func(_ context.Context, token string) (*arm.Result, error) { return m.s.call("POLL", token, nil) },
	}
	if !m.lister {
		return f
	}
	return arm.ListerFuncs{ClientFuncs: f, ListFn: func(_ context.Context, path, _ string, page func([]map[string]any) error) error {
		return m.s.list(path, page)
	}}
}

// restart builds a new reconciler over the same apiserver: what the last
// one kept in memory is gone, as after an operator restart.
func (m *machine) restart() {
	m.r = New(m.c, m.armClient(), m.d, "", m.rec, m.cfg)
	m.r.Hooks = m.hooks
}

// expect sets the steps of the next reconcile (or observer pass).
func (m *machine) expect(steps ...armStep) {
	m.s.mu.Lock()
	defer m.s.mu.Unlock()
	m.s.steps = slices.Clone(steps)
	m.s.seen = nil
	m.s.lastItems = nil
	for _, s := range steps {
		if s.method == "LIST" {
			m.s.lastItems = s.items
		}
	}
}

// done fails on steps not taken.
func (m *machine) done(what string) {
	m.t.Helper()
	m.s.mu.Lock()
	defer m.s.mu.Unlock()
	if len(m.s.steps) > 0 {
		m.t.Errorf("%s: calls %v; steps not taken: %v", what, m.s.seen, m.s.steps)
	}
}

// run reconciles once with the steps given, which must all be taken.
func (m *machine) run(steps ...armStep) (reconcile.Result, error) {
	m.t.Helper()
	m.expect(steps...)
	res, err := reconcileOnce(m.t, m.r, m.obj)
	m.done("reconcile")
	return res, err
}

// pass runs one drift observer pass (LIST) and returns how many objects
// it requeued.
func (m *machine) pass(steps ...armStep) int {
	m.t.Helper()
	m.expect(steps...)
	n := 0
	o := newObserver(m.r, func(reconcile.Request) { n++ })
	o.pass(context.Background())
	m.done("observer pass")
	return n
}

func (m *machine) get() *unstructured.Unstructured {
	m.t.Helper()
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(m.d.GroupVersionKind())
	if err := m.c.Get(context.Background(), client.ObjectKeyFromObject(m.obj), u); err != nil {
		m.t.Fatal(err)
	}
	return u
}

// edit changes the object as a user would (a spec change bumps the
// generation, as the apiserver does).
func (m *machine) edit(f func(u *unstructured.Unstructured)) {
	m.t.Helper()
	u := m.get()
	before := fmt.Sprint(u.Object["spec"])
	f(u)
	if fmt.Sprint(u.Object["spec"]) != before {
		u.SetGeneration(u.GetGeneration() + 1)
	}
	if err := m.c.Update(context.Background(), u); err != nil {
		m.t.Fatal(err)
	}
}

// delete deletes the object (the finalizer keeps it, with a deletion
// timestamp).
func (m *machine) delete() {
	m.t.Helper()
	if err := m.c.Delete(context.Background(), m.get()); err != nil {
		m.t.Fatal(err)
	}
}

func (m *machine) events() []string {
	var out []string
	for {
		select {
		case e := <-m.rec.Events:
			out = append(out, e)
		default:
			return out
		}
	}
}

// created runs the create of the object: claim GET, PUT, GET, Ready.
func (m *machine) created(body map[string]any) {
	m.t.Helper()
	if body == nil {
		body = live()
	}
	if _, err := m.run(get(nil, notFound), put("", ok(body), nil), get(ok(body), nil)); err != nil {
		m.t.Fatalf("create: %v", err)
	}
	if got := condOf(m.get(), tReady); got["status"] != "True" {
		m.t.Fatalf("create: Ready %v", got)
	}
}

// condOf is the condition of type typ of u (nil when none).
func condOf(u *unstructured.Unstructured, typ string) map[string]any {
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conds {
		if m, ok := c.(map[string]any); ok && m["type"] == typ {
			return m
		}
	}
	return nil
}

func setSpec(u *unstructured.Unstructured, value any, path ...string) {
	if err := unstructured.SetNestedField(u.Object, runtime.DeepCopyJSONValue(value), append([]string{"spec"}, path...)...); err != nil {
		panic(err)
	}
}

func annotate(u *unstructured.Unstructured, k, v string) {
	a := u.GetAnnotations()
	if a == nil {
		a = map[string]string{}
	}
	a[k] = v
	u.SetAnnotations(a)
}
