package reconciler

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"

	"github.com/armature-dev/armature/runtime/arm"
	"github.com/armature-dev/armature/runtime/descriptor"
)

// Reconciler makes one kind's Azure resources match their custom resources.
type Reconciler struct {
	// Client reads and writes custom resources.
	Client client.Client
	// ARM talks to Azure.
	ARM arm.Client
	// Desc describes the kind.
	Desc *descriptor.Descriptor
	// OwnerVersion is the served version of the owner kind, when the owner
	// is generated.
	OwnerVersion string
	// APIReader reads from the apiserver, not the cache: before a write to
	// ARM the reconciler checks that its cached copy is not stale (a stale
	// copy without the last operation would send it twice).
	APIReader client.Reader
	// Recorder records events.
	Recorder record.EventRecorder
	// Config holds the settings; Default() is applied by New.
	Config Config

	// versions are the reconcilers of the kind's other served versions
	// (set on the storage version's reconciler by SetupAll): an object the
	// user writes in another version is reconciled in that version.
	versions map[string]*Reconciler

	// written holds, per object UID, the resourceVersion of this
	// reconciler's last write to the object (uint64): a cached copy older
	// than that is stale, and a fresh one needs no uncached read.
	written sync.Map
}

// New returns a reconciler for one kind.
func New(c client.Client, armClient arm.Client, d *descriptor.Descriptor, ownerVersion string, rec record.EventRecorder, cfg Config) *Reconciler {
	return &Reconciler{Client: c, ARM: armClient, Desc: d, OwnerVersion: ownerVersion, Recorder: rec, Config: cfg.Default()}
}

func (r *Reconciler) gvk() schema.GroupVersionKind { return r.Desc.GroupVersionKind() }

func (r *Reconciler) ownerGVK() schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: r.Desc.OwnerGroup, Version: r.OwnerVersion, Kind: r.Desc.OwnerKind}
}

// Reconcile is the orchestrator of the steps in the package doc.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	obj := &unstructured.Unstructured{}
	obj.SetGroupVersionKind(r.gvk())
	if err := r.Client.Get(ctx, req.NamespacedName, obj); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if done, res, err := r.delegate(ctx, obj, req); done {
		return res, err
	}
	st := newState(obj)
	defer r.remember(st)
	if !obj.GetDeletionTimestamp().IsZero() {
		return r.finalize(ctx, st)
	}
	id, waiting, err := r.resolve(ctx, st)
	if err != nil {
		return r.fail(ctx, st, err)
	}
	if waiting != "" {
		// An owner that exists and is on its way needs no status write for a
		// fresh object: the owner's watch requeues it. A missing owner, or a
		// long wait, is shown.
		if st.ownerExists && time.Since(st.obj.GetCreationTimestamp().Time) < slowOperation && st.orig == nil {
			return reconcile.Result{RequeueAfter: slowOperation}, nil
		}
		st.setCondition(false, ReasonWaitingForOwner, waiting)
		return reconcile.Result{RequeueAfter: r.Config.SyncPeriod}, r.writeStatus(ctx, st)
	}
	if st.policy != PolicySkip && st.policy != PolicyPlan {
		if err := r.ensureFinalizer(ctx, st); err != nil {
			return reconcile.Result{}, err
		}
	}
	if op := st.operation(); op != nil && !st.opDone(op) {
		return r.poll(ctx, st, id, op)
	}
	return r.apply(ctx, st, id)
}

// resolve finds the resource's ARM id; a non-empty waiting says why it
// cannot be known yet.
func (r *Reconciler) resolve(ctx context.Context, st *state) (id, waiting string, err error) {
	s := spec(st.obj)
	if rid, _ := s["resourceID"].(string); rid != "" {
		return rid, "", nil
	}
	name := azureName(st.obj, r.Desc)
	owner, _ := s["owner"].(map[string]any)
	if armID, _ := owner["armId"].(string); armID != "" {
		return r.Desc.ID(armID, name), "", nil
	}
	if ownerName, _ := owner["name"].(string); ownerName != "" && r.Desc.OwnerKind != "" {
		o := &unstructured.Unstructured{}
		o.SetGroupVersionKind(r.ownerGVK())
		if err := r.Client.Get(ctx, client.ObjectKey{Namespace: st.obj.GetNamespace(), Name: ownerName}, o); err != nil {
			if apierrors.IsNotFound(err) {
				return "", fmt.Sprintf("owner %s %q does not exist", r.Desc.OwnerKind, ownerName), nil
			}
			return "", "", err
		}
		st.ownerExists = true
		scope, _, _ := unstructured.NestedString(o.Object, "status", "id")
		if scope == "" || !ready(o) {
			return "", fmt.Sprintf("owner %s %q is not Ready", r.Desc.OwnerKind, ownerName), nil
		}
		st.owner = o
		return r.Desc.ID(scope, name), "", nil
	}
	if strings.EqualFold(r.Desc.OwnerARMType, "Microsoft.Resources/subscriptions") {
		if r.Config.SubscriptionID == "" {
			return "", "", terminal("NoSubscription", "the operator has no subscription id (--subscription-id or AZURE_SUBSCRIPTION_ID) for "+r.Desc.Kind)
		}
		return r.Desc.ID("/subscriptions/"+r.Config.SubscriptionID, name), "", nil
	}
	return "", "", terminal("OwnerRequired", fmt.Sprintf("spec.owner is required: name a %s in this namespace or give its armId", ownerLabel(r.Desc)))
}

func ownerLabel(d *descriptor.Descriptor) string {
	if d.OwnerKind != "" {
		return d.OwnerKind
	}
	if d.OwnerARMType != "" {
		return d.OwnerARMType
	}
	return "scope"
}

// ensureFinalizer persists the finalizer (and the Kubernetes owner
// reference) before anything is written to ARM.
func (r *Reconciler) ensureFinalizer(ctx context.Context, st *state) error {
	base := st.obj.DeepCopy()
	changed := controllerutil.AddFinalizer(st.obj, Finalizer)
	if st.owner != nil {
		refs := st.obj.GetOwnerReferences()
		found := false
		for _, ref := range refs {
			found = found || ref.UID == st.owner.GetUID()
		}
		if !found {
			st.obj.SetOwnerReferences(append(refs, ownerRef(st.owner)))
			changed = true
		}
	}
	if !changed {
		return nil
	}
	return r.Client.Patch(ctx, st.obj, client.MergeFrom(base))
}

// desired builds the ARM body from spec, resolving Secret references.
func (r *Reconciler) desired(ctx context.Context, st *state) (map[string]any, error) {
	body := runtime.DeepCopyJSON(spec(st.obj))
	for _, f := range operatorFields {
		delete(body, f)
	}
	var err error
	r.Desc.Walk(body, func(n descriptor.Node) bool {
		if err != nil || !n.Known || n.Class != descriptor.Secret {
			return true
		}
		ref, ok := n.Parent[n.Key].(map[string]any)
		if !ok {
			return false
		}
		name, _ := ref["name"].(string)
		key, _ := ref["key"].(string)
		var s corev1.Secret
		if e := r.Client.Get(ctx, client.ObjectKey{Namespace: st.obj.GetNamespace(), Name: name}, &s); e != nil {
			err = fmt.Errorf("secret %q for spec.%s: %w", name, n.Path, e)
			return false
		}
		v, ok := s.Data[key]
		if !ok {
			err = terminal("SecretKeyNotFound", fmt.Sprintf("secret %q has no key %q (spec.%s)", name, key, n.Path))
			return false
		}
		n.Parent[n.Key] = string(v)
		return false
	})
	if err == nil {
		if hook := hooksFor(r.gvk()); hook.MutateBody != nil {
			err = hook.MutateBody(st.obj, body)
		}
	}
	return body, err
}

// apply writes to ARM what changed since the last applied body, then
// observes.
func (r *Reconciler) apply(ctx context.Context, st *state, id string) (reconcile.Result, error) {
	if st.policy == PolicySkip {
		return r.observe(ctx, st, id, nil)
	}
	desired, err := r.desired(ctx, st)
	if err != nil {
		return r.fail(ctx, st, err)
	}
	applied := mustJSON(hashSecrets(r.Desc, desired))
	last := st.lastApplied()
	adopt, _ := spec(st.obj)["resourceID"].(string)
	if last == "" && adopt != "" {
		if _, err := r.armCall(ctx, http.MethodGet, id, nil); err != nil {
			if arm.IsNotFound(err) {
				st.userMustAct(ReasonAzureResourceNotFound, fmt.Sprintf("spec.resourceID %s does not exist; it is never created", adopt))
				return reconcile.Result{RequeueAfter: r.Config.SyncPeriod}, r.writeStatus(ctx, st)
			}
			return r.fail(ctx, st, err)
		}
	}
	verb, payload := "", []byte(nil)
	switch {
	case last == "":
		verb, payload = http.MethodPut, []byte(mustJSON(desired))
	case last != applied:
		patch, err := jsonpatch.CreateMergePatch([]byte(last), []byte(applied))
		if err != nil {
			return reconcile.Result{}, err
		}
		var pm map[string]any
		_ = json.Unmarshal(patch, &pm)
		fillFrom(pm, desired)
		if r.Desc.HasVerb(http.MethodPatch) && !r.Desc.PatchTagsOnly {
			verb, payload = http.MethodPatch, []byte(mustJSON(pm))
		} else {
			// No PATCH for this change: GET, apply the patch, PUT, so
			// what others set in Azure outside the spec is kept.
			body, err := r.liveWithPatch(ctx, st, id, pm)
			if err != nil {
				return r.fail(ctx, st, err)
			}
			verb, payload = http.MethodPut, []byte(mustJSON(body))
		}
	}
	if verb == "" {
		return r.observe(ctx, st, id, desired)
	}
	if st.policy == PolicyPlan {
		return r.plan(ctx, st, id, verb, payload, last == "")
	}
	if stale, err := r.stale(ctx, st); err != nil || stale {
		return reconcile.Result{Requeue: stale}, err
	}
	res, err := r.armCall(ctx, verb, id, payload)
	if err != nil {
		return r.fail(ctx, st, err)
	}
	if !res.Done() {
		return r.startOperation(ctx, st, id, verb, res, applied)
	}
	if err := r.recordApplied(ctx, st, id, applied, nil); err != nil {
		return reconcile.Result{}, err
	}
	r.event(st, corev1.EventTypeNormal, verbReason(verb, last == ""), fmt.Sprintf("%s %s", verb, id))
	return r.observe(ctx, st, id, desired)
}

// liveWithPatch GETs the resource, drops what a request must not carry
// (readOnly values) and applies the merge patch.
func (r *Reconciler) liveWithPatch(ctx context.Context, st *state, id string, patch map[string]any) (map[string]any, error) {
	if st.policy == PolicyPlan {
		return patch, nil
	}
	res, err := r.armCall(ctx, http.MethodGet, id, nil)
	if err != nil {
		return nil, err
	}
	live := res.Body
	if live == nil {
		live = map[string]any{}
	}
	r.Desc.Walk(live, func(n descriptor.Node) bool {
		if !n.Known || n.Class == descriptor.ReadOnly {
			delete(n.Parent, n.Key)
			return false
		}
		return true
	})
	pb, err := json.Marshal(patch)
	if err != nil {
		return nil, err
	}
	merged, err := jsonpatch.MergePatch([]byte(mustJSON(live)), pb)
	if err != nil {
		return nil, err
	}
	var out map[string]any
	return out, json.Unmarshal(merged, &out)
}

// stale reports whether the apiserver has newer reconciler annotations than
// the cached object.
//
// When this reconciler wrote the object since the operator started, the
// cached copy's resourceVersion answers without a read: older than our
// write means stale. (resourceVersions are etcd revisions, compared as
// numbers; one that does not parse falls back to the read.)
func (r *Reconciler) stale(ctx context.Context, st *state) (bool, error) {
	if st.obj.GetResourceVersion() != st.readVersion {
		return false, nil // written in this reconcile: obj is the apiserver's answer
	}
	if v, ok := r.written.Load(st.obj.GetUID()); ok {
		if cur, err := strconv.ParseUint(st.obj.GetResourceVersion(), 10, 64); err == nil {
			return cur < v.(uint64), nil
		}
	}
	if r.APIReader == nil {
		return false, nil
	}
	fresh := &unstructured.Unstructured{}
	fresh.SetGroupVersionKind(r.gvk())
	if err := r.APIReader.Get(ctx, client.ObjectKeyFromObject(st.obj), fresh); err != nil {
		return false, client.IgnoreNotFound(err)
	}
	for _, k := range []string{AnnotationOperation, AnnotationLastApplied} {
		if fresh.GetAnnotations()[k] != st.obj.GetAnnotations()[k] {
			return true, nil
		}
	}
	return false, nil
}

// remember records the resourceVersion of the reconciler's last write to
// obj (when the reconcile wrote it), and forgets objects that are gone.
func (r *Reconciler) remember(st *state) {
	obj := st.obj
	if !obj.GetDeletionTimestamp().IsZero() && !controllerutil.ContainsFinalizer(obj, Finalizer) {
		r.written.Delete(obj.GetUID())
		return
	}
	if rv := obj.GetResourceVersion(); rv != st.readVersion {
		if n, err := strconv.ParseUint(rv, 10, 64); err == nil {
			r.written.Store(obj.GetUID(), n)
		}
	}
}

func verbReason(verb string, create bool) string {
	switch {
	case create:
		return "Created"
	case verb == http.MethodPatch:
		return "Patched"
	}
	return "Updated"
}

// plan writes what would be sent to the plan annotation.
func (r *Reconciler) plan(ctx context.Context, st *state, id, verb string, payload []byte, create bool) (reconcile.Result, error) {
	action := "update"
	if create {
		action = "create"
	}
	p := mustJSON(map[string]any{"action": action, "verb": verb, "id": id, "body": json.RawMessage(payload)})
	base := st.obj.DeepCopy()
	setAnnotation(st.obj, AnnotationPlan, p)
	if err := r.Client.Patch(ctx, st.obj, client.MergeFrom(base)); err != nil {
		return reconcile.Result{}, err
	}
	st.setCondition(false, ReasonPlan, fmt.Sprintf("plan: %s (%s %s); nothing was sent", action, verb, id))
	var plan map[string]any
	_ = json.Unmarshal([]byte(p), &plan)
	st.plan = plan
	return reconcile.Result{RequeueAfter: r.syncPeriod(st)}, r.writeStatus(ctx, st)
}

// startOperation keeps the operation on the object and requeues.
func (r *Reconciler) startOperation(ctx context.Context, st *state, id, verb string, res *arm.Result, applied string) (reconcile.Result, error) {
	base := st.obj.DeepCopy()
	setAnnotation(st.obj, AnnotationOperation, mustJSON(operation{Verb: verb, Token: res.Token, Applied: applied, Started: time.Now().UTC().Format(time.RFC3339)}))
	setAnnotation(st.obj, AnnotationARMID, id)
	if err := r.Client.Patch(ctx, st.obj, client.MergeFrom(base)); err != nil {
		return reconcile.Result{}, err
	}
	inflight.Inc()
	r.event(st, corev1.EventTypeNormal, "OperationStarted", fmt.Sprintf("%s %s is a long-running operation", verb, id))
	return reconcile.Result{RequeueAfter: r.pollAfter(res)}, nil
}

func (r *Reconciler) pollAfter(res *arm.Result) time.Duration {
	if res != nil && res.RetryAfter > 0 {
		return res.RetryAfter
	}
	return r.Config.PollInterval
}

// poll advances the operation in flight once.
func (r *Reconciler) poll(ctx context.Context, st *state, id string, op *operation) (reconcile.Result, error) {
	res, err := r.ARM.Poll(ctx, op.Token)
	observeARM("POLL", err)
	if err != nil {
		if arm.IsRetryable(err) {
			return reconcile.Result{}, err
		}
		base := st.obj.DeepCopy()
		removeAnnotation(st.obj, AnnotationOperation)
		inflight.Dec()
		if perr := r.Client.Patch(ctx, st.obj, client.MergeFrom(base)); perr != nil {
			return reconcile.Result{}, perr
		}
		if op.Verb == http.MethodDelete {
			return reconcile.Result{}, err
		}
		return r.fail(ctx, st, err)
	}
	if !res.Done() {
		// The stored token stays: it resumes polling at the same URL. (azcore
		// re-encodes the poller state on every poll; saving each would cost
		// an apiserver write per poll.)
		started, _ := time.Parse(time.RFC3339, op.Started)
		if time.Since(started) < slowOperation {
			return reconcile.Result{RequeueAfter: r.pollAfter(res)}, nil
		}
		st.setCondition(false, ReasonReconciling, fmt.Sprintf("%s %s in progress since %s", op.Verb, id, op.Started))
		return reconcile.Result{RequeueAfter: r.pollAfter(res)}, r.writeStatus(ctx, st)
	}
	inflight.Dec()
	if op.Verb == http.MethodDelete {
		return r.removeFinalizer(ctx, st)
	}
	// The operation's end is recorded in status (lastOperation), written
	// with the rest of status: no metadata write. Its body counts as the
	// last-applied one until the next write replaces both annotations.
	st.lastOp = opHash(op)
	r.event(st, corev1.EventTypeNormal, "OperationSucceeded", fmt.Sprintf("%s %s succeeded", op.Verb, id))
	if res.Body != nil && res.Body["id"] == nil {
		res = nil // not the resource (an operation status body)
	}
	return r.observeWith(ctx, st, id, nil, res)
}

// recordApplied stores the last-applied body and the ARM id.
func (r *Reconciler) recordApplied(ctx context.Context, st *state, id, applied string, more func(*unstructured.Unstructured)) error {
	base := st.obj.DeepCopy()
	setAnnotation(st.obj, AnnotationLastApplied, applied)
	setAnnotation(st.obj, AnnotationARMID, id)
	removeAnnotation(st.obj, AnnotationOperation) // a completed one
	if more != nil {
		more(st.obj)
	}
	return r.Client.Patch(ctx, st.obj, client.MergeFrom(base))
}

// observe GETs the resource into status, corrects drift and requeues after
// the sync period.
func (r *Reconciler) observe(ctx context.Context, st *state, id string, desired map[string]any) (reconcile.Result, error) {
	return r.observeWith(ctx, st, id, desired, nil)
}

// observeWith is observe with the resource already read (the final poll of
// an operation returns it): no second GET.
func (r *Reconciler) observeWith(ctx context.Context, st *state, id string, desired map[string]any, read *arm.Result) (reconcile.Result, error) {
	res, err := read, error(nil)
	if res == nil || res.Body == nil {
		res, err = r.armCall(ctx, http.MethodGet, id, nil)
	}
	if err != nil {
		if arm.IsNotFound(err) && st.lastApplied() != "" && st.policy == PolicyManage {
			// Deleted outside the operator: forget it, the next reconcile
			// creates it again.
			base := st.obj.DeepCopy()
			removeAnnotation(st.obj, AnnotationLastApplied)
			removeAnnotation(st.obj, AnnotationOperation)
			r.event(st, corev1.EventTypeWarning, "DriftDetected", id+" was deleted outside the operator; recreating it")
			driftCorrections.Inc()
			return reconcile.Result{Requeue: true}, r.Client.Patch(ctx, st.obj, client.MergeFrom(base))
		}
		return r.fail(ctx, st, err)
	}
	if desired == nil && st.policy == PolicyManage {
		if desired, err = r.desired(ctx, st); err != nil {
			return r.fail(ctx, st, err)
		}
	}
	if drift := r.drift(desired, res.Body); len(drift) > 0 {
		if st.policy == PolicyManage {
			driftCorrections.Inc()
			r.event(st, corev1.EventTypeWarning, "DriftDetected", "Azure differs at "+strings.Join(drift, ", ")+"; correcting")
			base := st.obj.DeepCopy()
			removeAnnotation(st.obj, AnnotationLastApplied) // the next reconcile sends the whole body
			removeAnnotation(st.obj, AnnotationOperation)
			if err := r.Client.Patch(ctx, st.obj, client.MergeFrom(base)); err != nil {
				return reconcile.Result{}, err
			}
			return reconcile.Result{Requeue: true}, nil
		}
		st.setCondition(true, ReasonSucceeded, "Azure differs from spec at "+strings.Join(drift, ", ")+" (policy skip: not corrected)")
	}
	r.statusGETs(ctx, id, res.Body)
	if h := hooksFor(r.gvk()).Status; h != nil && res.Body != nil {
		if err := h(st.obj, res.Body); err != nil {
			return r.fail(ctx, st, err)
		}
	}
	st.setStatusBody(res.Body)
	if st.cond == nil {
		state, _, _ := unstructured.NestedString(res.Body, "properties", "provisioningState")
		switch {
		case state == "" || strings.EqualFold(state, "Succeeded"):
			st.setCondition(true, ReasonSucceeded, "")
		case strings.EqualFold(state, "Failed") || strings.EqualFold(state, "Canceled"):
			st.userMustAct(ReasonFailed, "provisioningState is "+state)
		default:
			st.setCondition(false, ReasonReconciling, "provisioningState is "+state)
			if err := r.writeStatus(ctx, st); err != nil {
				return reconcile.Result{}, err
			}
			return reconcile.Result{RequeueAfter: r.Config.PollInterval}, nil
		}
	}
	if err := r.writeStatus(ctx, st); err != nil {
		return reconcile.Result{}, err
	}
	return reconcile.Result{RequeueAfter: r.syncPeriod(st)}, nil
}

// statusGETs joins the Descriptor's extra status reads (e.g. a scale
// set's instanceView) into the status body, under the field the generator
// gave them. A failed read leaves the field out.
func (r *Reconciler) statusGETs(ctx context.Context, id string, body map[string]any) {
	if body == nil {
		return
	}
	for _, g := range r.Desc.StatusGETs {
		if g.StatusField == "" {
			continue
		}
		res, err := r.armCall(ctx, http.MethodGet, id+"/"+g.Name, nil)
		if err != nil || res.Body == nil {
			continue
		}
		body[g.StatusField] = res.Body
	}
}

// syncPeriod is the jittered period of the object.
func (r *Reconciler) syncPeriod(st *state) time.Duration {
	p := r.Config.SyncPeriod
	if v := st.obj.GetAnnotations()[AnnotationSyncPeriod]; v != "" {
		if d, err := time.ParseDuration(v); err == nil && d > 0 {
			p = d
		}
	}
	j := 1 + r.Config.Jitter*(2*rand.Float64()-1)
	return time.Duration(float64(p) * j)
}

// finalize deletes the Azure resource (unless detached) and drops the
// finalizer.
func (r *Reconciler) finalize(ctx context.Context, st *state) (reconcile.Result, error) {
	if !controllerutil.ContainsFinalizer(st.obj, Finalizer) {
		return reconcile.Result{}, nil
	}
	if st.policy == PolicyDetachOnDelete || st.policy == PolicySkip || st.policy == PolicyPlan {
		r.event(st, corev1.EventTypeNormal, "Detached", "the Azure resource is left in place (policy "+st.policy+")")
		return r.removeFinalizer(ctx, st)
	}
	if !r.Desc.HasVerb(http.MethodDelete) {
		r.event(st, corev1.EventTypeNormal, "NoDelete", r.Desc.ARMType+" has no DELETE in ARM: it goes with its parent")
		return r.removeFinalizer(ctx, st)
	}
	id := st.obj.GetAnnotations()[AnnotationARMID]
	if op := st.operation(); op != nil {
		if op.Verb == http.MethodDelete {
			return r.poll(ctx, st, id, op)
		}
		// A create or update in flight: delete anyway, ARM serialises.
	}
	if id == "" {
		if rid, _ := spec(st.obj)["resourceID"].(string); rid != "" {
			id = rid
		} else if sid, _, _ := unstructured.NestedString(st.obj.Object, "status", "id"); sid != "" {
			id = sid
		}
	}
	if id == "" {
		return r.removeFinalizer(ctx, st) // never created
	}
	res, err := r.armCall(ctx, http.MethodDelete, id, nil)
	if err != nil {
		return r.fail(ctx, st, err)
	}
	if !res.Done() {
		return r.startOperation(ctx, st, id, http.MethodDelete, res, "")
	}
	r.event(st, corev1.EventTypeNormal, "Deleted", "DELETE "+id)
	return r.removeFinalizer(ctx, st)
}

func (r *Reconciler) removeFinalizer(ctx context.Context, st *state) (reconcile.Result, error) {
	base := st.obj.DeepCopy()
	controllerutil.RemoveFinalizer(st.obj, Finalizer)
	removeAnnotation(st.obj, AnnotationOperation)
	return reconcile.Result{}, client.IgnoreNotFound(r.Client.Patch(ctx, st.obj, client.MergeFrom(base)))
}

// armCall sends one request and counts it.
func (r *Reconciler) armCall(ctx context.Context, verb, id string, payload []byte) (*arm.Result, error) {
	var res *arm.Result
	var err error
	switch verb {
	case http.MethodGet:
		res, err = r.ARM.Get(ctx, id, r.Desc.APIVersion)
	case http.MethodPut:
		res, err = r.ARM.Put(ctx, id, r.Desc.APIVersion, payload)
	case http.MethodPatch:
		res, err = r.ARM.Patch(ctx, id, r.Desc.APIVersion, payload)
	case http.MethodDelete:
		res, err = r.ARM.Delete(ctx, id, r.Desc.APIVersion)
	}
	observeARM(verb, err)
	return res, err
}

// fail turns an error into conditions: terminal errors stop retries until
// the object changes, others are retried with backoff.
func (r *Reconciler) fail(ctx context.Context, st *state, err error) (reconcile.Result, error) {
	var te *terminalError
	var ae *arm.Error
	if h := hooksFor(r.gvk()).ClassifyError; h != nil && !errors.As(err, &te) {
		if terminal, reason, ok := h(err); ok && terminal {
			err = &terminalError{reason: reason, message: err.Error()}
		} else if ok {
			st.setCondition(false, ReasonReconciling, "retrying: "+err.Error())
			if werr := r.writeStatus(ctx, st); werr != nil {
				return reconcile.Result{}, werr
			}
			return reconcile.Result{}, err
		}
	}
	switch {
	case errors.As(err, &te):
		st.userMustAct(te.reason, te.message)
		r.event(st, corev1.EventTypeWarning, te.reason, te.message)
	case arm.IsTerminal(err) && errors.As(err, &ae):
		msg := ae.Message
		if ae.Target != "" {
			msg += " (target " + ae.Target + ")"
		}
		st.userMustAct(ae.Code, "Azure refused the request; fix the spec: "+msg)
		r.event(st, corev1.EventTypeWarning, ae.Code, msg)
		err = &terminalError{reason: ae.Code, message: msg}
	default:
		st.setCondition(false, ReasonReconciling, "retrying: "+err.Error())
		if werr := r.writeStatus(ctx, st); werr != nil {
			log.FromContext(ctx).Error(werr, "write status")
		}
		return reconcile.Result{}, err
	}
	if werr := r.writeStatus(ctx, st); werr != nil {
		return reconcile.Result{}, werr
	}
	return reconcile.Result{}, reconcile.TerminalError(err)
}

func (r *Reconciler) event(st *state, typ, reason, msg string) {
	if r.Recorder != nil {
		r.Recorder.Event(st.obj, typ, reason, msg)
	}
}

var _ reconcile.Reconciler = (*Reconciler)(nil)
