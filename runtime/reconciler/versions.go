package reconciler

import (
	"bytes"
	"context"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/armature-dev/armature/api/core"
)

// versionFor returns the Kubernetes version whose api-version ARM is
// spoken in for obj: never silently another than the user's.
func (r *Reconciler) versionFor(obj *unstructured.Unstructured) string {
	if v := obj.GetAnnotations()[core.AnnotationAPIVersion]; v != "" {
		for version, s := range r.versions {
			if v == version || v == s.Desc.APIVersion {
				return version
			}
		}
		if v == r.Desc.APIVersion {
			return r.Desc.Version
		}
		return v // unknown: reconcile reports it
	}
	if v := specWriterVersion(obj.GetManagedFields(), r.Desc.Group); v != "" {
		return v
	}
	if v := r.Config.PreferredVersions[r.Desc.Group]; v != "" {
		return v
	}
	return r.Desc.Version
}

// specWriterVersion returns the version of the latest managedFields entry
// that owns spec fields (the user's last spec write), or "".
func specWriterVersion(entries []metav1.ManagedFieldsEntry, group string) string {
	var best *metav1.ManagedFieldsEntry
	for i := range entries {
		e := &entries[i]
		if e.Subresource != "" || e.FieldsV1 == nil || !bytes.Contains(e.FieldsV1.Raw, []byte(`"f:spec"`)) {
			continue
		}
		if best == nil || (e.Time != nil && best.Time != nil && best.Time.Before(e.Time)) || (best.Time == nil && e.Time != nil) {
			best = e
		}
	}
	if best == nil {
		return ""
	}
	gv, err := schema.ParseGroupVersion(best.APIVersion)
	if err != nil || gv.Group != group {
		return ""
	}
	return gv.Version
}

// delegate hands the reconcile to the reconciler of another version of
// the kind when obj is to be reconciled in that version. handled is false
// when this reconciler's version is the one.
func (r *Reconciler) delegate(ctx context.Context, obj *unstructured.Unstructured, req reconcile.Request) (handled bool, res reconcile.Result, err error) {
	if len(r.versions) == 0 {
		return false, reconcile.Result{}, nil
	}
	v := r.versionFor(obj)
	if v == r.Desc.Version {
		return false, reconcile.Result{}, nil
	}
	other, ok := r.versions[v]
	if !ok {
		st := newState(obj)
		known := []string{r.Desc.Version}
		for k := range r.versions {
			known = append(known, k)
		}
		res, err = r.fail(ctx, st, terminal("UnknownAPIVersion", r.Desc.Kind+" is not served in version "+v+" (versions: "+strings.Join(known, ", ")+"); check the annotation "+core.AnnotationAPIVersion+" or the operator's --preferred-versions"))
		return true, res, err
	}
	res, err = other.Reconcile(ctx, req)
	return true, res, err
}
