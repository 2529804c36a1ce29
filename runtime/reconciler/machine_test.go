package reconciler

import (
	"errors"
	"io"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/armature-dev/armature/runtime/arm"
	"github.com/armature-dev/armature/runtime/descriptor"
)

// The vocabulary, as the API spells it: the cases name conditions,
// reasons, annotations, the finalizer, policies and events by their
// values, not by the package's identifiers (which move).
const (
	tReady          = "Ready"
	tActionRequired = "ActionRequired"

	tSucceeded             = "Succeeded"
	tReconciling           = "Reconciling"
	tFailed                = "Failed"
	tPlan                  = "Plan"
	tUnknownPolicy         = "UnknownPolicy"
	tAzureResourceExists   = "AzureResourceExists"
	tAzureResourceNotFound = "AzureResourceNotFound"
	tWriteLoop             = "WriteLoop"
	tMalformedAnswer       = "MalformedAnswer"

	tAnnPolicy      = "armature.dev/reconcile-policy"
	tAnnSyncPeriod  = "armature.dev/sync-period"
	tAnnLastApplied = "armature.dev/last-applied"
	tAnnARMID       = "armature.dev/arm-id"
	tAnnOperation   = "armature.dev/operation"
	tAnnPlan        = "armature.dev/plan"
	tFinalizer      = "armature.dev/finalizer"

	tManage         = "manage"
	tSkip           = "skip"
	tPlanPolicy     = "plan"
	tDetachOnDelete = "detach-on-delete"

	tEvCreated  = "Normal Created"
	tEvPatched  = "Normal Patched"
	tEvUpdated  = "Normal Updated"
	tEvDeleted  = "Normal Deleted"
	tEvDetached = "Normal Detached"
	tEvNoDelete = "Normal NoDelete"
	tEvDrift    = "Warning DriftDetected"
	tEvLost     = "Warning OperationLost"
)

// machineCase is one case of the reconcile state machine: an object, its
// history (prep: earlier reconciles, each with its own checked steps, and
// edits), the ARM calls the checked reconcile must make with their
// answers, and what it must end in.
type machineCase struct {
	reason string
	kind   func(d *descriptor.Descriptor) // the gadget kind, changed
	cfg    func(c *Config)
	lister bool                               // ARM is a Lister: drift by LIST
	obj    func(u *unstructured.Unstructured) // the object as first stored
	// hooks are registered for the case's kind (then named HookedGadget,
	// a kind of its own) and removed after it.
	hooks *Hooks
	prep  func(m *machine)
	calls []armStep
	want  machineWant
	// skip says why the case does not run (a seam it needs, or a bug the
	// case shows). MACHINE_SKIPPED=1 runs these cases too: a fixed bug's
	// case then passes.
	skip string
}

type machineWant struct {
	res reconcile.Result
	// err: "" none, "terminal" a reconcile.TerminalError, "error" another.
	err string
	// ready is "<status> <reason>" of Ready; "" when there must be none.
	ready string
	// act is ActionRequired's status ("" unchecked).
	act string
	// msg is a text Ready's message must contain.
	msg string
	// events are the events of the checked reconcile, "<type> <reason>",
	// in order; exactly these.
	events []string
	// ann: annotation → "" must be absent, "*" present, else contained.
	ann map[string]string
	// fin: "kept" (the finalizer is on the object), "none" (the object is
	// there without it), "gone" (the object is deleted); "" unchecked.
	fin string
	// check checks more of the object.
	check func(t *testing.T, u *unstructured.Unstructured)
}

// Bodies the cases send.
const (
	createBody = `{"location":"westeurope"}`
)

func after(d time.Duration) reconcile.Result { return reconcile.Result{RequeueAfter: d} }

var now = reconcile.Result{Requeue: true}

func withPolicy(p string) func(u *unstructured.Unstructured) {
	return func(u *unstructured.Unstructured) { annotate(u, tAnnPolicy, p) }
}

func withTier(tier string) func(u *unstructured.Unstructured) {
	return func(u *unstructured.Unstructured) { setSpec(u, tier, "properties", "tier") }
}

// created: the object was created (sync PUT) and is Ready.
func created(m *machine) { m.created(nil) }

// createdThen: created, then the edit.
func createdThen(f func(u *unstructured.Unstructured)) func(m *machine) {
	return func(m *machine) {
		m.created(nil)
		m.edit(f)
	}
}

// createdAsync: the create's PUT started an operation (op-c), followed
// from memory.
func createdAsync(m *machine) {
	if res, err := m.run(get(nil, notFound), put(createBody, accepted("op-c"), nil)); err != nil || res.RequeueAfter != mPoll {
		m.t.Fatalf("async create: %+v %v", res, err)
	}
}

// patching: created, the tier changed, and the PATCH started an
// operation (op-p) recorded on the object.
func patching(m *machine) {
	createdThen(withTier("Hot"))(m)
	if _, err := m.run(patch(`{"properties":{"tier":"Hot"}}`, accepted("op-p"), nil)); err != nil {
		m.t.Fatalf("async patch: %v", err)
	}
}

// deletingAsync: created, deleted, and the DELETE started an operation.
func deletingAsync(m *machine) {
	m.created(nil)
	m.delete()
	if _, err := m.run(del(accepted("op-d"), nil)); err != nil {
		m.t.Fatalf("async delete: %v", err)
	}
}

// driftSeen: created, then a GET saw Azure's location changed: the
// last-applied record is dropped.
func driftSeen(m *machine) {
	m.created(nil)
	if res, err := m.run(get(ok(live("location", "northeurope")), nil)); err != nil || !res.Requeue {
		m.t.Fatalf("drift: %+v %v", res, err)
	}
}

// refused: created, location changed, the PATCH refused as create-only.
func refused(m *machine) {
	createdThen(func(u *unstructured.Unstructured) { setSpec(u, "northeurope", "location") })(m)
	_, _ = m.run(patch(`{"location":"northeurope"}`, nil, armErr(400, "PropertyChangeNotAllowed", "Changing property 'location' is not allowed.")))
}

func noPatch(d *descriptor.Descriptor)  { d.Verbs = []string{"GET", "PUT", "DELETE"} }
func noDelete(d *descriptor.Descriptor) { d.Verbs = []string{"GET", "PUT", "PATCH"} }
func listable(d *descriptor.Descriptor) {
	d.ListPaths = []string{"/subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Test.RP/gadgets"}
}

// withParts gives the gadget an embedded child collection,
// properties.parts (ARM serves each part as a child resource too).
func withParts(d *descriptor.Descriptor) {
	d.Properties = append(d.Properties,
		descriptor.Property{Path: descriptor.P("properties", "parts"), Class: descriptor.Writable},
		descriptor.Property{Path: descriptor.P("properties", "parts", descriptor.Items, "name"), Class: descriptor.Writable},
		descriptor.Property{Path: descriptor.P("properties", "parts", descriptor.Items, "size"), Class: descriptor.Writable},
		descriptor.Property{Path: descriptor.P("properties", "parts", descriptor.Items, "etag"), Class: descriptor.ReadOnly})
	slices.SortFunc(d.Properties, func(a, b descriptor.Property) int { return a.Path.Compare(b.Path) })
	d.EmbeddedChildren = []descriptor.EmbeddedChild{{Path: descriptor.P("properties", "parts"), ARMType: "Test.RP/gadgets/parts"}}
}

// generatedGadget is gadget() as the generator writes a kind: the ARM
// envelope (id, name, type) is in the table, readOnly, so status keeps it.
func generatedGadget() *descriptor.Descriptor {
	d := gadget()
	d.Scope = "ResourceGroup"
	for _, k := range []string{"id", "name", "type"} {
		d.Properties = append(d.Properties, descriptor.Property{Path: descriptor.P(k), Class: descriptor.ReadOnly})
	}
	slices.SortFunc(d.Properties, func(a, b descriptor.Property) int { return a.Path.Compare(b.Path) })
	return d
}

func part(name string, size int64) map[string]any { return map[string]any{"name": name, "size": size} }
func livePart(name string, size int64) map[string]any {
	return map[string]any{"name": name, "size": size, "etag": "W/1"}
}

func withParts1(u *unstructured.Unstructured) {
	setSpec(u, []any{part("a", 1)}, "properties", "parts")
}

// TestMachine is the reconcile state machine as a table (issue 27.3): each
// case one object, its history, the ARM calls of one reconcile with their
// answers, and the result, condition, events and records it must end in.
// No apiserver: controller-runtime's fake client; no ARM: arm.ClientFuncs
// (ListerFuncs for drift by LIST). The whole table runs in about a second.
func TestMachine(t *testing.T) {
	cases := map[string]machineCase{
		// ----- apply: create -----
		"CreateSyncPUT": {
			reason: "a new object: claim GET (404), the PUT of the spec's body, the GET of the result: Ready",
			calls:  []armStep{get(nil, notFound), put(createBody, ok(live()), nil), get(ok(live()), nil)},
			want:   machineWant{res: after(mSync), ready: "True " + tSucceeded, act: "False", events: []string{tEvCreated}, fin: "kept", ann: map[string]string{tAnnARMID: mID, tAnnOperation: `"verb":"PUT"`}},
		},
		"CreateAddsFinalizerFirst": {
			reason: "an object without the finalizer gets it before anything is written to ARM",
			obj:    func(u *unstructured.Unstructured) { u.SetFinalizers(nil) },
			calls:  []armStep{get(nil, notFound), put(createBody, ok(live()), nil), get(ok(live()), nil)},
			want:   machineWant{res: after(mSync), ready: "True " + tSucceeded, events: []string{tEvCreated}, fin: "kept"},
		},
		"CreateAsyncPUT": {
			reason: "a PUT that starts an operation: followed from memory, its token not written to the object; polled after PollInterval",
			calls:  []armStep{get(nil, notFound), put(createBody, accepted("op-c"), nil)},
			want:   machineWant{res: after(mPoll), ready: "", ann: map[string]string{tAnnOperation: `"verb":"PUT"`, tAnnLastApplied: ""}, check: noText("op-c")},
		},
		"CreateAsyncRetryAfter": {
			reason: "ARM's Retry-After sets the next poll",
			calls:  []armStep{get(nil, notFound), put(createBody, &arm.Result{Status: 201, Token: "op-c", RetryAfter: 40 * time.Second}, nil)},
			want:   machineWant{res: after(40 * time.Second)},
		},
		"CreateAsyncPollDone": {
			reason: "the create's operation ends with the resource: no second GET, Ready, one Created event",
			prep:   createdAsync,
			calls:  []armStep{poll("op-c", ok(live()), nil)},
			want:   machineWant{res: after(mSync), ready: "True " + tSucceeded, events: []string{tEvCreated}},
		},
		"CreateAsyncPollDoneNoBody": {
			reason: "an operation that ends with an operation-status body (no id): the resource is read",
			prep:   createdAsync,
			calls:  []armStep{poll("op-c", ok(map[string]any{"status": "Succeeded"}), nil), get(ok(live()), nil)},
			want:   machineWant{res: after(mSync), ready: "True " + tSucceeded, events: []string{tEvCreated}},
		},
		"CreateAsyncPollInProgress": {
			reason: "an operation in progress is polled once, nothing re-sent, no status write",
			prep:   createdAsync,
			calls:  []armStep{poll("op-c", accepted("op-c"), nil)},
			want:   machineWant{res: after(mPoll), ready: ""},
		},
		"CreateAsyncPollFailed": {
			reason: "the create's operation Failed (ARM's error): terminal, the condition says ARM's code",
			prep:   createdAsync,
			calls:  []armStep{poll("op-c", nil, armErr(400, "InvalidParameter", "sku is wrong"))},
			want:   machineWant{err: "terminal", ready: "False InvalidParameter", act: "True", msg: "sku is wrong", events: []string{"Warning InvalidParameter"}, ann: map[string]string{tAnnOperation: ""}},
		},
		"CreateAsyncPollFailedUnknownCode": {
			reason: "the create's operation Failed with a code the table does not know: retried after a backoff (ARM's answer to a failed operation is to send it again), not terminal",
			prep:   createdAsync,
			calls:  []armStep{poll("op-c", nil, &arm.Error{Status: 200, Code: "AzureCacheForRedisLongRunningOperationFailure", Message: "the operation failed", Operation: true})},
			want:   machineWant{res: after(mRetry), ready: "False AzureCacheForRedisLongRunningOperationFailure", act: "False", events: []string{"Warning AzureCacheForRedisLongRunningOperationFailure"}, ann: map[string]string{tAnnOperation: ""}},
		},
		"CreateAsyncPollFailedSentAgain": {
			reason: "after a failed operation's backoff the PUT is sent again (the resource is there, Failed, and the object claimed it)",
			prep: func(m *machine) {
				createdAsync(m)
				m.run(poll("op-c", nil, &arm.Error{Status: 200, Code: "SomethingFailed", Message: "failed", Operation: true}))
			},
			calls: []armStep{put(createBody, ok(live()), nil), get(ok(live()), nil)},
			want:  machineWant{res: after(mSync), ready: "True " + tSucceeded, events: []string{tEvCreated}},
		},
		"CreateAsyncPollTransient": {
			reason: "a failed poll worth retrying keeps the operation: the error is returned for controller-runtime's backoff",
			prep:   createdAsync,
			calls:  []armStep{poll("op-c", nil, armErr(503, "ServiceUnavailable", "busy"))},
			want:   machineWant{err: "error", ready: "", ann: map[string]string{tAnnOperation: "*"}},
		},
		"CreateAsyncPollLost": {
			reason: "ARM forgot the operation (poll 404) and the resource is there: the write counts as done, no PUT",
			prep:   createdAsync,
			calls:  []armStep{poll("op-c", nil, notFound), get(ok(live()), nil)},
			want:   machineWant{res: after(mSync), ready: "True " + tSucceeded, events: []string{tEvLost}, ann: map[string]string{tAnnLastApplied: createBody, tAnnOperation: ""}},
		},
		"CreateAsyncPollLostGone": {
			reason: "ARM forgot the operation and the resource is not there: retried after a backoff, never at once",
			prep:   createdAsync,
			calls:  []armStep{poll("op-c", nil, notFound), get(nil, notFound)},
			want:   machineWant{res: after(mRetry), ready: "False OperationLost", act: "False", events: []string{"Warning OperationLost"}, ann: map[string]string{tAnnOperation: ""}},
		},
		"CreateIntentAfterRestartThere": {
			reason: "after a restart (memory gone) a create intent is not re-sent: the resource is read, and there it counts as created",
			prep:   func(m *machine) { createdAsync(m); m.restart() },
			calls:  []armStep{get(ok(live()), nil)},
			want:   machineWant{res: after(mSync), ready: "True " + tSucceeded, events: []string{tEvCreated}},
		},
		"CreateIntentAfterRestartAbsent": {
			reason: "after a restart, the intent's resource absent: the PUT never took and is sent (no second claim GET)",
			prep:   func(m *machine) { createdAsync(m); m.restart() },
			calls:  []armStep{get(nil, notFound), put(createBody, ok(live()), nil), get(ok(live()), nil)},
			want:   machineWant{res: after(mSync), ready: "True " + tSucceeded, events: []string{tEvCreated}, ann: map[string]string{tAnnLastApplied: createBody}},
		},
		"CreateProvisioningFailed": {
			reason: "the resource's provisioningState is Failed: Ready=False Failed, ActionRequired",
			calls:  []armStep{get(nil, notFound), put(createBody, ok(live()), nil), get(ok(live("properties.provisioningState", "Failed")), nil)},
			want:   machineWant{res: after(mSync), ready: "False " + tFailed, act: "True", events: []string{tEvCreated}},
		},
		"CreateProvisioningInProgress": {
			reason: "provisioningState Creating: Reconciling, observed again after PollInterval",
			calls:  []armStep{get(nil, notFound), put(createBody, ok(live()), nil), get(ok(live("properties.provisioningState", "Creating")), nil)},
			want:   machineWant{res: after(mPoll), ready: "False " + tReconciling, events: []string{tEvCreated}},
		},
		"CreateNormalisedNotDrift": {
			reason: "right after a write, a value ARM answers differently is its normalisation, not drift: Ready with a note, no correction",
			calls:  []armStep{get(nil, notFound), put(createBody, ok(live()), nil), get(ok(live("location", "northeurope")), nil)},
			want:   machineWant{res: after(mSync), ready: "True " + tSucceeded, msg: "normalisation", events: []string{tEvCreated}, ann: map[string]string{tAnnOperation: "*"}},
		},
		"ClaimResourceExists": {
			reason: "the claim GET finds a resource the object did not create: nothing written",
			calls:  []armStep{get(ok(live()), nil)},
			want:   machineWant{res: after(mSync), ready: "False " + tAzureResourceExists, act: "True", events: []string{"Warning " + tAzureResourceExists}, ann: map[string]string{tAnnARMID: ""}},
		},
		"ClaimGETFails": {
			reason: "a claim GET answered 500 is retried with backoff; no PUT",
			calls:  []armStep{get(nil, armErr(500, "InternalServerError", "oops"))},
			want:   machineWant{res: after(mRetry), ready: "False InternalServerError", act: "False", events: []string{"Warning InternalServerError"}},
		},
		"SyncPeriodAnnotation": {
			reason: "the object's sync-period annotation sets its requeue",
			obj:    func(u *unstructured.Unstructured) { annotate(u, tAnnSyncPeriod, "10m") },
			calls:  []armStep{get(nil, notFound), put(createBody, ok(live()), nil), get(ok(live()), nil)},
			want:   machineWant{res: after(10 * time.Minute), ready: "True " + tSucceeded, events: []string{tEvCreated}},
		},
		"SecretMissing": {
			reason: "a spec's Secret that does not exist: nothing sent; the error goes to controller-runtime's backoff",
			obj: func(u *unstructured.Unstructured) {
				setSpec(u, map[string]any{"name": "db", "key": "pw"}, "properties", "password")
			},
			want: machineWant{err: "error", ready: "False " + tReconciling},
		},

		// ----- apply: update -----
		"InSyncNoWrite": {
			reason: "the spec as last applied: a GET, no write",
			prep:   created,
			calls:  []armStep{get(ok(live()), nil)},
			want:   machineWant{res: after(mSync), ready: "True " + tSucceeded, act: "False"},
		},
		"UpdateByPATCH": {
			reason: "a changed value goes as PATCH of the merge patch alone; last-applied records the new body",
			prep:   createdThen(withTier("Hot")),
			calls:  []armStep{patch(`{"properties":{"tier":"Hot"}}`, ok(live("properties.tier", "Hot")), nil), get(ok(live("properties.tier", "Hot")), nil)},
			want:   machineWant{res: after(mSync), ready: "True " + tSucceeded, events: []string{tEvPatched}, ann: map[string]string{tAnnLastApplied: `"tier":"Hot"`, tAnnOperation: ""}},
		},
		"UpdateByPATCHAsync": {
			reason: "a PATCH that starts an operation: its token is kept on the object (sealed), polled after PollInterval",
			prep:   createdThen(withTier("Hot")),
			calls:  []armStep{patch(`{"properties":{"tier":"Hot"}}`, accepted("op-p"), nil)},
			want:   machineWant{res: after(mPoll), ready: "True " + tSucceeded, ann: map[string]string{tAnnOperation: `"verb":"PATCH"`}},
		},
		"UpdateRemovesValue": {
			reason: "a value dropped from the spec is sent as null",
			prep: func(m *machine) {
				m.edit(withTier("Hot"))
				m.run(get(nil, notFound), put(`{"location":"westeurope","properties":{"tier":"Hot"}}`, ok(live()), nil), get(ok(live("properties.tier", "Hot")), nil))
				m.edit(func(u *unstructured.Unstructured) { unstructured.RemoveNestedField(u.Object, "spec", "properties") })
			},
			calls: []armStep{patch(`{"properties":null}`, ok(live()), nil), get(ok(live()), nil)},
			want:  machineWant{res: after(mSync), ready: "True " + tSucceeded, events: []string{tEvPatched}},
		},
		"UpdateByPUTWithoutPATCH": {
			reason: "a kind without PATCH: GET the live body, PUT it with the change (what others set in Azure kept, readOnly dropped)",
			kind:   noPatch,
			prep:   createdThen(withTier("Hot")),
			calls: []armStep{
				get(ok(live("tags", map[string]any{"by": "portal"})), nil),
				put(`{"location":"westeurope","properties":{"tier":"Hot"},"tags":{"by":"portal"}}`, ok(live("properties.tier", "Hot")), nil),
				get(ok(live("properties.tier", "Hot")), nil),
			},
			want: machineWant{res: after(mSync), ready: "True " + tSucceeded, events: []string{tEvUpdated}},
		},
		"UpdateByPUTTagsOnlyPATCH": {
			reason: "a kind whose PATCH takes only tags: a property change goes as GET + PUT",
			kind:   func(d *descriptor.Descriptor) { d.PatchTagsOnly = true },
			prep:   createdThen(withTier("Hot")),
			calls: []armStep{
				get(ok(live()), nil),
				put(`{"location":"westeurope","properties":{"tier":"Hot"}}`, ok(live("properties.tier", "Hot")), nil),
				get(ok(live("properties.tier", "Hot")), nil),
			},
			want: machineWant{res: after(mSync), ready: "True " + tSucceeded, events: []string{tEvUpdated}},
		},
		"UpdateByPUTLiveGETFails": {
			reason: "the GET an update by PUT needs fails: retried, nothing written",
			kind:   noPatch,
			prep:   createdThen(withTier("Hot")),
			calls:  []armStep{get(nil, armErr(429, "", ""))},
			want:   machineWant{res: after(mRetry), ready: "False TooManyRequests", events: []string{"Warning TooManyRequests"}},
		},
		"UpdateOperatorFieldOnly": {
			reason: "a spec change only in operator fields (operatorSpec) sends nothing",
			prep: createdThen(func(u *unstructured.Unstructured) {
				setSpec(u, map[string]any{"ignoreChanges": []any{"tags"}}, "operatorSpec")
			}),
			calls: []armStep{get(ok(live()), nil)},
			want:  machineWant{res: after(mSync), ready: "True " + tSucceeded},
		},
		"WriteLoop": {
			reason: "the writes of a generation that do not settle it stop at MaxWritesPerGeneration: WriteLoop, nothing sent",
			cfg:    func(c *Config) { c.MaxWritesPerGeneration = 1 },
			prep:   driftSeen,
			want:   machineWant{ready: "False " + tWriteLoop, act: "True", events: []string{"Warning " + tWriteLoop}},
		},
		"WriteLoopEndsWithNewGeneration": {
			reason: "a spec change (a new generation) has a budget of its own",
			cfg:    func(c *Config) { c.MaxWritesPerGeneration = 1 },
			prep: func(m *machine) {
				driftSeen(m)
				m.run()
				m.edit(withTier("Hot"))
			},
			calls: []armStep{put(`{"location":"westeurope","properties":{"tier":"Hot"}}`, ok(live("properties.tier", "Hot")), nil), get(ok(live("properties.tier", "Hot")), nil)},
			want:  machineWant{res: after(mSync), ready: "True " + tSucceeded, events: []string{tEvCreated}},
		},

		// ----- apply: create-only refusals -----
		"CreateOnlyRefused": {
			reason: "Azure refuses to change a create-only property: terminal, the condition names spec.location",
			prep:   createdThen(func(u *unstructured.Unstructured) { setSpec(u, "northeurope", "location") }),
			calls:  []armStep{patch(`{"location":"northeurope"}`, nil, armErr(400, "PropertyChangeNotAllowed", "Changing property 'location' is not allowed."))},
			want:   machineWant{err: "terminal", ready: "False PropertyChangeNotAllowed", act: "True", msg: "spec.location", events: []string{"Warning PropertyChangeNotAllowed"}},
		},
		"CreateOnlyRefusalRemembered": {
			reason: "the same refused write of the same generation is not sent again: no call, the same terminal condition, no second event",
			prep:   refused,
			want:   machineWant{err: "terminal", ready: "False PropertyChangeNotAllowed", act: "True", msg: "spec.location"},
		},
		"CreateOnlyRefusalNewGeneration": {
			reason: "a new generation's write is sent (restoring the value: nothing to send but the GET)",
			prep: func(m *machine) {
				refused(m)
				m.edit(func(u *unstructured.Unstructured) { setSpec(u, "westeurope", "location") })
			},
			calls: []armStep{get(ok(live()), nil)},
			want:  machineWant{res: after(mSync), ready: "True " + tSucceeded},
		},
		"CreateOnlyRefusalOtherChange": {
			reason: "another change in a new generation is sent, with the refused one",
			prep: func(m *machine) {
				refused(m)
				m.edit(withTier("Hot"))
			},
			calls: []armStep{patch(`{"location":"northeurope","properties":{"tier":"Hot"}}`, nil, armErr(400, "PropertyChangeNotAllowed", "Changing property 'location' is not allowed."))},
			want:  machineWant{err: "terminal", ready: "False PropertyChangeNotAllowed", msg: "spec.location"},
		},
		"CreateOnlyNoPropertyNamed": {
			reason: "a create-only refusal that names no property: the condition names what the write changed",
			prep:   createdThen(withTier("Hot")),
			calls:  []armStep{patch(`{"properties":{"tier":"Hot"}}`, nil, armErr(400, "AccountPropertyCannotBeUpdated", "cannot be updated"))},
			want:   machineWant{err: "terminal", ready: "False AccountPropertyCannotBeUpdated", act: "True", msg: "spec.properties.tier", events: []string{"Warning AccountPropertyCannotBeUpdated"}},
		},
		"CreateOnlyRowProperty": {
			reason: "InvalidResourceLocation names location by its row",
			prep:   createdThen(func(u *unstructured.Unstructured) { setSpec(u, "northeurope", "location") }),
			calls:  []armStep{patch(`{"location":"northeurope"}`, nil, armErr(409, "InvalidResourceLocation", "already exists in location westeurope"))},
			want:   machineWant{err: "terminal", ready: "False InvalidResourceLocation", msg: "spec.location", events: []string{"Warning InvalidResourceLocation"}},
		},

		// ----- observe -----
		"StatusFromGET": {
			reason: "status is the GET body (what the schema knows), with observedGeneration",
			prep:   created,
			calls:  []armStep{get(ok(live("properties.tier", "Cool", "unknown", "x")), nil)},
			want: machineWant{res: after(mSync), ready: "True " + tSucceeded, check: func(t *testing.T, u *unstructured.Unstructured) {
				if v, _, _ := unstructured.NestedString(u.Object, "status", "properties", "provisioningState"); v != "Succeeded" {
					t.Errorf("status.properties.provisioningState %q", v)
				}
				if _, ok, _ := unstructured.NestedFieldNoCopy(u.Object, "status", "unknown"); ok {
					t.Error("status holds a member the schema does not know")
				}
				if _, ok, _ := unstructured.NestedFieldNoCopy(u.Object, "status", "observedGeneration"); !ok {
					t.Error("no status.observedGeneration")
				}
			}},
		},
		"ObserveGETFails": {
			reason: "the observing GET answered 503: retried with backoff",
			prep:   created,
			calls:  []armStep{get(nil, armErr(503, "ServiceUnavailable", "busy"))},
			want:   machineWant{res: after(mRetry), ready: "False ServiceUnavailable", act: "False", events: []string{"Warning ServiceUnavailable"}},
		},
		"DriftByGETCorrected": {
			reason: "under manage, Azure's change of a value the spec sets is drift: event, the last-applied record dropped, requeued at once",
			prep:   created,
			calls:  []armStep{get(ok(live("location", "northeurope")), nil)},
			want:   machineWant{res: now, ready: "True " + tSucceeded, events: []string{tEvDrift}, ann: map[string]string{tAnnLastApplied: "", tAnnOperation: "", tAnnARMID: mID}},
		},
		"DriftCorrectionWrite": {
			reason: "after drift the spec's body is PUT whole (the resource is the object's: no claim GET), an update: Updated, not Created",
			prep:   driftSeen,
			calls:  []armStep{put(createBody, ok(live()), nil), get(ok(live()), nil)},
			want:   machineWant{res: after(mSync), ready: "True " + tSucceeded, events: []string{tEvUpdated}, ann: map[string]string{tAnnLastApplied: createBody}},
		},
		"DriftTagsAddedElsewhereNoDrift": {
			reason: "values the spec does not set (tags added in the portal) are no drift",
			prep:   created,
			calls:  []armStep{get(ok(live("tags", map[string]any{"by": "portal"})), nil)},
			want:   machineWant{res: after(mSync), ready: "True " + tSucceeded},
		},
		"DriftNormalisedKept": {
			reason: "a value ARM answered differently right after the write and still answers so is its normalisation: not corrected",
			prep:   func(m *machine) { m.created(live("location", "northeurope")) },
			calls:  []armStep{get(ok(live("location", "northeurope")), nil)},
			want:   machineWant{res: after(mSync), ready: "True " + tSucceeded, msg: "normalisation"},
		},
		"DriftUnderSkipNotCorrected": {
			reason: "under skip, drift is not corrected: GET only, nothing written",
			obj:    withPolicy(tSkip),
			prep: func(m *machine) {
				m.run(get(ok(live()), nil))
			},
			calls: []armStep{get(ok(live("location", "northeurope")), nil)},
			want:  machineWant{res: after(mSync), ready: "True " + tSucceeded},
		},
		"DriftUnderSkipReported": {
			reason: "under skip, drift is reported in Ready's message (doc.go: 'or only reported under the skip policy')",
			obj:    withPolicy(tSkip),
			prep: func(m *machine) {
				m.run(get(ok(live()), nil))
			},
			calls: []armStep{get(ok(live("location", "northeurope")), nil)},
			want:  machineWant{res: after(mSync), ready: "True " + tSucceeded, msg: "not corrected"},
		},
		"DriftUnderPlanReported": {
			reason: "under plan (switched from manage), drift is reported, not corrected",
			prep:   createdThen(withPolicy(tPlanPolicy)),
			calls:  []armStep{get(ok(live("location", "northeurope")), nil)},
			want:   machineWant{res: after(mSync), ready: "True " + tSucceeded, msg: "not corrected", ann: map[string]string{tAnnOperation: "*", tAnnPlan: ""}},
		},
		"DeletedOutsideRecreated": {
			reason: "a 404 outside the read-after-write window: deleted outside the operator; the record dropped, requeued to create it again",
			cfg:    func(c *Config) { c.ReadAfterWrite = time.Nanosecond },
			prep:   created,
			calls:  []armStep{get(nil, notFound)},
			want:   machineWant{res: now, events: []string{tEvDrift}, ready: "True " + tSucceeded, ann: map[string]string{tAnnLastApplied: "", tAnnOperation: ""}},
		},
		"DeletedOutsideThenPUT": {
			reason: "the reconcile after: the PUT again, no claim GET (the id is the object's)",
			cfg:    func(c *Config) { c.ReadAfterWrite = time.Nanosecond },
			prep: func(m *machine) {
				m.created(nil)
				m.run(get(nil, notFound))
			},
			calls: []armStep{put(createBody, ok(live()), nil), get(ok(live()), nil)},
			want:  machineWant{res: after(mSync), ready: "True " + tSucceeded, events: []string{tEvCreated}},
		},
		"NotFoundRightAfterWrite": {
			reason: "a 404 on the GET right after an accepted write is read-after-write lag: retried, not recreated",
			calls:  []armStep{get(nil, notFound), put(createBody, ok(live()), nil), get(nil, notFound)},
			want:   machineWant{res: after(mRetry), ready: "False ResourceNotFound", act: "False", events: []string{tEvCreated, "Warning ResourceNotFound"}, ann: map[string]string{tAnnOperation: "*"}},
		},
		"NotFoundWithinWindow": {
			reason: "a 404 within Config.ReadAfterWrite of the last write is lag too",
			prep:   created,
			calls:  []armStep{get(nil, notFound)},
			want:   machineWant{res: after(mRetry), ready: "False ResourceNotFound", events: []string{"Warning ResourceNotFound"}, ann: map[string]string{tAnnOperation: "*"}},
		},

		// ----- observe: drift by LIST -----
		"ListedInSyncNoGET": {
			reason: "a settled object of a listable kind, in sync: no GET and no requeue (the drift observer's LIST watches it)",
			kind:   listable, lister: true,
			prep:  created,
			calls: nil,
			want:  machineWant{res: reconcile.Result{}, ready: "True " + tSucceeded},
		},
		"ListedCreateNoRequeue": {
			reason: "a create of a listable kind ends without a sync requeue",
			kind:   listable, lister: true,
			calls: []armStep{get(nil, notFound), put(createBody, ok(live()), nil), get(ok(live()), nil)},
			want:  machineWant{res: reconcile.Result{}, ready: "True " + tSucceeded, events: []string{tEvCreated}},
		},
		"DriftByLIST": {
			reason: "the LIST shows Azure's change: the object is requeued with a forced GET, which sees the drift and corrects it",
			kind:   listable, lister: true,
			prep: func(m *machine) {
				m.created(nil)
				if n := m.pass(list(live("location", "northeurope"))); n != 1 {
					m.t.Errorf("observer requeued %d objects, want 1", n)
				}
			},
			calls: []armStep{get(ok(live("location", "northeurope")), nil)},
			want:  machineWant{res: now, events: []string{tEvDrift}, ready: "True " + tSucceeded, ann: map[string]string{tAnnLastApplied: ""}},
		},
		"ListNoChangeNoRequeue": {
			reason: "a LIST that shows what status holds requeues nothing; the next reconcile sends no GET",
			kind:   listable, lister: true,
			prep: func(m *machine) {
				m.created(nil)
				if n := m.pass(list(live())); n != 0 {
					m.t.Errorf("observer requeued %d objects, want 0", n)
				}
			},
			want: machineWant{res: reconcile.Result{}, ready: "True " + tSucceeded},
		},
		"ListLacksResource": {
			reason: "a LIST without the resource requeues it; the GET's 404 (outside the write window) is a deletion outside the operator",
			kind:   listable, lister: true,
			cfg: func(c *Config) { c.ReadAfterWrite = time.Nanosecond },
			prep: func(m *machine) {
				m.created(nil)
				if n := m.pass(list()); n != 1 {
					m.t.Errorf("observer requeued %d objects, want 1", n)
				}
			},
			calls: []armStep{get(nil, notFound)},
			want:  machineWant{ready: "True " + tSucceeded, res: now, events: []string{tEvDrift}, ann: map[string]string{tAnnLastApplied: ""}},
		},
		"ListFailsReadsEach": {
			reason: "a LIST that fails requeues every object for its own GET",
			kind:   listable, lister: true,
			prep: func(m *machine) {
				m.created(nil)
				if n := m.pass(armStep{method: "LIST", path: mList, err: armErr(403, "AuthorizationFailed", "no list")}); n != 1 {
					m.t.Errorf("observer requeued %d objects, want 1", n)
				}
			},
			calls: []armStep{get(ok(live()), nil)},
			want:  machineWant{res: reconcile.Result{}, ready: "True " + tSucceeded},
		},
		"DriftByLISTUnderSkip": {
			reason: "under skip the listed object is observed by GET and never corrected",
			kind:   listable, lister: true,
			obj:   withPolicy(tSkip),
			calls: []armStep{get(ok(live("location", "northeurope")), nil)},
			want:  machineWant{res: reconcile.Result{}, ready: "True " + tSucceeded, ann: map[string]string{tAnnLastApplied: ""}},
		},

		// ----- fail: the error table's classes -----
		"RetryTooManyRequests": {
			reason: "429: retried after RetryBackoff, Ready=False, ActionRequired=False",
			calls:  []armStep{get(nil, notFound), put(createBody, nil, armErr(429, "", ""))},
			want:   machineWant{res: after(mRetry), ready: "False TooManyRequests", act: "False", events: []string{"Warning TooManyRequests"}},
		},
		"RetryBackoffDoubles": {
			reason: "a second failure in a row waits twice as long; no second event for the same error",
			prep: func(m *machine) {
				m.run(get(nil, notFound), put(createBody, nil, armErr(500, "InternalServerError", "oops")))
				m.events()
			},
			calls: []armStep{get(nil, notFound), put(createBody, nil, armErr(500, "InternalServerError", "oops"))},
			want:  machineWant{res: after(2 * mRetry), ready: "False InternalServerError"},
		},
		"RetryAfterHonoured": {
			reason: "ARM's Retry-After longer than the backoff is honoured",
			calls:  []armStep{get(nil, notFound), put(createBody, nil, &arm.Error{Status: 429, Code: "SubscriptionRequestsThrottled", RetryAfter: 90 * time.Second})},
			want:   machineWant{res: after(90 * time.Second), ready: "False SubscriptionRequestsThrottled", events: []string{"Warning SubscriptionRequestsThrottled"}},
		},
		"RetryAnotherOperation": {
			reason: "409 AnotherOperationInProgress: retried",
			calls:  []armStep{get(nil, notFound), put(createBody, nil, armErr(409, "AnotherOperationInProgress", "busy"))},
			want:   machineWant{res: after(mRetry), ready: "False AnotherOperationInProgress", act: "False", events: []string{"Warning AnotherOperationInProgress"}},
		},
		"RetryParentNotFound": {
			reason: "a parent created in parallel (ResourceGroupNotFound): retried",
			calls:  []armStep{get(nil, notFound), put(createBody, nil, armErr(404, "ResourceGroupNotFound", "no group"))},
			want:   machineWant{res: after(mRetry), ready: "False ResourceGroupNotFound", act: "False", events: []string{"Warning ResourceGroupNotFound"}},
		},
		"RetryServerErrorKeepsIntent": {
			reason: "a 5xx on the create's PUT leaves the outcome open: the intent stays on the object",
			calls:  []armStep{get(nil, notFound), put(createBody, nil, armErr(502, "BadGateway", "gateway"))},
			want:   machineWant{res: after(mRetry), ready: "False BadGateway", events: []string{"Warning BadGateway"}, ann: map[string]string{tAnnOperation: "*", tAnnARMID: mID}},
		},
		"RetryMalformed": {
			reason: "an answer that is not a JSON object: MalformedAnswer, retried",
			calls:  []armStep{get(nil, notFound), put(createBody, nil, &arm.MalformedError{Method: "PUT", Path: mID, Status: 200, Err: io.ErrUnexpectedEOF})},
			want:   machineWant{res: after(mRetry), ready: "False " + tMalformedAnswer, events: []string{"Warning " + tMalformedAnswer}},
		},
		"NotAnARMAnswer": {
			reason: "an error that is no ARM answer (a connection reset): returned for controller-runtime's backoff, Reconciling",
			calls:  []armStep{get(nil, notFound), put(createBody, nil, errors.New("connection reset by peer"))},
			want:   machineWant{err: "error", ready: "False " + tReconciling, msg: "connection reset"},
		},
		"ObjectChangeTerminal": {
			reason: "400 InvalidParameter: terminal, ActionRequired, the create's intent dropped (ARM refused it)",
			calls:  []armStep{get(nil, notFound), put(createBody, nil, armErr(400, "InvalidParameter", "bad sku"))},
			want:   machineWant{err: "terminal", ready: "False InvalidParameter", act: "True", msg: "bad sku", events: []string{"Warning InvalidParameter"}, ann: map[string]string{tAnnOperation: ""}},
		},
		"ObjectChangeQuota": {
			reason: "OperationNotAllowed about quota: terminal",
			calls:  []armStep{get(nil, notFound), put(createBody, nil, armErr(409, "OperationNotAllowed", "exceeds quota"))},
			want:   machineWant{err: "terminal", ready: "False OperationNotAllowed", act: "True", events: []string{"Warning OperationNotAllowed"}},
		},
		"ObjectChangeUnknown4xx": {
			reason: "a 4xx no row names: terminal, ARM's code as the reason",
			calls:  []armStep{get(nil, notFound), put(createBody, nil, armErr(422, "Unprocessable", "no"))},
			want:   machineWant{err: "terminal", ready: "False Unprocessable", act: "True", events: []string{"Warning Unprocessable"}},
		},
		"ObjectChangeRefusalRemembered": {
			reason: "a refused create is not sent again in the same generation (not even its claim GET)",
			prep: func(m *machine) {
				m.run(get(nil, notFound), put(createBody, nil, armErr(400, "InvalidParameter", "bad sku")))
				m.events()
			},
			want: machineWant{err: "terminal", ready: "False InvalidParameter", act: "True"},
		},
		"WorldChangeAuthorization": {
			reason: "403 AuthorizationFailed: world-change, retried after WorldBackoff, ActionRequired",
			calls:  []armStep{get(nil, notFound), put(createBody, nil, armErr(403, "AuthorizationFailed", "no role"))},
			want:   machineWant{res: after(mWorld), ready: "False AuthorizationFailed", act: "True", msg: "Grant the operator", events: []string{"Warning AuthorizationFailed"}},
		},
		"WorldChangeRegistration": {
			reason: "MissingSubscriptionRegistration: world-change; the condition says how to register",
			calls:  []armStep{get(nil, notFound), put(createBody, nil, armErr(409, "MissingSubscriptionRegistration", "not registered"))},
			want:   machineWant{res: after(mWorld), ready: "False MissingSubscriptionRegistration", act: "True", msg: "az provider register", events: []string{"Warning MissingSubscriptionRegistration"}},
		},
		"WorldChangeForbidden": {
			reason: "a 403 without a code: Forbidden",
			calls:  []armStep{get(nil, armErr(403, "", ""))},
			want:   machineWant{res: after(mWorld), ready: "False Forbidden", act: "True", events: []string{"Warning Forbidden"}},
		},
		"WorldChangeToken": {
			reason: "the credential gets no token: CredentialRejected, world-change",
			calls:  []armStep{get(nil, &arm.TokenError{Err: errors.New("AADSTS7000215: invalid client secret")})},
			want:   machineWant{res: after(mWorld), ready: "False CredentialRejected", act: "True", msg: "AADSTS7000215", events: []string{"Warning CredentialRejected"}},
		},
		"NameTaken": {
			reason: "StorageAccountAlreadyTaken: name-taken, retried after NameTakenBackoff, the hint says choose another name",
			calls:  []armStep{get(nil, notFound), put(createBody, nil, armErr(409, "StorageAccountAlreadyTaken", "taken"))},
			want:   machineWant{res: after(mTaken), ready: "False StorageAccountAlreadyTaken", act: "True", msg: "spec.azureName", events: []string{"Warning StorageAccountAlreadyTaken"}},
		},
		"NameTakenSoftDeleted": {
			reason: "a soft-deleted vault's name: name-taken, the hint says recover or purge",
			calls:  []armStep{get(nil, notFound), put(createBody, nil, armErr(409, "ConflictError", "a vault with this name is in soft deleted state"))},
			want:   machineWant{res: after(mTaken), ready: "False ConflictError", act: "True", msg: "purge", events: []string{"Warning ConflictError"}},
		},
		"UpdateErrorTerminal": {
			reason: "a PATCH refused (object-change): terminal; last-applied keeps the body Azure has",
			prep:   createdThen(withTier("Hot")),
			calls:  []armStep{patch(`{"properties":{"tier":"Hot"}}`, nil, armErr(400, "BadRequest", "no Hot here"))},
			want:   machineWant{err: "terminal", ready: "False BadRequest", act: "True", events: []string{"Warning BadRequest"}, check: noText(`\"tier\":\"Hot\"`)},
		},

		// ----- finalize -----
		"DeleteSync": {
			reason: "deleting: DELETE, the finalizer removed, the object gone",
			prep:   func(m *machine) { m.created(nil); m.delete() },
			calls:  []armStep{del(ok(nil), nil)},
			want:   machineWant{res: reconcile.Result{}, events: []string{tEvDeleted}, fin: "gone"},
		},
		"DeleteMissingResource": {
			reason: "a resource already gone: the client answers a DELETE of it as done (204); the finalizer removed",
			prep:   func(m *machine) { m.created(nil); m.delete() },
			calls:  []armStep{del(noContent(), nil)},
			want:   machineWant{events: []string{tEvDeleted}, fin: "gone"},
		},
		"DeleteAsync": {
			reason: "a DELETE that starts an operation: recorded on the object, polled; the finalizer stays",
			prep:   func(m *machine) { m.created(nil); m.delete() },
			calls:  []armStep{del(accepted("op-d"), nil)},
			want:   machineWant{ready: "True " + tSucceeded, res: after(mPoll), fin: "kept", ann: map[string]string{tAnnOperation: `"verb":"DELETE"`}},
		},
		"DeleteAsyncPollDone": {
			reason: "the DELETE's operation ends: Deleted, the finalizer removed",
			prep:   deletingAsync,
			calls:  []armStep{poll("op-d", noContent(), nil)},
			want:   machineWant{events: []string{tEvDeleted}, fin: "gone"},
		},
		"DeleteAsyncPollInProgress": {
			reason: "a DELETE in progress is polled, not sent again",
			prep:   deletingAsync,
			calls:  []armStep{poll("op-d", accepted("op-d"), nil)},
			want:   machineWant{ready: "True " + tSucceeded, res: after(mPoll), fin: "kept"},
		},
		"DeleteAsyncAfterRestart": {
			reason: "after a restart the DELETE's operation is read from the object and polled, not re-sent",
			prep:   func(m *machine) { deletingAsync(m); m.restart() },
			calls:  []armStep{poll("op-d", noContent(), nil)},
			want:   machineWant{events: []string{tEvDeleted}, fin: "gone"},
		},
		"DeleteAsyncPollFails": {
			reason: "a DELETE's operation that fails: the operation dropped, shown as a refused DELETE is (Ready False with ARM's code, retried with backoff); the finalizer stays (the next reconcile sends DELETE again)",
			prep:   deletingAsync,
			calls:  []armStep{poll("op-d", nil, armErr(409, "CannotDeleteResource", "children"))},
			want:   machineWant{res: after(mRetry), ready: "False CannotDeleteResource", fin: "kept", ann: map[string]string{tAnnOperation: ""}, events: []string{"Warning CannotDeleteResource"}},
		},
		"DeleteAsyncPollNotFound": {
			reason: "the poll of a DELETE answered 404 (ARM forgot the operation): the operation dropped, the resource read; gone: Deleted, the finalizer removed",
			prep:   deletingAsync,
			calls:  []armStep{poll("op-d", nil, notFound), get(nil, notFound)},
			want:   machineWant{events: []string{tEvDeleted}, fin: "gone"},
		},
		"DeleteAsyncPollNotFoundStillThere": {
			reason: "the poll of a DELETE answered 404 and the resource is still there: the operation dropped, requeued at once; the finalizer stays (the next reconcile sends DELETE again)",
			prep:   deletingAsync,
			calls:  []armStep{poll("op-d", nil, notFound), get(ok(nil), nil)},
			want:   machineWant{ready: "True " + tSucceeded, res: reconcile.Result{Requeue: true}, fin: "kept", ann: map[string]string{tAnnOperation: ""}},
		},
		"DeleteRetried": {
			reason: "a DELETE answered CannotDeleteResource (children going): retried with backoff, the finalizer stays",
			prep:   func(m *machine) { m.created(nil); m.delete() },
			calls:  []armStep{del(nil, armErr(409, "CannotDeleteResource", "links exist"))},
			want:   machineWant{res: after(mRetry), ready: "False CannotDeleteResource", fin: "kept", events: []string{"Warning CannotDeleteResource"}},
		},
		"DeleteRefused": {
			reason: "a DELETE refused (object-change): terminal, the finalizer stays",
			prep:   func(m *machine) { m.created(nil); m.delete() },
			calls:  []armStep{del(nil, armErr(400, "BadRequest", "locked"))},
			want:   machineWant{err: "terminal", ready: "False BadRequest", act: "True", fin: "kept", events: []string{"Warning BadRequest"}},
		},
		"DeleteWhileUpdateInFlight": {
			reason: "deleting with an update in flight: DELETE anyway (ARM serialises)",
			prep:   func(m *machine) { patching(m); m.delete() },
			calls:  []armStep{del(ok(nil), nil)},
			want:   machineWant{events: []string{tEvDeleted}, fin: "gone"},
		},
		"DeleteNeverCreated": {
			reason: "an object that never claimed an id: nothing to delete, the finalizer removed",
			prep:   func(m *machine) { m.delete() },
			want:   machineWant{fin: "gone"},
		},
		"DeleteKindWithoutDELETE": {
			reason: "a kind with no DELETE in ARM goes with its parent: NoDelete event, the finalizer removed",
			kind:   noDelete,
			prep:   func(m *machine) { m.created(nil); m.delete() },
			want:   machineWant{events: []string{tEvNoDelete}, fin: "gone"},
		},
		"DeleteWithoutOurFinalizer": {
			reason: "an object going without the operator's finalizer (another keeps it): nothing sent",
			obj:    func(u *unstructured.Unstructured) { u.SetFinalizers([]string{"example.com/keep"}) },
			prep:   func(m *machine) { m.delete() },
			want:   machineWant{fin: "none"},
		},
		"DetachOnDelete": {
			reason: "detach-on-delete: no DELETE; Detached event, the finalizer removed",
			obj:    withPolicy(tDetachOnDelete),
			prep:   func(m *machine) { m.created(nil); m.delete() },
			want:   machineWant{events: []string{tEvDetached}, fin: "gone"},
		},
		"SkipOnDelete": {
			reason: "skip: deleting sends nothing",
			obj:    withPolicy(tSkip),
			prep:   func(m *machine) { m.delete() },
			want:   machineWant{events: []string{tEvDetached}, fin: "gone"},
		},
		"UnknownPolicyOnDelete": {
			reason: "an unknown policy on delete: nothing sent, the finalizer stays, terminal",
			obj:    withPolicy("Manage"),
			prep:   func(m *machine) { m.delete() },
			want:   machineWant{err: "terminal", ready: "False " + tUnknownPolicy, act: "True", fin: "kept", events: []string{"Warning " + tUnknownPolicy}},
		},

		// ----- policies -----
		"PolicyManageExplicit": {
			reason: "manage spelled out is the default",
			obj:    withPolicy(tManage),
			calls:  []armStep{get(nil, notFound), put(createBody, ok(live()), nil), get(ok(live()), nil)},
			want:   machineWant{res: after(mSync), ready: "True " + tSucceeded, events: []string{tEvCreated}},
		},
		"PolicyDetachOnDeleteWrites": {
			reason: "detach-on-delete creates like manage",
			obj:    withPolicy(tDetachOnDelete),
			calls:  []armStep{get(nil, notFound), put(createBody, ok(live()), nil), get(ok(live()), nil)},
			want:   machineWant{res: after(mSync), ready: "True " + tSucceeded, events: []string{tEvCreated}},
		},
		"PolicySkipObserves": {
			reason: "skip: a GET into status, nothing written, no finalizer added",
			obj:    func(u *unstructured.Unstructured) { withPolicy(tSkip)(u); u.SetFinalizers(nil) },
			calls:  []armStep{get(ok(live()), nil)},
			want:   machineWant{res: after(mSync), ready: "True " + tSucceeded, fin: "none", ann: map[string]string{tAnnARMID: ""}},
		},
		"PolicySkipMissing": {
			reason: "skip of a resource that is not there: NotFound, retried; nothing created",
			obj:    withPolicy(tSkip),
			calls:  []armStep{get(nil, notFound)},
			want:   machineWant{res: after(mRetry), ready: "False ResourceNotFound", events: []string{"Warning ResourceNotFound"}},
		},
		"PolicyPlanCreate": {
			reason: "plan of a new object: what would be sent in the plan annotation, Ready=False Plan, no ARM call",
			obj:    withPolicy(tPlanPolicy),
			want:   machineWant{res: after(mSync), ready: "False " + tPlan, act: "False", ann: map[string]string{tAnnPlan: `"action":"create"`, tAnnARMID: ""}},
		},
		"PolicyPlanUpdate": {
			reason: "plan of a change: the PATCH shown, nothing sent",
			prep: createdThen(func(u *unstructured.Unstructured) {
				withPolicy(tPlanPolicy)(u)
				withTier("Hot")(u)
			}),
			want: machineWant{res: after(mSync), ready: "False " + tPlan, ann: map[string]string{tAnnPlan: `"verb":"PATCH"`}},
		},
		"PolicyUnknown": {
			reason: "an unknown policy: nothing sent, terminal UnknownPolicy",
			obj:    withPolicy("manage "),
			want:   machineWant{err: "terminal", ready: "False " + tUnknownPolicy, act: "True", msg: "nothing is sent", events: []string{"Warning " + tUnknownPolicy}},
		},

		// ----- LRO resume from the annotation -----
		"ResumePolledNotResent": {
			reason: "an operation recorded on the object is polled after a restart, the PATCH not sent again",
			prep:   func(m *machine) { patching(m); m.restart() },
			calls:  []armStep{poll("op-p", ok(live("properties.tier", "Hot")), nil)},
			want:   machineWant{res: after(mSync), ready: "True " + tSucceeded, events: []string{tEvPatched}},
		},
		"ResumeInProgress": {
			reason: "still running: polled again after ARM's Retry-After",
			prep:   patching,
			calls:  []armStep{poll("op-p", &arm.Result{Status: 202, Token: "op-p", RetryAfter: 20 * time.Second}, nil)},
			want:   machineWant{ready: "True " + tSucceeded, res: after(20 * time.Second), ann: map[string]string{tAnnOperation: "op-p"}},
		},
		"ResumeFailed": {
			reason: "the operation Failed: the record dropped, terminal with ARM's code",
			prep:   patching,
			calls:  []armStep{poll("op-p", nil, armErr(400, "InvalidParameter", "tier Hot not allowed"))},
			want:   machineWant{err: "terminal", ready: "False InvalidParameter", act: "True", events: []string{"Warning InvalidParameter"}, ann: map[string]string{tAnnOperation: ""}},
		},
		"ResumeThenInSync": {
			reason: "once the operation is done, the next reconcile has nothing to send",
			prep: func(m *machine) {
				patching(m)
				m.run(poll("op-p", ok(live("properties.tier", "Hot")), nil))
			},
			calls: []armStep{get(ok(live("properties.tier", "Hot")), nil)},
			want:  machineWant{res: after(mSync), ready: "True " + tSucceeded},
		},
		"ResumeLost": {
			reason: "an update whose operation ARM forgot, the resource there: the write counts as done",
			prep:   patching,
			calls:  []armStep{poll("op-p", nil, notFound), get(ok(live("properties.tier", "Hot")), nil)},
			want:   machineWant{res: after(mSync), ready: "True " + tSucceeded, events: []string{tEvLost}, ann: map[string]string{tAnnLastApplied: `"tier":"Hot"`, tAnnOperation: ""}},
		},

		// ----- adoption -----
		"AdoptInSync": {
			reason: "spec.resourceID of a resource that matches the spec: recorded, nothing written",
			obj:    func(u *unstructured.Unstructured) { setSpec(u, mID, "resourceID") },
			calls:  []armStep{get(ok(live()), nil), get(ok(live()), nil)},
			want:   machineWant{res: after(mSync), ready: "True " + tSucceeded, ann: map[string]string{tAnnLastApplied: "*", tAnnARMID: mID}},
		},
		"AdoptDiffers": {
			reason: "an adopted resource that differs: only the difference is PATCHed",
			obj: func(u *unstructured.Unstructured) {
				setSpec(u, mID, "resourceID")
				withTier("Hot")(u)
			},
			calls: []armStep{get(ok(live("properties.tier", "Cool", "tags", map[string]any{"a": "b"})), nil), patch(`{"properties":{"tier":"Hot"}}`, ok(live("properties.tier", "Hot")), nil), get(ok(live("properties.tier", "Hot")), nil)},
			want:  machineWant{res: after(mSync), ready: "True " + tSucceeded, events: []string{tEvPatched}},
		},
		"AdoptMissing": {
			reason: "spec.resourceID of a resource that does not exist: never created, AzureResourceNotFound",
			obj:    func(u *unstructured.Unstructured) { setSpec(u, mID, "resourceID") },
			calls:  []armStep{get(nil, notFound)},
			want:   machineWant{res: after(mSync), ready: "False " + tAzureResourceNotFound, act: "True"},
		},
		"AdoptedDeleteUsesResourceID": {
			reason: "deleting an adopted object deletes spec.resourceID",
			obj:    func(u *unstructured.Unstructured) { setSpec(u, mID, "resourceID") },
			prep: func(m *machine) {
				m.run(get(ok(live()), nil), get(ok(live()), nil))
				m.delete()
			},
			calls: []armStep{del(noContent(), nil)},
			want:  machineWant{events: []string{tEvDeleted}, fin: "gone"},
		},

		// ----- embedded children -----
		"EmbeddedCreate": {
			reason: "a create sends the spec's children",
			kind:   withParts, obj: withParts1,
			calls: []armStep{get(nil, notFound), put(`{"location":"westeurope","properties":{"parts":[{"name":"a","size":1}]}}`, ok(live("properties.parts", []any{livePart("a", 1)})), nil), get(ok(live("properties.parts", []any{livePart("a", 1)})), nil)},
			want:  machineWant{res: after(mSync), ready: "True " + tSucceeded, events: []string{tEvCreated}},
		},
		"EmbeddedLiveChildNoDrift": {
			reason: "a live child the spec does not name (created as its own resource) is no drift",
			kind:   withParts, obj: withParts1,
			prep: func(m *machine) {
				m.created(live("properties.parts", []any{livePart("a", 1)}))
			},
			calls: []armStep{get(ok(live("properties.parts", []any{livePart("a", 1), livePart("b", 2)})), nil)},
			want:  machineWant{res: after(mSync), ready: "True " + tSucceeded},
		},
		"EmbeddedChangeKeepsLiveChildren": {
			reason: "a change of the collection reads the live children and sends them merged: the child the spec does not name is kept",
			kind:   withParts, obj: withParts1,
			prep: func(m *machine) {
				m.created(live("properties.parts", []any{livePart("a", 1)}))
				m.edit(func(u *unstructured.Unstructured) { setSpec(u, []any{part("a", 5)}, "properties", "parts") })
			},
			calls: []armStep{
				get(ok(live("properties.parts", []any{livePart("a", 1), livePart("b", 2)})), nil),
				patch(`{"properties":{"parts":[{"name":"a","size":5},{"name":"b","size":2}]}}`, ok(live()), nil),
				get(ok(live("properties.parts", []any{livePart("a", 5), livePart("b", 2)})), nil),
			},
			want: machineWant{res: after(mSync), ready: "True " + tSucceeded, events: []string{tEvPatched}},
		},
		"EmbeddedDriftDecidedOnLive": {
			reason: "after drift (last-applied dropped) a kind with children decides against the live body: only the difference, children kept",
			kind:   withParts, obj: withParts1,
			prep: func(m *machine) {
				m.created(live("properties.parts", []any{livePart("a", 1)}))
				m.run(get(ok(live("properties.parts", []any{livePart("a", 9), livePart("b", 2)})), nil))
			},
			calls: []armStep{
				get(ok(live("properties.parts", []any{livePart("a", 9), livePart("b", 2)})), nil),
				patch(`{"properties":{"parts":[{"name":"a","size":1},{"name":"b","size":2}]}}`, ok(live()), nil),
				get(ok(live("properties.parts", []any{livePart("a", 1), livePart("b", 2)})), nil),
			},
			want: machineWant{res: after(mSync), ready: "True " + tSucceeded, events: []string{tEvPatched}},
		},
		// ----- the kind's hooks and status reads -----
		"HookMutatesBody": {
			reason: "the kind's MutateBody hook changes what is sent",
			hooks: &Hooks{MutateBody: func(_ *unstructured.Unstructured, b map[string]any) error {
				b["tags"] = map[string]any{"by": "hook"}
				return nil
			}},
			calls: []armStep{get(nil, notFound), put(`{"location":"westeurope","tags":{"by":"hook"}}`, ok(live()), nil), get(ok(live("tags", map[string]any{"by": "hook"})), nil)},
			want:  machineWant{res: after(mSync), ready: "True " + tSucceeded, events: []string{tEvCreated}},
		},
		"HookClassifiesTerminal": {
			reason: "the kind's ClassifyError makes a 500 the user's to fix: terminal with the hook's reason",
			hooks:  &Hooks{ClassifyError: func(error) (bool, string, bool) { return true, "BadPlan", true }},
			calls:  []armStep{get(nil, notFound), put(createBody, nil, armErr(500, "InternalServerError", "plan"))},
			want:   machineWant{err: "terminal", ready: "False BadPlan", act: "True", events: []string{"Warning BadPlan"}},
		},
		"HookClassifiesTransient": {
			reason: "the kind's ClassifyError makes a 400 transient: Reconciling, returned for controller-runtime's backoff",
			hooks:  &Hooks{ClassifyError: func(error) (bool, string, bool) { return false, "", true }},
			calls:  []armStep{get(nil, notFound), put(createBody, nil, armErr(400, "InvalidParameter", "not yet"))},
			want:   machineWant{err: "error", ready: "False " + tReconciling, msg: "not yet"},
		},
		"HookStatus": {
			reason: "the kind's Status hook adds to status",
			hooks: &Hooks{Status: func(_ *unstructured.Unstructured, st map[string]any) error {
				st["fromHook"] = "yes"
				return nil
			}},
			prep:  created,
			calls: []armStep{get(ok(live()), nil)},
			want: machineWant{res: after(mSync), ready: "True " + tSucceeded, check: func(t *testing.T, u *unstructured.Unstructured) {
				if v, _, _ := unstructured.NestedString(u.Object, "status", "fromHook"); v != "yes" {
					t.Errorf("status.fromHook %q", v)
				}
			}},
		},
		"HookStatusFails": {
			reason: "a Status hook that fails: the error is returned (not an ARM answer)",
			hooks:  &Hooks{Status: func(*unstructured.Unstructured, map[string]any) error { return errors.New("hook broke") }},
			prep: func(m *machine) {
				m.run(get(nil, notFound), put(createBody, ok(live()), nil), get(ok(live()), nil))
			},
			calls: []armStep{get(ok(live()), nil)},
			want:  machineWant{err: "error", ready: "False " + tReconciling, msg: "hook broke"},
		},
		"StatusGETJoined": {
			reason: "the kind's extra status read is joined into status under its field",
			kind: func(d *descriptor.Descriptor) {
				d.StatusGETs = []descriptor.Action{{Name: "instanceView", StatusField: "instanceView"}}
			},
			prep: func(m *machine) {
				m.run(get(nil, notFound), put(createBody, ok(live()), nil), get(ok(live()), nil), armStep{method: "GET", path: mID + "/instanceView", err: notFound})
			},
			calls: []armStep{get(ok(live()), nil), armStep{method: "GET", path: mID + "/instanceView", res: ok(map[string]any{"state": "running"})}},
			want: machineWant{res: after(mSync), ready: "True " + tSucceeded, check: func(t *testing.T, u *unstructured.Unstructured) {
				if v, _, _ := unstructured.NestedString(u.Object, "status", "instanceView", "state"); v != "running" {
					t.Errorf("status.instanceView.state %q", v)
				}
			}},
		},
		"IgnoredDriftReported": {
			reason: "drift at a path of spec.operatorSpec.ignoreChanges is reported in Ready's message, never corrected",
			obj: func(u *unstructured.Unstructured) {
				withTier("Hot")(u)
				setSpec(u, map[string]any{"ignoreChanges": []any{"properties.tier"}}, "operatorSpec")
			},
			prep: func(m *machine) {
				m.created(live("properties.tier", "Hot"))
			},
			calls: []armStep{get(ok(live("properties.tier", "Cool")), nil)},
			want:  machineWant{res: after(mSync), ready: "True " + tSucceeded, msg: "ignoreChanges", ann: map[string]string{tAnnOperation: "*"}},
		},
		"IgnoredPathAfterDrift": {
			reason: "after drift elsewhere, a kind with ignored paths decides against the live body: the ignored value is not sent back",
			obj: func(u *unstructured.Unstructured) {
				withTier("Hot")(u)
				setSpec(u, map[string]any{"ignoreChanges": []any{"properties.tier"}}, "operatorSpec")
			},
			prep: func(m *machine) {
				m.created(live("properties.tier", "Hot"))
				m.run(get(ok(live("properties.tier", "Cool", "location", "northeurope")), nil))
			},
			calls: []armStep{
				get(ok(live("properties.tier", "Cool", "location", "northeurope")), nil),
				patch(`{"location":"westeurope"}`, ok(live("properties.tier", "Cool")), nil),
				get(ok(live("properties.tier", "Cool")), nil),
			},
			want: machineWant{res: after(mSync), ready: "True " + tSucceeded, msg: "ignoreChanges", events: []string{tEvPatched}},
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			if c.skip != "" && os.Getenv("MACHINE_SKIPPED") == "" {
				t.Skip(c.skip)
			}
			d := generatedGadget()
			if c.kind != nil {
				c.kind(d)
			}
			if c.hooks != nil {
				d.Kind = "HookedGadget"
			}
			cfg := machineConfig()
			if c.cfg != nil {
				c.cfg(&cfg)
			}
			obj := gadgetObject(mName)
			if c.obj != nil {
				c.obj(obj)
			}
			m := newMachine(t, d, cfg, c.lister, obj)
			if c.hooks != nil {
				m.hooks = *c.hooks
				m.restart()
			}
			if c.prep != nil {
				c.prep(m)
			}
			if t.Failed() {
				t.FailNow()
			}
			m.events()
			res, err := m.run(c.calls...)
			m.check(c.reason, c.want, res, err)
		})
	}
}

// noText checks that the object's annotations hold no s.
func noText(s string) func(t *testing.T, u *unstructured.Unstructured) {
	return func(t *testing.T, u *unstructured.Unstructured) {
		for k, v := range u.GetAnnotations() {
			if strings.Contains(v, s) {
				t.Errorf("annotation %s holds %q: %s", k, s, v)
			}
		}
	}
}

// check compares the end of the checked reconcile with w.
func (m *machine) check(reason string, w machineWant, res reconcile.Result, err error) {
	t := m.t
	t.Helper()
	res.RequeueAfter = res.RequeueAfter.Round(time.Millisecond)
	if res != w.res {
		t.Errorf("%s\nresult %+v, want %+v", reason, res, w.res)
	}
	switch {
	case w.err == "" && err != nil:
		t.Errorf("error %v, want none", err)
	case w.err == "terminal" && !errors.Is(err, reconcile.TerminalError(nil)):
		t.Errorf("error %v, want a terminal error", err)
	case w.err == "error" && (err == nil || errors.Is(err, reconcile.TerminalError(nil))):
		t.Errorf("error %v, want a retried (not terminal) error", err)
	}
	if got := m.events(); !sameEvents(got, w.events) {
		t.Errorf("%s\nevents %q, want %q", reason, got, w.events)
	}
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(m.d.GroupVersionKind())
	gone := m.c.Get(t.Context(), client.ObjectKeyFromObject(m.obj), u) != nil
	switch {
	case w.fin == "gone":
		if !gone {
			t.Errorf("the object is still there (finalizers %v)", u.GetFinalizers())
		}
		return
	case gone:
		t.Fatalf("the object is gone")
	case w.fin == "kept" && !slices.Contains(u.GetFinalizers(), tFinalizer):
		t.Errorf("finalizers %v, want %s", u.GetFinalizers(), tFinalizer)
	case w.fin == "none" && slices.Contains(u.GetFinalizers(), tFinalizer):
		t.Errorf("finalizers %v, want no %s", u.GetFinalizers(), tFinalizer)
	}
	ready := condOf(u, tReady)
	switch {
	case w.ready == "" && ready != nil:
		t.Errorf("%s\nReady %v, want none", reason, ready)
	case w.ready != "" && ready == nil:
		t.Errorf("%s\nno Ready, want %s", reason, w.ready)
	case w.ready != "":
		if got := ready["status"].(string) + " " + ready["reason"].(string); got != w.ready {
			t.Errorf("%s\nReady %q (%v), want %q", reason, got, ready["message"], w.ready)
		}
		if msg, _ := ready["message"].(string); !strings.Contains(msg, w.msg) {
			t.Errorf("Ready message %q, want it to say %q", msg, w.msg)
		}
	}
	if w.act != "" {
		if act := condOf(u, tActionRequired); act == nil || act["status"] != w.act {
			t.Errorf("ActionRequired %v, want %s", act, w.act)
		}
	}
	for k, v := range w.ann {
		got, ok := u.GetAnnotations()[k]
		switch {
		case v == "" && ok:
			t.Errorf("annotation %s = %s, want none", k, got)
		case v == "*" && !ok, v != "" && v != "*" && !strings.Contains(got, v):
			t.Errorf("annotation %s = %q, want %q", k, got, v)
		}
	}
	if w.check != nil {
		w.check(t, u)
	}
}

// sameEvents compares recorded events ("<type> <reason> <message>") with
// the wanted "<type> <reason>" list.
func sameEvents(got, want []string) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if got[i] != want[i] && !strings.HasPrefix(got[i], want[i]+" ") {
			return false
		}
	}
	return true
}
