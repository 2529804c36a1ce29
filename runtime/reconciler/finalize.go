package reconciler

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/armature-dev/armature/api/core"
)

// finalize deletes the Azure resource (unless detached) and drops the
// finalizer.
func (r *Reconciler) finalize(ctx context.Context, st *state) (reconcile.Result, error) {
	if !controllerutil.ContainsFinalizer(st.obj, core.Finalizer) {
		return reconcile.Result{}, nil
	}
	if !st.policy.Deletes() {
		r.event(st, corev1.EventTypeNormal, core.EventDetached, "the Azure resource is left in place (policy "+string(st.policy)+")")
		return r.removeFinalizer(ctx, st)
	}
	if !r.Desc.HasVerb(http.MethodDelete) {
		r.event(st, corev1.EventTypeNormal, core.EventNoDelete, r.Desc.ARMType+" has no DELETE in ARM: it goes with its parent")
		return r.removeFinalizer(ctx, st)
	}
	if st.forgedOperation() {
		return r.discardOperation(ctx, st, "it is not a record this operator sealed to this object (edited, or copied from another object)")
	}
	if op := st.operation(); op.polled() {
		if op.Verb == http.MethodDelete {
			return r.poll(ctx, st, op.ID, op)
		}
		// A create or update in flight: delete anyway, ARM serialises.
	}
	id := r.deleteID(st)
	if id == "" {
		return r.removeFinalizer(ctx, st) // never created by this object
	}
	if who := r.dependents(ctx, st); len(who) > 0 {
		// Deleted together, the objects that reference this one go first:
		// ARM refuses to delete a subnet a NIC uses.
		st.setCondition(false, core.ReasonWaitingForDependents, "DELETE "+id+" waits for "+strings.Join(who, ", ")+": the objects that reference it (until deleted or changed) and the objects it owns that are deleted with it go first")
		return reconcile.Result{RequeueAfter: r.Config.PollInterval}, step(stepStatus, r.writeStatus(ctx, st))
	}
	res, err := r.armCall(ctx, st, http.MethodDelete, id, nil)
	if err != nil {
		return r.fail(ctx, st, step(stepDelete, err))
	}
	if !res.Done() {
		return r.startOperation(ctx, st, id, http.MethodDelete, false, res, "")
	}
	r.event(st, corev1.EventTypeNormal, core.EventDeleted, "DELETE "+id)
	return r.removeFinalizer(ctx, st)
}

// deleteID is the ARM id a deletion deletes: spec.resourceID (an adopted
// resource), else the id the object claimed before its first write (the
// sealed AnnotationARMID, derived from spec and owner then). Never an id an
// editor of the object wrote: an ARM id annotation that does not verify is
// ignored with an event, and "" (nothing to delete) is returned.
func (r *Reconciler) deleteID(st *state) string {
	if rid, _ := spec(st.obj)["resourceID"].(string); rid != "" {
		return rid
	}
	id, forged := st.claimedID()
	if forged {
		r.event(st, corev1.EventTypeWarning, core.EventRecordIgnored, "annotation "+core.AnnotationARMID+" is not a record this operator sealed to this object: nothing is deleted on its word")
	}
	return id
}

func (r *Reconciler) removeFinalizer(ctx context.Context, st *state) (reconcile.Result, error) {
	base := st.obj.DeepCopy()
	controllerutil.RemoveFinalizer(st.obj, core.Finalizer)
	removeAnnotation(st.obj, core.AnnotationOperation)
	return reconcile.Result{}, step(stepRecord, client.IgnoreNotFound(r.Client.Patch(ctx, st.obj, client.MergeFrom(base))))
}

// deleteTogether is how long after its deletion started an owner waits for
// the child objects it owns that are not being deleted yet: objects
// deleted together (kubectl delete -f, a namespace) reach the apiserver
// one by one, and a child's own DELETE must come first. An owner deleted
// alone goes on after it (ARM takes the children with it).
const deleteTogether = 3 * time.Second

// dependents names the objects in the namespace that reference st's
// object ("Kind name"), found through the referrer index of every kind
// with references, the objects whose valuesFrom reads it, and the objects it owns that are being deleted too, or
// may be: deleted together, children go first (their own referrers hold
// them).
func (r *Reconciler) dependents(ctx context.Context, st *state) []string {
	ns, name := st.obj.GetNamespace(), st.obj.GetName()
	fresh := time.Since(st.obj.GetDeletionTimestamp().Time) < deleteTogether
	var out []string
	child := func(kind string, o unstructured.Unstructured) {
		switch {
		case !o.GetDeletionTimestamp().IsZero():
			out = append(out, kind+" "+o.GetName()+" (deleting)")
		case fresh:
			out = append(out, kind+" "+o.GetName()+" (if deleted too)")
		}
	}
	for _, gvk := range r.childKinds {
		for _, o := range r.listIndexed(ctx, gvk, ns, ownerIndex, name) {
			child(gvk.Kind, o)
		}
	}
	// An extension object names its owner by kind (group optional).
	owners := []string{ownerKey(r.Desc.Group, r.Desc.Kind, name), ownerKey("", r.Desc.Kind, name)}
	for _, gvk := range r.extensionKinds {
		for _, key := range owners {
			for _, o := range r.listIndexed(ctx, gvk, ns, ownerAnyIndex, key) {
				child(gvk.Kind, o)
			}
		}
	}
	key := strings.ToLower(r.Desc.Kind) + "/" + name
	// Two objects deleted together that name each other would wait for
	// each other forever: the one whose key sorts first goes first.
	names := map[string]bool{}
	for _, k := range slices.Concat(refTargets(st.obj), valueSources(st.obj)) {
		names[k] = true
	}
	waitsFor := func(kind string, o unstructured.Unstructured) bool {
		if o.GetUID() == st.obj.GetUID() {
			return false
		}
		other := strings.ToLower(kind) + "/" + o.GetName()
		return o.GetDeletionTimestamp().IsZero() || !names[other] || other < key
	}
	for _, gvk := range r.referring {
		for _, o := range r.listIndexed(ctx, gvk, ns, refIndex, key) {
			if waitsFor(gvk.Kind, o) {
				out = append(out, gvk.Kind+" "+o.GetName())
			}
		}
	}
	if r.tracker != nil {
		// Objects whose valuesFrom reads this one: any kind.
		for _, gvk := range r.kinds.list() {
			for _, o := range r.listIndexed(ctx, gvk, ns, valuesIndex, key) {
				if waitsFor(gvk.Kind, o) {
					out = append(out, gvk.Kind+" "+o.GetName()+" (valuesFrom)")
				}
			}
		}
	}
	return out
}
