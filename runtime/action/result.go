package action

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/armature-dev/armature/api/actions/v1alpha1"
	"github.com/armature-dev/armature/api/core"
	"github.com/armature-dev/armature/runtime/descriptor"
)

// ResponseKey is the key of the whole response in the result Secret (with
// secrets) and ConfigMap (without).
const ResponseKey = "response.json"

// maxStatusResponse is the largest response kept in status.response; a
// larger one is only in the ConfigMap and Secret.
const maxStatusResponse = 32 << 10

// split separates a response into its secret leaves (by Secret key) and
// the response without them. A leaf is public only when the response
// schema declares it and does not mark it secret: with no schema, or
// below an open or undeclared member, every leaf is secret.
func split(schema *descriptor.Body, body map[string]any) (secrets map[string]string, public map[string]any) {
	secrets = map[string]string{}
	if body == nil {
		return secrets, nil
	}
	pub, _ := splitValue(schema, body, nil, nil, secrets, true).(map[string]any)
	return secrets, pub
}

// splitValue returns v without its secret leaves (nil when nothing public
// is left), adding them to secrets. known is false below a member the
// schema does not declare.
func splitValue(schema *descriptor.Body, v any, path, table descriptor.Path, secrets map[string]string, known bool) any {
	f, ok := schema.Field(table)
	known = known && ok && !f.Open
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		children := schema.Children(table)
		for _, k := range slices.Sorted(maps.Keys(x)) {
			ct := table.Child(k)
			if _, ok := children[k]; !ok {
				ct = table.Value()
			}
			if pv := splitValue(schema, x[k], path.Child(k), ct, secrets, known); pv != nil {
				out[k] = pv
			}
		}
		if len(out) == 0 && len(x) > 0 {
			return nil
		}
		return out
	case []any:
		out := make([]any, 0, len(x))
		for i, e := range x {
			out = append(out, splitValue(schema, e, path.Index(i), table.Item(), secrets, known))
		}
		return out
	case nil:
		return nil
	}
	if known && !f.Secret {
		return v
	}
	secrets[secretKey(path)] = fmt.Sprint(v)
	return nil
}

var notKeyChar = regexp.MustCompile(`[^-._a-zA-Z0-9]`)

// secretKey is a body path as a Secret or ConfigMap key: keys[0].value →
// keys.0.value.
func secretKey(path descriptor.Path) string {
	segs := make([]string, len(path))
	for i, s := range path {
		segs[i] = strings.Trim(s, "[]")
	}
	k := strings.Join(segs, ".")
	if k == "" {
		k = "value"
	}
	return notKeyChar.ReplaceAllString(k, "_")
}

// leaves lists the scalar leaves of a public response by key.
func leaves(v any, path descriptor.Path, out map[string]string) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			leaves(e, path.Child(k), out)
		}
	case []any:
		for i, e := range x {
			leaves(e, path.Index(i), out)
		}
	case nil:
	case string:
		out[secretKey(path)] = x
	default:
		b, _ := json.Marshal(x)
		out[secretKey(path)] = string(b)
	}
}

// complete writes the results and ends the Action Succeeded.
func (r *Reconciler) complete(ctx context.Context, a *v1alpha1.Action, act *descriptor.Action, body map[string]any) (reconcile.Result, error) {
	secrets, public := split(act.Response, body)
	var secretKeys []string
	if ref := a.Spec.ResultSecret; ref != nil && body != nil {
		data := map[string][]byte{}
		for k, v := range secrets {
			data[k] = []byte(v)
			secretKeys = append(secretKeys, k)
		}
		full, err := json.Marshal(body)
		if err != nil {
			return reconcile.Result{}, err
		}
		data[ResponseKey] = full
		secretKeys = append(secretKeys, ResponseKey)
		sort.Strings(secretKeys)
		s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: ref.Name, Namespace: a.Namespace}}
		if err := r.writeOwned(ctx, a, s, func() { s.Type = corev1.SecretTypeOpaque; s.Data = data }); err != nil {
			return r.resultFailed(ctx, a, "Secret", ref.Name, err)
		}
	}
	pubJSON, err := json.Marshal(public)
	if err != nil {
		return reconcile.Result{}, err
	}
	if ref := a.Spec.ResultConfigMap; ref != nil && body != nil {
		data := map[string]string{}
		leaves(public, nil, data)
		data[ResponseKey] = string(pubJSON)
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: ref.Name, Namespace: a.Namespace}}
		if err := r.writeOwned(ctx, a, cm, func() { cm.Data = data }); err != nil {
			return r.resultFailed(ctx, a, "ConfigMap", ref.Name, err)
		}
	}
	msg := a.Spec.Action + " succeeded"
	if len(secrets) > 0 && a.Spec.ResultSecret == nil {
		msg += fmt.Sprintf("; the response had %d secret values, which were not kept (set spec.resultSecret to keep them)", len(secrets))
	}
	now := metav1.Now()
	conflict, err := r.patchStatus(ctx, a, func(st *v1alpha1.ActionStatus) {
		st.Phase = v1alpha1.PhaseSucceeded
		st.CompletionTime = &now
		st.Operation = nil
		st.Error = nil
		st.SecretKeys = secretKeys
		st.Response = nil
		if public != nil && len(pubJSON) <= maxStatusResponse {
			st.Response = &apiextensionsv1.JSON{Raw: pubJSON}
		} else if public != nil {
			msg += fmt.Sprintf("; the response (%d bytes) is too large for status", len(pubJSON))
		}
		setReady(a, st, true, false, ReasonSucceeded, msg)
	})
	if err != nil || conflict {
		return reconcile.Result{Requeue: conflict}, err
	}
	r.event(a, corev1.EventTypeNormal, ReasonSucceeded, msg)
	finished(r, a, v1alpha1.PhaseSucceeded)
	r.refreshTarget(ctx, a, now)
	return reconcile.Result{}, nil
}

// refreshTarget tells the target object that its resource changed (keys
// rotated): core.AnnotationRefresh makes its reconciler read the resource
// again and write its outputs anew. A target given by ARM id has no object.
// A failure is logged: the outputs then follow at the next sync period.
func (r *Reconciler) refreshTarget(ctx context.Context, a *v1alpha1.Action, at metav1.Time) {
	if a.Spec.Target.Name == "" || r.Registry == nil {
		return
	}
	d, _, errs := r.Registry.Validate(&a.Spec)
	if len(errs) > 0 || d == nil {
		return
	}
	o := &unstructured.Unstructured{}
	o.SetGroupVersionKind(d.GroupVersionKind())
	o.SetNamespace(a.Namespace)
	o.SetName(a.Spec.Target.Name)
	patch := fmt.Appendf(nil, `{"metadata":{"annotations":{%q:%q}}}`, core.AnnotationRefresh, a.Name+" "+at.UTC().Format(time.RFC3339))
	if err := r.Client.Patch(ctx, o, client.RawPatch(types.MergePatchType, patch)); client.IgnoreNotFound(err) != nil {
		log.FromContext(ctx).Error(err, "mark the target for a refresh", "kind", d.Kind, "name", a.Spec.Target.Name)
	}
}

// resultFailed ends the Action Failed when its results cannot be written:
// the action ran, but its response is lost (it is never written to status).
func (r *Reconciler) resultFailed(ctx context.Context, a *v1alpha1.Action, kind, name string, err error) (reconcile.Result, error) {
	return r.fail(ctx, a, "ResultNotStored", fmt.Sprintf("%s ran, but its result could not be written to %s %q: %v", a.Spec.Action, kind, name, err), nil)
}

// writeOwned creates or updates a Secret or ConfigMap owned by the Action.
func (r *Reconciler) writeOwned(ctx context.Context, a *v1alpha1.Action, obj client.Object, fill func()) error {
	_, err := controllerutil.CreateOrUpdate(ctx, r.Client, obj, func() error {
		if owner := metav1.GetControllerOf(obj); owner != nil && owner.UID != a.UID {
			return fmt.Errorf("it is controlled by %s %s", owner.Kind, owner.Name)
		}
		fill()
		return controllerutil.SetControllerReference(a, obj, r.Client.Scheme())
	})
	return err
}

// resultsFree says why the result Secret or ConfigMap cannot be written
// ("" when both can): an existing object that this Action does not own is
// never overwritten. It is checked before sending, so a name clash does
// not lose a result.
func (r *Reconciler) resultsFree(ctx context.Context, a *v1alpha1.Action) (string, error) {
	check := func(kind string, obj client.Object, ref *v1alpha1.ResultReference) (string, error) {
		if ref == nil {
			return "", nil
		}
		err := r.Client.Get(ctx, client.ObjectKey{Namespace: a.Namespace, Name: ref.Name}, obj)
		if apierrors.IsNotFound(err) {
			return "", nil
		}
		if err != nil {
			return "", err
		}
		if owner := metav1.GetControllerOf(obj); owner == nil || owner.UID != a.UID {
			return fmt.Sprintf("%s %q exists and is not this Action's: name another one in spec.result%s (an Action never overwrites what it does not own)", kind, ref.Name, kind), nil
		}
		return "", nil
	}
	if msg, err := check("Secret", &corev1.Secret{}, a.Spec.ResultSecret); msg != "" || err != nil {
		return msg, err
	}
	return check("ConfigMap", &corev1.ConfigMap{}, a.Spec.ResultConfigMap)
}
