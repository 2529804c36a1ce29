package reconciler

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/armature-dev/armature/api/core"
	"github.com/armature-dev/armature/runtime/arm"
	"github.com/armature-dev/armature/runtime/credentials"
	"github.com/armature-dev/armature/runtime/descriptor"
)

// Reconcile is the orchestrator of the steps in the package doc. It runs
// under the deadline Config.ReconcileTimeout.
func (r *Reconciler) Reconcile(ctx context.Context, req reconcile.Request) (res reconcile.Result, err error) {
	ctx, cancel := context.WithTimeout(ctx, r.Config.ReconcileTimeout)
	defer cancel()
	if r.kinds != nil && !r.kinds.has(r.gvk().GroupKind()) {
		return reconcile.Result{}, nil // no longer served: its CRD is gone
	}
	obj := &unstructured.Unstructured{}
	obj.SetGroupVersionKind(r.gvk())
	if err := r.Client.Get(ctx, req.NamespacedName, obj); err != nil {
		return reconcile.Result{}, step(stepRead, client.IgnoreNotFound(err))
	}
	if r.mem.isGone(obj.GetUID()) {
		// This reconciler removed its finalizer: the object is gone, and a
		// cached copy that still has it would send a second DELETE.
		return reconcile.Result{}, nil
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
	if v := obj.GetAnnotations()[core.AnnotationRefresh]; v != "" && obj.GetDeletionTimestamp().IsZero() && r.mem.newRefresh(obj.GetUID(), v) {
		// An Action changed the resource (keys rotated): read it, and
		// write its outputs anew.
		ctx = withForced(ctx)
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

// resolveOwner reads the custom resource spec.owner names and returns its
// ARM id; a non-empty waiting says why it cannot be used yet (missing, or
// not Ready with a status.id). ownerID is "" when spec.owner names no
// custom resource (an armId, a resourceID, or nothing).
func (r *Reconciler) resolveOwner(ctx context.Context, st *state) (ownerID, waiting string, err error) {
	s := spec(st.obj)
	owner, _ := s["owner"].(map[string]any)
	rid, _ := s["resourceID"].(string)
	armID, _ := owner["armId"].(string)
	name, _ := owner["name"].(string)
	if rid != "" || armID != "" || name == "" {
		return "", "", nil
	}
	gvk, found, err := r.ownerTarget(owner)
	if err != nil || !found {
		return "", "", err
	}
	o := &unstructured.Unstructured{}
	o.SetGroupVersionKind(gvk)
	// Only metadata, status.id and readiness are read: a slim object will do.
	if err := r.slimReader().Get(ctx, client.ObjectKey{Namespace: st.obj.GetNamespace(), Name: name}, o); err != nil {
		if client.IgnoreNotFound(err) == nil {
			return "", fmt.Sprintf("owner %s %q does not exist", gvk.Kind, name), nil
		}
		return "", "", err
	}
	st.ownerExists = true
	scope := statusID(o)
	if scope == "" || !ready(o) {
		return "", fmt.Sprintf("owner %s %q is not Ready", gvk.Kind, name), nil
	}
	st.owner = o
	return scope, "", nil
}

// ownerRequired is the error of a kind whose spec.owner names nothing.
func ownerRequired(d *descriptor.Descriptor) error {
	if d.Scope == descriptor.ScopeExtension {
		return terminal(core.ReasonOwnerRequired, fmt.Sprintf("spec.owner is required: the owner of a %s can be any resource; give group, kind and name of a custom resource in this namespace, or its armId", d.Kind))
	}
	return terminal(core.ReasonOwnerRequired, fmt.Sprintf("spec.owner is required: name a %s in this namespace or give its armId", ownerLabel(d)))
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

// maxOwnerChain bounds the walk of ownerCycle.
const maxOwnerChain = 16

// ownerCycle returns the chain of spec.owner links that comes back to the
// object ("" when there is none), following the owners named by group,
// kind and name (extension kinds: the only ones whose owner can be any
// kind, so the only ones that can close a cycle).
func (r *Reconciler) ownerCycle(ctx context.Context, st *state) string {
	self := schema.GroupKind{Group: r.Desc.Group, Kind: r.Desc.Kind}
	chain := []string{r.Desc.Kind + "/" + st.obj.GetName()}
	cur := st.obj
	for range maxOwnerChain {
		g, k, n := specOwner(cur)
		if k == "" || n == "" {
			return ""
		}
		chain = append(chain, k+"/"+n)
		if (schema.GroupKind{Group: g, Kind: k}) == self && n == st.obj.GetName() {
			return strings.Join(chain, " → ")
		}
		v, ok := r.kinds.version(schema.GroupKind{Group: g, Kind: k})
		if !ok {
			return ""
		}
		next := &unstructured.Unstructured{}
		next.SetGroupVersionKind(schema.GroupVersionKind{Group: g, Version: v, Kind: k})
		if err := r.slimReader().Get(ctx, client.ObjectKey{Namespace: st.obj.GetNamespace(), Name: n}, next); err != nil {
			return ""
		}
		cur = next
	}
	return ""
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

// discardOperation drops an operation record the reconciler will not
// follow (forged, or polling somewhere other than ARM), with a Warning
// event; the next reconcile observes the resource by GET.
func (r *Reconciler) discardOperation(ctx context.Context, st *state, why string) (reconcile.Result, error) {
	r.event(st, corev1.EventTypeWarning, core.EventOperationDiscarded, "annotation "+core.AnnotationOperation+" discarded: "+why+"; the resource is read from Azure again")
	base := st.obj.DeepCopy()
	removeAnnotation(st.obj, core.AnnotationOperation)
	if err := r.patchMeta(ctx, st, base); err != nil {
		return reconcile.Result{}, step(stepRecord, err)
	}
	return reconcile.Result{Requeue: true}, nil
}
