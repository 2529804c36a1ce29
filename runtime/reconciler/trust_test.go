package reconciler

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/armature-dev/armature/api/core"
	"github.com/armature-dev/armature/runtime/arm"
)

func TestSealOperation(t *testing.T) {
	s := newSealer([]byte("key-1"))
	op := operation{Verb: "PUT", ID: "/subscriptions/s/resourceGroups/g", Token: "tok", Applied: "{}", Started: "2026-11-27T00:00:00Z"}
	raw := s.sealOperation("uid-1", op)
	if got, ok := s.openOperation("uid-1", raw); !ok || got.Token != "tok" || got.ID != op.ID {
		t.Fatalf("own record: %+v %v", got, ok)
	}
	edited := strings.Replace(raw, `"token":"tok"`, `"token":"evil"`, 1)
	cases := map[string]struct {
		s   sealer
		uid types.UID
		raw string
	}{
		"EditedToken":   {s, "uid-1", edited},
		"OtherObject":   {s, "uid-2", raw},
		"OtherKey":      {newSealer([]byte("key-2")), "uid-1", raw},
		"NoSeal":        {s, "uid-1", `{"verb":"PUT","token":"tok"}`},
		"NotJSON":       {s, "uid-1", `tok`},
		"EditedID":      {s, "uid-1", strings.Replace(raw, `resourceGroups/g`, `resourceGroups/h`, 1)},
		"EditedVerb":    {s, "uid-1", strings.Replace(raw, `"verb":"PUT"`, `"verb":"DELETE"`, 1)},
		"EditedApplied": {s, "uid-1", strings.Replace(raw, `"applied":"{}"`, `"applied":"{\"a\":1}"`, 1)},
	}
	for name, c := range cases {
		if _, ok := c.s.openOperation(c.uid, c.raw); ok {
			t.Errorf("%s: the record verifies", name)
		}
	}
}

func TestSealARMID(t *testing.T) {
	s := newSealer([]byte("key-1"))
	obj := &unstructured.Unstructured{}
	obj.SetUID("uid-1")
	id := "/subscriptions/s/resourceGroups/G"
	s.setARMID(obj, id)
	if got, forged := s.armID(obj); got != id || forged {
		t.Fatalf("own record: %q forged=%v", got, forged)
	}
	other := obj.DeepCopy()
	other.SetUID("uid-2")
	if got, forged := s.armID(other); got != "" || !forged {
		t.Errorf("copied to another object: %q forged=%v", got, forged)
	}
	setAnnotation(obj, core.AnnotationARMID, "/subscriptions/s/resourceGroups/other")
	if got, forged := s.armID(obj); got != "" || !forged {
		t.Errorf("edited id: %q forged=%v", got, forged)
	}
	fresh := &unstructured.Unstructured{}
	if got, forged := fresh.GetAnnotations()[core.AnnotationARMID], false; got != "" || forged {
		t.Fatal("setup")
	}
	if got, forged := s.armID(fresh); got != "" || forged {
		t.Errorf("no record: %q forged=%v", got, forged)
	}
}

// scriptARM is an arm.Client whose answers a test writes; it records the
// calls.
type scriptARM struct {
	mu    sync.Mutex
	calls []string
	get   func(id string) (*arm.Result, error)
	put   func(id string) (*arm.Result, error)
	poll  func(token string) (*arm.Result, error)
}

func (s *scriptARM) record(c string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, c)
}

func (s *scriptARM) Get(_ context.Context, id, _ string) (*arm.Result, error) {
	s.record("GET " + id)
	if s.get == nil {
		return nil, &arm.Error{Status: http.StatusNotFound, Code: "ResourceNotFound"}
	}
	return s.get(id)
}

func (s *scriptARM) Put(_ context.Context, id, _ string, _ []byte) (*arm.Result, error) {
	s.record("PUT " + id)
	if s.put == nil {
		return &arm.Result{Status: http.StatusOK, Body: map[string]any{"id": id}}, nil
	}
	return s.put(id)
}

func (s *scriptARM) Patch(_ context.Context, id, _ string, _ []byte) (*arm.Result, error) {
	s.record("PATCH " + id)
	return &arm.Result{Status: http.StatusOK}, nil
}

func (s *scriptARM) Delete(_ context.Context, id, _ string) (*arm.Result, error) {
	s.record("DELETE " + id)
	return &arm.Result{Status: http.StatusOK}, nil
}

func (s *scriptARM) Poll(_ context.Context, token string) (*arm.Result, error) {
	s.record("POLL " + token)
	if s.poll == nil {
		return &arm.Result{Status: http.StatusOK}, nil
	}
	return s.poll(token)
}

func (s *scriptARM) writes() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, c := range s.calls {
		if !strings.HasPrefix(c, "GET ") {
			out = append(out, c)
		}
	}
	return out
}

var _ arm.Client = (*scriptARM)(nil)

const gadgetOwner = "/subscriptions/s/resourceGroups/team-b"

// gadgetReconciler is a reconciler of gadget() over a fake apiserver
// holding obj, with the ARM client a.
func gadgetReconciler(t *testing.T, a *scriptARM, obj *unstructured.Unstructured) (*Reconciler, client.Client, *record.FakeRecorder) {
	t.Helper()
	d := gadget()
	d.Scope = "ResourceGroup"
	gvk := d.GroupVersionKind()
	s := runtime.NewScheme()
	if err := corev1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	s.AddKnownTypeWithName(gvk, &unstructured.Unstructured{})
	s.AddKnownTypeWithName(gvk.GroupVersion().WithKind("GadgetList"), &unstructured.UnstructuredList{})
	obj.SetGroupVersionKind(gvk)
	c := fake.NewClientBuilder().WithScheme(s).WithObjects(obj).WithStatusSubresource(obj).Build()
	rec := record.NewFakeRecorder(32)
	r := New(c, a, d, "", rec, Config{StateKey: []byte("test-key"), ReconcileTimeout: time.Minute})
	return r, c, rec
}

func gadgetObject(name string) *unstructured.Unstructured {
	o := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{
		"owner": map[string]any{"armId": gadgetOwner}, "location": "westeurope",
	}}}
	o.SetNamespace("team-a")
	o.SetName(name)
	o.SetUID(types.UID("uid-" + name))
	o.SetFinalizers([]string{core.Finalizer})
	return o
}

func reconcileOnce(t *testing.T, r *Reconciler, obj *unstructured.Unstructured) (reconcile.Result, error) {
	t.Helper()
	return r.Reconcile(context.Background(), reconcile.Request{NamespacedName: client.ObjectKeyFromObject(obj)})
}

func current(t *testing.T, c client.Client, r *Reconciler, obj *unstructured.Unstructured) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(r.gvk())
	if err := c.Get(context.Background(), client.ObjectKeyFromObject(obj), u); err != nil {
		t.Fatal(err)
	}
	return u
}

func readyReason(u *unstructured.Unstructured) string {
	if c := meta.FindStatusCondition(conditions(u), core.ConditionReady); c != nil {
		return c.Reason
	}
	return ""
}

func drain(rec *record.FakeRecorder) string {
	var out []string
	for {
		select {
		case e := <-rec.Events:
			out = append(out, e)
		default:
			return strings.Join(out, "\n")
		}
	}
}

// TestCreateClaimsFirst: before the first PUT the reconciler GETs the id
// and records its claim (the sealed ARM id) on the object, so that the PUT
// is known to be the object's even if the operator dies right after it.
func TestCreateClaimsFirst(t *testing.T) {
	a := &scriptARM{}
	obj := gadgetObject("g1")
	r, c, _ := gadgetReconciler(t, a, obj)
	id := gadgetOwner + "/providers/Test.RP/gadgets/g1"
	claimed := false
	a.put = func(string) (*arm.Result, error) {
		got, forged := r.seal.armID(current(t, c, r, obj))
		claimed = got == id && !forged
		return &arm.Result{Status: http.StatusOK, Body: map[string]any{"id": id}}, nil
	}
	if _, err := reconcileOnce(t, r, obj); err != nil {
		t.Fatal(err)
	}
	if want := []string{"GET " + id, "PUT " + id}; len(a.calls) < 2 || a.calls[0] != want[0] || a.calls[1] != want[1] {
		t.Fatalf("calls %v, want first %v", a.calls, want)
	}
	if !claimed {
		t.Error("the claim was not on the object when the PUT was sent")
	}
	// A reconcile after a crash between PUT and the record of the write
	// (status without lastOperation, no last-applied): the resource exists,
	// and it is the object's.
	u := current(t, c, r, obj)
	if u.GetAnnotations()[core.AnnotationLastApplied] != "" {
		t.Errorf("a synchronous create wrote last-applied: one metadata write more than the intent")
	}
	u.Object["status"] = map[string]any{}
	if err := c.Status().Update(context.Background(), u); err != nil {
		t.Fatal(err)
	}
	a.calls = nil
	a.get = func(id string) (*arm.Result, error) {
		return &arm.Result{Status: http.StatusOK, Body: map[string]any{"id": id}}, nil
	}
	if _, err := reconcileOnce(t, r, obj); err != nil {
		t.Fatal(err)
	}
	if w := a.writes(); len(w) != 0 {
		t.Errorf("after a crash before the record, the resource there: writes %v, want none (the intent says the create was sent)", w)
	}
	u = current(t, c, r, obj)
	if reason := readyReason(u); reason != core.ReasonSucceeded {
		t.Errorf("Ready reason %q: its own resource is not recognised", reason)
	}
	// The same crash, the resource not there: the PUT never took, it is
	// sent.
	u.Object["status"] = map[string]any{}
	if err := c.Status().Update(context.Background(), u); err != nil {
		t.Fatal(err)
	}
	a.calls = nil
	a.get = nil
	if _, err := reconcileOnce(t, r, obj); err != nil {
		t.Fatal(err)
	}
	if w := a.writes(); len(w) != 1 || w[0] != "PUT "+id {
		t.Errorf("after a crash, the resource absent: writes %v, want the PUT again", w)
	}
}

// TestCreateOperationInMemory: a create's long-running operation is
// followed from memory (no apiserver write for its token); after a
// restart (a new reconciler, the memory gone) the intent is read back and
// the resource observed: one PUT in all.
func TestCreateOperationInMemory(t *testing.T) {
	id := gadgetOwner + "/providers/Test.RP/gadgets/g13"
	polls := 0
	a := &scriptARM{
		put: func(string) (*arm.Result, error) { return &arm.Result{Status: http.StatusCreated, Token: "op-13"}, nil },
		poll: func(string) (*arm.Result, error) {
			polls++
			return &arm.Result{Status: http.StatusAccepted, Token: "op-13"}, nil
		},
	}
	obj := gadgetObject("g13")
	r, c, _ := gadgetReconciler(t, a, obj)
	if _, err := reconcileOnce(t, r, obj); err != nil {
		t.Fatal(err)
	}
	u := current(t, c, r, obj)
	if op := parseOperation(u.GetAnnotations()[core.AnnotationOperation]); op == nil || op.polled() {
		t.Errorf("operation annotation %v: want the intent only (no token written)", u.GetAnnotations()[core.AnnotationOperation])
	}
	if _, err := reconcileOnce(t, r, obj); err != nil {
		t.Fatal(err)
	}
	if polls != 1 {
		t.Errorf("%d polls from memory, want 1", polls)
	}
	// A restart: a new reconciler with the same key, no memory.
	r2 := New(c, a, r.Desc, "", nil, r.Config)
	a.get = func(string) (*arm.Result, error) {
		return &arm.Result{Status: http.StatusOK, Body: map[string]any{"id": id, "location": "westeurope"}}, nil
	}
	if _, err := reconcileOnce(t, r2, obj); err != nil {
		t.Fatal(err)
	}
	puts := 0
	for _, w := range a.writes() {
		if strings.HasPrefix(w, "PUT") {
			puts++
		}
	}
	if puts != 1 {
		t.Errorf("%d PUTs across a restart, want 1", puts)
	}
	if reason := readyReason(current(t, c, r, obj)); reason != core.ReasonSucceeded {
		t.Errorf("Ready reason %q after the restart", reason)
	}
}

// TestNoSilentTakeover: a resource that exists and that the object did not
// create is never written: AzureResourceExists, ActionRequired; deleting the
// object then deletes nothing.
func TestNoSilentTakeover(t *testing.T) {
	a := &scriptARM{get: func(id string) (*arm.Result, error) {
		return &arm.Result{Status: http.StatusOK, Body: map[string]any{"id": id}}, nil
	}}
	obj := gadgetObject("g2")
	r, c, rec := gadgetReconciler(t, a, obj)
	if _, err := reconcileOnce(t, r, obj); err != nil {
		t.Fatal(err)
	}
	if w := a.writes(); len(w) != 0 {
		t.Fatalf("writes to a resource the object did not create: %v", w)
	}
	u := current(t, c, r, obj)
	if got := readyReason(u); got != core.ReasonAzureResourceExists {
		t.Errorf("Ready reason %q, want %s", got, core.ReasonAzureResourceExists)
	}
	if act := meta.FindStatusCondition(conditions(u), core.ConditionActionRequired); act == nil || act.Status != metav1.ConditionTrue || !strings.Contains(act.Message, "spec.resourceID") {
		t.Errorf("ActionRequired %+v: want True, saying how to adopt", act)
	}
	if ev := drain(rec); !strings.Contains(ev, core.ReasonAzureResourceExists) {
		t.Errorf("events %q", ev)
	}
	if err := c.Delete(context.Background(), u); err != nil {
		t.Fatal(err)
	}
	if _, err := reconcileOnce(t, r, obj); err != nil {
		t.Fatal(err)
	}
	if w := a.writes(); len(w) != 0 {
		t.Errorf("deleting an object that never created its resource sent %v", w)
	}
}

// TestForgedRecords: an operation annotation or an ARM id the object's
// editor wrote is not acted on — no poll of its token, no DELETE of its id.
func TestForgedRecords(t *testing.T) {
	victim := "/subscriptions/s/resourceGroups/team-b/providers/Test.RP/gadgets/theirs"
	t.Run("Operation", func(t *testing.T) {
		a := &scriptARM{}
		obj := gadgetObject("g3")
		obj.SetAnnotations(map[string]string{core.AnnotationOperation: `{"verb":"PUT","token":"{\"type\":\"x\",\"token\":\"https://thief.example/poll\"}","id":"` + victim + `"}`})
		r, c, rec := gadgetReconciler(t, a, obj)
		if _, err := reconcileOnce(t, r, obj); err != nil {
			t.Fatal(err)
		}
		for _, call := range a.calls {
			if strings.HasPrefix(call, "POLL") {
				t.Errorf("polled a forged token: %s", call)
			}
		}
		if _, ok := current(t, c, r, obj).GetAnnotations()[core.AnnotationOperation]; ok {
			t.Error("the forged operation is still on the object")
		}
		if ev := drain(rec); !strings.Contains(ev, core.EventOperationDiscarded) {
			t.Errorf("events %q, want %s", ev, core.EventOperationDiscarded)
		}
	})
	t.Run("DeleteID", func(t *testing.T) {
		a := &scriptARM{}
		obj := gadgetObject("g4")
		obj.SetAnnotations(map[string]string{core.AnnotationARMID: victim, core.AnnotationLastApplied: `{}`})
		r, c, rec := gadgetReconciler(t, a, obj)
		if err := c.Delete(context.Background(), obj); err != nil {
			t.Fatal(err)
		}
		if _, err := reconcileOnce(t, r, obj); err != nil {
			t.Fatal(err)
		}
		if w := a.writes(); len(w) != 0 {
			t.Errorf("deleting sent %v for an unsealed arm-id", w)
		}
		if ev := drain(rec); !strings.Contains(ev, core.EventRecordIgnored) {
			t.Errorf("events %q, want %s", ev, core.EventRecordIgnored)
		}
	})
	t.Run("SealedDeleteID", func(t *testing.T) {
		a := &scriptARM{}
		obj := gadgetObject("g5")
		own := gadgetOwner + "/providers/Test.RP/gadgets/g5"
		r, c, _ := gadgetReconciler(t, a, obj)
		u := current(t, c, r, obj)
		r.seal.setARMID(u, own)
		if err := c.Update(context.Background(), u); err != nil {
			t.Fatal(err)
		}
		if err := c.Delete(context.Background(), u); err != nil {
			t.Fatal(err)
		}
		if _, err := reconcileOnce(t, r, obj); err != nil {
			t.Fatal(err)
		}
		if w := a.writes(); len(w) != 1 || w[0] != "DELETE "+own {
			t.Errorf("writes %v, want the DELETE of the sealed id", w)
		}
	})
}

// TestPollOfForeignHostDiscarded: a sealed operation whose poll the ARM
// client refuses for its host (ForeignHostError) is dropped with an event,
// not retried forever.
func TestPollOfForeignHostDiscarded(t *testing.T) {
	a := &scriptARM{poll: func(string) (*arm.Result, error) {
		return nil, &arm.ForeignHostError{URL: "https://thief.example/poll", Endpoint: "https://management.azure.com"}
	}}
	obj := gadgetObject("g6")
	r, c, rec := gadgetReconciler(t, a, obj)
	u := current(t, c, r, obj)
	id := gadgetOwner + "/providers/Test.RP/gadgets/g6"
	setAnnotation(u, core.AnnotationOperation, r.seal.sealOperation(u.GetUID(), operation{Verb: "PUT", ID: id, Token: "t"}))
	if err := c.Update(context.Background(), u); err != nil {
		t.Fatal(err)
	}
	res, err := reconcileOnce(t, r, obj)
	if err != nil || !res.Requeue {
		t.Fatalf("result %+v err %v, want a requeue", res, err)
	}
	if _, ok := current(t, c, r, obj).GetAnnotations()[core.AnnotationOperation]; ok {
		t.Error("the operation is still on the object")
	}
	if ev := drain(rec); !strings.Contains(ev, core.EventOperationDiscarded) {
		t.Errorf("events %q", ev)
	}
}

// TestInvalidNamesNotSent: names that would climb out of the owner's id
// are refused by the reconciler too (for clusters without the webhook).
func TestInvalidNamesNotSent(t *testing.T) {
	for name, mutate := range map[string]func(map[string]any){
		"DotDot":      func(s map[string]any) { s["azureName"] = ".." },
		"Slash":       func(s map[string]any) { s["azureName"] = "../../team-c/providers/Test.RP/gadgets/x" },
		"OwnerDotDot": func(s map[string]any) { s["owner"] = map[string]any{"armId": gadgetOwner + "/../team-c"} },
		"ResourceID":  func(s map[string]any) { s["resourceID"] = gadgetOwner + "/providers/Test.RP/gadgets/a?x" },
	} {
		t.Run(name, func(t *testing.T) {
			a := &scriptARM{}
			obj := gadgetObject("g7")
			mutate(obj.Object["spec"].(map[string]any))
			r, c, _ := gadgetReconciler(t, a, obj)
			_, _ = reconcileOnce(t, r, obj)
			if len(a.calls) != 0 {
				t.Errorf("calls %v", a.calls)
			}
			if got := readyReason(current(t, c, r, obj)); got != core.ReasonInvalidName {
				t.Errorf("Ready reason %q, want %s", got, core.ReasonInvalidName)
			}
		})
	}
}

// TestLostOperationIsReadNotRewritten: a poll answered 404 is followed by
// a GET; a resource that is there counts as written (no PUT); one that is
// not is retried after a backoff, and the writes of a generation that never
// settle stop at Config.MaxWritesPerGeneration with WriteLoop.
func TestLostOperationIsReadNotRewritten(t *testing.T) {
	id := gadgetOwner + "/providers/Test.RP/gadgets/g8"
	notFound := &arm.Error{Status: http.StatusNotFound, Code: "NotFound"}
	t.Run("ResourceThere", func(t *testing.T) {
		a := &scriptARM{poll: func(string) (*arm.Result, error) { return nil, notFound }}
		obj := gadgetObject("g8")
		r, c, rec := gadgetReconciler(t, a, obj)
		a.put = func(string) (*arm.Result, error) { return &arm.Result{Status: http.StatusCreated, Token: "op-1"}, nil }
		if _, err := reconcileOnce(t, r, obj); err != nil {
			t.Fatal(err)
		}
		a.get = func(id string) (*arm.Result, error) {
			return &arm.Result{Status: http.StatusOK, Body: map[string]any{"id": id, "location": "westeurope"}}, nil
		}
		a.calls = nil
		if _, err := reconcileOnce(t, r, obj); err != nil {
			t.Fatal(err)
		}
		if w := a.writes(); len(w) != 1 || !strings.HasPrefix(w[0], "POLL") {
			t.Errorf("after a lost operation, writes %v: want the poll only", w)
		}
		u := current(t, c, r, obj)
		if u.GetAnnotations()[core.AnnotationLastApplied] == "" || u.GetAnnotations()[core.AnnotationOperation] != "" {
			t.Errorf("annotations %v: want the operation's body recorded as applied", u.GetAnnotations())
		}
		if ev := drain(rec); !strings.Contains(ev, core.EventOperationLost) {
			t.Errorf("events %q", ev)
		}
	})
	t.Run("ResourceGone", func(t *testing.T) {
		a := &scriptARM{poll: func(string) (*arm.Result, error) { return nil, notFound }}
		obj := gadgetObject("g9")
		r, c, _ := gadgetReconciler(t, a, obj)
		r.Config.MaxWritesPerGeneration = 3
		a.put = func(string) (*arm.Result, error) { return &arm.Result{Status: http.StatusCreated, Token: "op"}, nil }
		var results []reconcile.Result
		for range 10 {
			res, _ := reconcileOnce(t, r, obj)
			results = append(results, res)
		}
		puts := 0
		for _, w := range a.writes() {
			if strings.HasPrefix(w, "PUT") {
				puts++
			}
		}
		if puts != 3 {
			t.Errorf("%d PUTs in 10 reconciles of one generation, want 3 (the limit)", puts)
		}
		for i, res := range results[:6] {
			if res.Requeue && res.RequeueAfter == 0 && i%2 == 1 {
				t.Errorf("reconcile %d after a lost operation requeues at once: %+v", i, res)
			}
		}
		u := current(t, c, r, obj)
		if got := readyReason(u); got != core.ReasonWriteLoop {
			t.Errorf("Ready reason %q, want %s", got, core.ReasonWriteLoop)
		}
		_ = id
	})
}

// TestSecretValuesStayInSecrets: a spec's secret reaches ARM, but neither
// the plan (annotation, status) nor the last-applied record holds the
// value or an unkeyed hash of it.
func TestSecretValuesStayInSecrets(t *testing.T) {
	const password = "hunter2-very-secret"
	for _, policy := range []string{"manage", "plan"} {
		t.Run(policy, func(t *testing.T) {
			a := &scriptARM{}
			obj := gadgetObject("g10-" + policy)
			obj.Object["spec"].(map[string]any)["properties"] = map[string]any{"password": map[string]any{"name": "db", "key": "pw"}, "tier": "Hot"}
			obj.SetAnnotations(map[string]string{core.AnnotationPolicy: policy})
			r, c, _ := gadgetReconciler(t, a, obj)
			sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: obj.GetNamespace(), Name: "db"}, Data: map[string][]byte{"pw": []byte(password)}}
			if err := c.Create(context.Background(), sec); err != nil {
				t.Fatal(err)
			}
			if _, err := reconcileOnce(t, r, obj); err != nil {
				t.Fatal(err)
			}
			u := current(t, c, r, obj)
			raw, _ := json.Marshal(u.Object)
			for _, leak := range []string{password, strings.TrimPrefix(hash(password), "sha256:")} {
				if strings.Contains(string(raw), leak) {
					t.Errorf("the object holds %q:\n%s", leak, raw)
				}
			}
			if policy == "plan" && !strings.Contains(u.GetAnnotations()[core.AnnotationPlan], core.Redacted) {
				t.Errorf("plan %s: want the secret shown as %s", u.GetAnnotations()[core.AnnotationPlan], core.Redacted)
			}
			if policy == "manage" && !strings.Contains(u.GetAnnotations()[core.AnnotationOperation]+u.GetAnnotations()[core.AnnotationLastApplied], `password\":\"hmac:`) {
				t.Errorf("annotations %v: want the keyed digest of the password", u.GetAnnotations())
			}
		})
	}
}

// TestMalformedAnswerShown: an answer that is not a JSON object is a
// condition of its own, retried with backoff.
func TestMalformedAnswerShown(t *testing.T) {
	a := &scriptARM{put: func(id string) (*arm.Result, error) {
		return nil, &arm.MalformedError{Method: "PUT", Path: id, Status: 200, Err: io.ErrUnexpectedEOF}
	}}
	obj := gadgetObject("g11")
	r, c, _ := gadgetReconciler(t, a, obj)
	res, err := reconcileOnce(t, r, obj)
	if err != nil || res.RequeueAfter == 0 {
		t.Errorf("result %+v err %v: want a requeue after a backoff", res, err)
	}
	if got := readyReason(current(t, c, r, obj)); got != core.ReasonMalformedAnswer {
		t.Errorf("Ready reason %q, want %s", got, core.ReasonMalformedAnswer)
	}
}

// TestLargeBodyRecorded: a body too large for an annotation is recorded by
// its digest before the PUT, so the write is not repeated: one PUT, and a
// second reconcile of the same spec sends nothing.
func TestLargeBodyRecorded(t *testing.T) {
	big := make([]byte, 150<<10)
	_, _ = rand.Read(big)
	a := &scriptARM{}
	obj := gadgetObject("g12")
	obj.Object["spec"].(map[string]any)["properties"] = map[string]any{"tier": hex.EncodeToString(big)}
	r, c, _ := gadgetReconciler(t, a, obj)
	id := gadgetOwner + "/providers/Test.RP/gadgets/g12"
	a.get = func(string) (*arm.Result, error) {
		if len(a.writes()) == 0 {
			return nil, &arm.Error{Status: http.StatusNotFound, Code: "ResourceNotFound"}
		}
		return &arm.Result{Status: http.StatusOK, Body: map[string]any{"id": id, "location": "westeurope"}}, nil
	}
	for range 3 {
		if _, err := reconcileOnce(t, r, obj); err != nil {
			t.Fatal(err)
		}
	}
	if w := a.writes(); len(w) != 1 {
		t.Errorf("writes %v, want one PUT", w)
	}
	u := current(t, c, r, obj)
	size := 0
	for _, v := range u.GetAnnotations() {
		size += len(v)
	}
	if size > 64<<10 {
		t.Errorf("the annotations hold %d bytes", size)
	}
}

// TestNewStateKey: a new state key (its Secret deleted, an operator run
// outside a pod restarted) does not make the objects' own resources
// strangers: what status — written only by the operator — vouches for
// still counts. No write to ARM, Ready, and deleting deletes its own id.
func TestNewStateKey(t *testing.T) {
	id := gadgetOwner + "/providers/Test.RP/gadgets/g14"
	a := &scriptARM{}
	obj := gadgetObject("g14")
	r, c, _ := gadgetReconciler(t, a, obj)
	if _, err := reconcileOnce(t, r, obj); err != nil {
		t.Fatal(err)
	}
	a.get = func(string) (*arm.Result, error) {
		return &arm.Result{Status: http.StatusOK, Body: map[string]any{"id": id, "location": "westeurope"}}, nil
	}
	cfg := r.Config
	cfg.StateKey = []byte("another-key")
	r2 := New(c, a, r.Desc, "", nil, cfg)
	a.calls = nil
	for range 2 {
		if _, err := reconcileOnce(t, r2, obj); err != nil {
			t.Fatal(err)
		}
	}
	if w := a.writes(); len(w) != 0 {
		t.Errorf("writes under a new key: %v", w)
	}
	if an := current(t, c, r, obj).GetAnnotations(); an[core.AnnotationOperation] == "" && an[core.AnnotationLastApplied] == "" {
		t.Error("the finished create's record was discarded, and the last-applied body with it")
	}
	if reason := readyReason(current(t, c, r, obj)); reason != core.ReasonSucceeded {
		t.Errorf("Ready reason %q under a new key", reason)
	}
	if err := c.Delete(context.Background(), current(t, c, r, obj)); err != nil {
		t.Fatal(err)
	}
	if _, err := reconcileOnce(t, r2, obj); err != nil {
		t.Fatal(err)
	}
	if w := a.writes(); len(w) != 1 || w[0] != "DELETE "+id {
		t.Errorf("deleting under a new key: %v, want the DELETE of its own id", w)
	}
}
