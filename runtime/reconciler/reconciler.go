package reconciler

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/armature-dev/armature/api/core"
	"github.com/armature-dev/armature/runtime/arm"
	"github.com/armature-dev/armature/runtime/credentials"
	"github.com/armature-dev/armature/runtime/descriptor"
)

// Reconciler makes one kind's Azure resources match their custom resources.
type Reconciler struct {
	// Client reads and writes custom resources.
	Client client.Client
	// ARM talks to Azure with the default credential.
	ARM arm.Client
	// Credentials, when set, picks each object's credential (a credential
	// Secret of its namespace, or the default). Nil: ARM and
	// Config.SubscriptionID for every object.
	Credentials *credentials.Credentials
	// Desc describes the kind.
	Desc *descriptor.Descriptor
	// OwnerVersion is the served version of the owner kind, when the owner
	// is generated.
	OwnerVersion string
	// Secrets reads the Secrets a spec references. Defaults to Client;
	// SetupAll gives every reconciler one SecretReader (metadata watched,
	// data read when it changes).
	Secrets client.Reader
	// APIReader reads from the apiserver, not the cache: before a write to
	// ARM the reconciler checks that its cached copy is not stale (a stale
	// copy without the last operation would send it twice).
	APIReader client.Reader
	// Recorder records events.
	Recorder record.EventRecorder
	// Config holds the settings; Default() is applied by New.
	Config Config
	// Hooks customise the kind (SetupAll: WithHooks).
	Hooks Hooks

	// versions are the reconcilers of the kind's other served versions
	// (set on the storage version's reconciler by SetupAll): an object the
	// user writes in another version is reconciled in that version.
	versions map[string]*Reconciler

	// mem is what this process remembers of each object between
	// reconciles (memory.go). The reconcilers of a kind's versions share
	// it.
	mem *memory
	// started is when the reconciler was built: an object created after it
	// was written by no earlier operator (see stale).
	started time.Time
	// lists are the kind's list operations, parsed: a settled object of a
	// listable collection is observed by the drift observer's LIST, not by
	// its own GET.
	lists []descriptor.Template
	// providers remembers provider registrations asked for (shared by the
	// kinds SetupAll builds).
	providers *registrations
	// kinds are the storage versions of the kinds SetupAll registers: an
	// extension kind's owner can be any of them.
	kinds map[schema.GroupKind]string
	// seal binds the records the reconciler reads back to their objects
	// (Config.StateKey).
	seal sealer
	// claimKind is the kind whose informer holds the claim index (the
	// storage version's; zero before SetupWithManager): a create first
	// checks that no other object claims its ARM id.
	claimKind schema.GroupVersionKind
}

// New returns a reconciler for one kind.
func New(c client.Client, armClient arm.Client, d *descriptor.Descriptor, ownerVersion string, rec record.EventRecorder, cfg Config) *Reconciler {
	r := &Reconciler{Client: c, ARM: armClient, Desc: d, OwnerVersion: ownerVersion, Recorder: rec, Config: cfg.Default(), mem: newMemory(), providers: &registrations{}, started: time.Now()}
	r.seal = newSealer(r.Config.StateKey)
	registerSecretPaths(d)
	if _, ok := armClient.(arm.Lister); ok && !r.Config.DriftByGET {
		for _, p := range d.ListPaths {
			r.lists = append(r.lists, descriptor.ParseTemplate(p))
		}
	}
	return r
}

// hasLists reports whether the kind, in any of its versions, is watched by
// a drift observer.
func (r *Reconciler) hasLists() bool {
	if len(r.lists) > 0 {
		return true
	}
	for _, v := range r.versions {
		if len(v.lists) > 0 {
			return true
		}
	}
	return false
}

// listed reports whether the resource with ARM id id is observed by the
// drift observer's LIST of its collection.
func (r *Reconciler) listed(id string) bool {
	if id == "" || len(r.lists) == 0 {
		return false
	}
	coll := collectionOf(id)
	for _, t := range r.lists {
		if m, ok := t.Match(coll); ok && !m.Collection {
			return true
		}
	}
	return false
}

func (r *Reconciler) gvk() schema.GroupVersionKind { return r.Desc.GroupVersionKind() }

func (r *Reconciler) ownerGVK() schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: r.Desc.OwnerGroup, Version: r.OwnerVersion, Kind: r.Desc.OwnerKind}
}

// Reconcile is the orchestrator of the steps in the package doc. It runs
// under the deadline Config.ReconcileTimeout.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (res reconcile.Result, err error) {
	ctx, cancel := context.WithTimeout(ctx, r.Config.ReconcileTimeout)
	defer cancel()
	obj := &unstructured.Unstructured{}
	obj.SetGroupVersionKind(r.gvk())
	if err := r.Client.Get(ctx, req.NamespacedName, obj); err != nil {
		return reconcile.Result{}, step(stepRead, client.IgnoreNotFound(err))
	}
	if r.behind(obj) {
		// The cache has not seen this reconciler's last write yet: acting
		// on the older copy would decide, or see drift, on what is no
		// longer there. The write's watch event requeues it as well.
		return reconcile.Result{Requeue: true}, nil
	}
	if r.takeForced(obj.GetUID()) {
		// The drift observer saw a change: read the resource, as
		// background work.
		ctx = arm.WithPriority(withForced(ctx), arm.PriorityLow)
	}
	if done, res, err := r.delegate(ctx, obj, req); done {
		return res, err
	}
	st := newState(obj)
	st.seal = r.seal
	st.forced = forced(ctx)
	defer r.remember(st)
	defer r.settle(st)
	defer func() {
		if ferr := r.flushMeta(ctx, st); ferr != nil && err == nil {
			err = ferr
		}
	}()
	if st.policyErr != nil {
		// Nothing is sent to ARM and the finalizer stays as it is, also on
		// delete: an unknown policy never means manage.
		return r.fail(ctx, st, terminal(core.ReasonUnknownPolicy, st.policyErr.Error()+"; nothing is sent to Azure until it is fixed"))
	}
	if st.arm, err = r.binding(ctx, obj); err != nil {
		return r.fail(ctx, st, err)
	}
	if !obj.GetDeletionTimestamp().IsZero() {
		return r.finalize(ctx, st)
	}
	id, waiting, err := r.resolve(ctx, st)
	if err != nil {
		return r.fail(ctx, st, step(stepOwner, err))
	}
	st.id = id
	if waiting != "" && r.Desc.Scope == descriptor.ScopeExtension {
		if cycle := r.ownerCycle(ctx, st); cycle != "" {
			return r.fail(ctx, st, terminal(core.ReasonOwnerCycle, "spec.owner comes back to this object: "+cycle+"; nothing can be created until the cycle is broken"))
		}
	}
	if waiting != "" {
		// An owner that exists and is on its way needs no status write for a
		// fresh object: the owner's watch requeues it. A missing owner, or a
		// long wait, is shown.
		if st.ownerExists && time.Since(st.obj.GetCreationTimestamp().Time) < slowOwner && st.orig == nil {
			return reconcile.Result{RequeueAfter: slowOperation}, nil
		}
		st.setCondition(false, core.ReasonWaitingForOwner, waiting)
		return reconcile.Result{RequeueAfter: r.Config.SyncPeriod}, step(stepStatus, r.writeStatus(ctx, st))
	}
	if st.policy.NeedsFinalizer() {
		if err := r.ensureFinalizer(ctx, st); err != nil {
			return reconcile.Result{}, step(stepFinalizer, err)
		}
	}
	if st.forgedOperation() {
		return r.discardOperation(ctx, st, "it is not a record this operator sealed to this object (edited, or copied from another object)")
	}
	if op := st.operation(); op.polled() && !st.opDone(op) {
		return r.poll(ctx, st, id, op)
	}
	if op := r.pendingOf(st); op != nil {
		return r.poll(ctx, st, id, op)
	}
	if intent := st.operation(); intent != nil && !intent.polled() && !st.opDone(intent) && st.policy.CorrectsDrift() {
		if done, res, err := r.recoverIntent(ctx, st, id, intent); done {
			return res, err
		}
	}
	return r.apply(ctx, st, id)
}

// resolve finds the resource's ARM id; a non-empty waiting says why it
// cannot be known yet.
func (r *Reconciler) resolve(ctx context.Context, st *state) (id, waiting string, err error) {
	if err := checkNames(r.Desc, st.obj); err != nil {
		return "", "", err
	}
	ownerID, waiting, err := r.resolveOwner(ctx, st)
	if err != nil || waiting != "" {
		return "", waiting, err
	}
	if id, ok := resolveID(r.Desc, st.obj, ownerID, st.arm.SubscriptionID); ok {
		return id, "", nil
	}
	if strings.EqualFold(r.Desc.OwnerARMType, descriptor.SubscriptionType) {
		return "", "", terminal("NoSubscription", "no subscription id for "+r.Desc.Kind+": the credential ("+st.arm.Name+") names none (--subscription-id or AZURE_SUBSCRIPTION_ID for the default, subscriptionId in a credential Secret)")
	}
	return "", "", ownerRequired(r.Desc)
}

// checkNames checks the names an ARM id is built from: spec.azureName (or
// the name it defaults to) is one segment, spec.owner.armId and
// spec.resourceID are ids (descriptor.CheckSegment, CheckID).
func checkNames(d *descriptor.Descriptor, obj *unstructured.Unstructured) error {
	s := spec(obj)
	if rid, _ := s["resourceID"].(string); rid != "" {
		if err := descriptor.CheckID(rid); err != nil {
			return terminal(core.ReasonInvalidName, "spec.resourceID: "+err.Error())
		}
		return nil
	}
	if owner, _ := s["owner"].(map[string]any); owner != nil {
		if a, _ := owner["armId"].(string); a != "" {
			if err := descriptor.CheckID(a); err != nil {
				return terminal(core.ReasonInvalidName, "spec.owner.armId: "+err.Error())
			}
		}
	}
	// Only what would make the id name another resource: the swagger's
	// pattern and lengths are admission's (an object Azure accepted before
	// a stricter pattern came must keep working).
	if err := descriptor.CheckSegment(azureName(obj, d)); err != nil {
		return terminal(core.ReasonInvalidName, "spec.azureName: "+err.Error())
	}
	return nil
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
// reference) before anything is written to ARM. An object that has the
// finalizer already (the webhook adds it at create) gets its owner
// reference with the reconcile's next metadata write (patchMeta), or at its
// end (flushMeta): no write of its own.
func (r *Reconciler) ensureFinalizer(ctx context.Context, st *state) error {
	st.ownerRefPending = st.owner != nil && !hasOwnerRef(st.obj, st.owner)
	if controllerutil.ContainsFinalizer(st.obj, core.Finalizer) {
		return nil
	}
	base := st.obj.DeepCopy()
	controllerutil.AddFinalizer(st.obj, core.Finalizer)
	return r.patchMeta(ctx, st, base)
}

// patchMeta writes the changes made to st.obj since base as a merge patch,
// with the owner reference when one is pending.
func (r *Reconciler) patchMeta(ctx context.Context, st *state, base *unstructured.Unstructured) error {
	if st.ownerRefPending && st.obj.GetDeletionTimestamp().IsZero() {
		st.obj.SetOwnerReferences(append(st.obj.GetOwnerReferences(), ownerRef(st.owner)))
	}
	if err := r.Client.Patch(ctx, st.obj, client.MergeFrom(base)); err != nil {
		return err
	}
	st.ownerRefPending = false
	return nil
}

// flushMeta writes a pending owner reference that no other metadata write
// of the reconcile carried.
func (r *Reconciler) flushMeta(ctx context.Context, st *state) error {
	if !st.ownerRefPending || !st.obj.GetDeletionTimestamp().IsZero() {
		return nil
	}
	return step(stepFinalizer, r.patchMeta(ctx, st, st.obj.DeepCopy()))
}

func hasOwnerRef(obj, owner *unstructured.Unstructured) bool {
	for _, ref := range obj.GetOwnerReferences() {
		if ref.UID == owner.GetUID() {
			return true
		}
	}
	return false
}

// desired builds the ARM body from spec, reading the Secrets it references
// in the object's namespace.
func (r *Reconciler) desired(ctx context.Context, st *state) (map[string]any, error) {
	secrets := r.Secrets
	if secrets == nil {
		secrets = r.Client
	}
	body, err := desiredBody(r.Desc, st.obj, func(p descriptor.Path, name, key string) (string, error) {
		var s corev1.Secret
		if err := secrets.Get(ctx, client.ObjectKey{Namespace: st.obj.GetNamespace(), Name: name}, &s); err != nil {
			return "", fmt.Errorf("secret %q for %s: %w", name, p.FieldPath(specPath), err)
		}
		v, ok := s.Data[key]
		if !ok {
			return "", terminal("SecretKeyNotFound", fmt.Sprintf("secret %q has no key %q (%s)", name, key, p.FieldPath(specPath)))
		}
		return string(v), nil
	}, r.Hooks.MutateBody)
	return body, step(stepBody, err)
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
	if behind, known := r.ownWrite(st.obj); known {
		return behind, nil
	}
	if r.APIReader == nil || r.bornHere(st.obj) {
		return false, nil
	}
	// Only annotations are compared: the apiserver sends metadata alone.
	fresh := &metav1.PartialObjectMetadata{}
	fresh.SetGroupVersionKind(r.gvk())
	if err := r.APIReader.Get(ctx, client.ObjectKeyFromObject(st.obj), fresh); err != nil {
		return false, client.IgnoreNotFound(err)
	}
	for _, k := range []string{core.AnnotationOperation, core.AnnotationLastApplied, core.AnnotationSeal} {
		if fresh.GetAnnotations()[k] != st.obj.GetAnnotations()[k] {
			return true, nil
		}
	}
	return false, nil
}

// startSkew is how much later than the reconciler's start an object's
// creation (the apiserver's clock) must be for bornHere.
const startSkew = 2 * time.Second

// bornHere reports whether obj was created after this reconciler started:
// then every reconciler write to it is this process's, which written
// records, and the stale check needs no read. (An operator before this one
// stopped before it started: its writes are in the cache's first list. Two
// operators serving one object at once are a misconfiguration that no check
// before a write makes safe.)
func (r *Reconciler) bornHere(obj *unstructured.Unstructured) bool {
	return !r.started.IsZero() && obj.GetCreationTimestamp().Time.After(r.started.Add(startSkew))
}

// behind reports, without a read, whether the cached obj is older than
// this reconciler's last write to it.
func (r *Reconciler) behind(obj *unstructured.Unstructured) bool {
	behind, _ := r.ownWrite(obj)
	return behind
}

// ownWrite compares the cached obj with this reconciler's last write to it;
// known is false when it wrote none (or the resourceVersion does not parse).
func (r *Reconciler) ownWrite(obj *unstructured.Unstructured) (behind, known bool) {
	v, ok := r.mem.lastWritten(obj.GetUID())
	if !ok {
		return false, false
	}
	cur, err := strconv.ParseUint(obj.GetResourceVersion(), 10, 64)
	if err != nil {
		return false, false
	}
	return cur < v, true
}

// settle forgets an object's consecutive failures when its reconcile did
// not end on a retried error, and its last write once it is gone.
func (r *Reconciler) settle(st *state) {
	uid := st.obj.GetUID()
	if st.settledNow() {
		// Only Ready ends a run of failures or of writes: an accepted write
		// that did not settle the object keeps the backoff growing.
		r.mem.resetFailures(uid)
		if !st.wrote {
			r.mem.resetBudget(uid)
		}
	}
}

// remember records the resourceVersion of the reconciler's last write to
// obj (when the reconcile wrote it), and forgets objects that are gone.
func (r *Reconciler) remember(st *state) {
	obj := st.obj
	if !obj.GetDeletionTimestamp().IsZero() && !controllerutil.ContainsFinalizer(obj, core.Finalizer) {
		r.mem.forget(obj.GetUID())
		return
	}
	if rv := obj.GetResourceVersion(); rv != st.readVersion {
		if n, err := strconv.ParseUint(rv, 10, 64); err == nil {
			r.mem.wrote(obj.GetUID(), n)
		}
	}
}

// binding returns the object's credential: its client and subscription.
func (r *Reconciler) binding(ctx context.Context, obj *unstructured.Unstructured) (credentials.Binding, error) {
	if r.Credentials == nil {
		return credentials.Binding{Client: r.ARM, SubscriptionID: r.Config.SubscriptionID, Name: "default"}, nil
	}
	b, err := r.Credentials.For(ctx, obj)
	if err != nil {
		return credentials.Binding{}, credentialError(err)
	}
	if b.SubscriptionID == "" {
		b.SubscriptionID = r.Config.SubscriptionID
	}
	return b, nil
}

// armCall sends one request with the object's credential and counts it.
// Its ARM errors carry the method (callError), which the error table reads.
func (r *Reconciler) armCall(ctx context.Context, st *state, verb, id string, payload []byte) (*arm.Result, error) {
	var res *arm.Result
	var err error
	c := st.arm.Client
	switch verb {
	case http.MethodGet:
		res, err = c.Get(ctx, id, r.Desc.APIVersion)
	case http.MethodPut:
		res, err = c.Put(ctx, id, r.Desc.APIVersion, payload)
	case http.MethodPatch:
		res, err = c.Patch(ctx, id, r.Desc.APIVersion, payload)
	case http.MethodDelete:
		res, err = c.Delete(ctx, id, r.Desc.APIVersion)
	}
	observeARM(verb, err)
	if err != nil {
		return res, &callError{method: verb, err: err}
	}
	return res, nil
}

// syncPeriod is the jittered period of the object.
func (r *Reconciler) syncPeriod(st *state) time.Duration {
	p := r.Config.SyncPeriod
	if v := st.obj.GetAnnotations()[core.AnnotationSyncPeriod]; v != "" {
		if d, err := time.ParseDuration(v); err == nil && d > 0 {
			p = d
		}
	}
	j := 1 + r.Config.Jitter*(2*rand.Float64()-1)
	return time.Duration(float64(p) * j)
}

var _ reconcile.Reconciler = (*Reconciler)(nil)
