package reconciler

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/armature-dev/armature/api/core"
	"github.com/armature-dev/armature/runtime/configurator"
	"github.com/armature-dev/armature/runtime/descriptor"
)

// Values from other objects (spec.valuesFrom, docs/references.md): each
// entry sets the body value at its path from another object's field, a
// ConfigMap key or a Secret key, resolved into the desired body before
// decide, as references are. A source not there yet makes the object wait
// (WaitingForReference) and nothing is sent. An object source is tracked
// (sources.go): its coming and its status changes requeue the object; a
// ConfigMap or Secret is read again after Config.PollInterval. A Secret's
// value goes only to a secret property, whose value the last-applied
// record hashes.

// ValueResolver returns the value of one valuesFrom entry.
type ValueResolver func(at string, vf map[string]any) (any, error)

// resolveValues sets the body values spec.valuesFrom names.
func resolveValues(d *descriptor.Descriptor, obj *unstructured.Unstructured, body map[string]any, resolve ValueResolver) error {
	list, _ := spec(obj)["valuesFrom"].([]any)
	for i, item := range list {
		vf, _ := item.(map[string]any)
		at := fmt.Sprintf("spec.valuesFrom[%d]", i)
		raw, _ := vf["path"].(string)
		p, err := descriptor.ParsePath(raw)
		if err != nil || len(p) == 0 {
			return terminal(core.ReasonInvalidValuesFrom, fmt.Sprintf("%s.path %q is not a property path", at, raw))
		}
		if _, secret := vf["secretKeyRef"]; secret {
			if class, known := d.ClassOf(p); !known || class != descriptor.Secret {
				return terminal(core.ReasonInvalidValuesFrom, fmt.Sprintf("%s: a Secret's value goes only to a secret property; %s is not one", at, raw))
			}
		}
		v, err := resolve(at, vf)
		if err != nil {
			return err
		}
		p.Set(body, v)
	}
	return nil
}

// resolveValue is the reconciler's ValueResolver.
func (r *Reconciler) resolveValue(ctx context.Context, ns, at string, vf map[string]any) (any, error) {
	live := r.APIReader
	if live == nil {
		live = r.Client
	}
	wait := func(format string, args ...any) error {
		return &waitingError{message: at + ": " + fmt.Sprintf(format, args...) + "; nothing is sent until it is", poll: true}
	}
	if vf["from"] != nil && r.tracker != nil {
		// Tracked: the source's coming or its status change requeues
		// this object (sources.go).
		wait = func(format string, args ...any) error {
			return &waitingError{message: at + ": " + fmt.Sprintf(format, args...) + "; nothing is sent until it is"}
		}
	}
	switch {
	case vf["from"] != nil:
		from, _ := vf["from"].(map[string]any)
		ref, _ := objectRef(from, nil)
		field, _ := from["field"].(string)
		gk, version, err := r.refKind(ref)
		var notServed *kindNotServed
		if errors.As(err, &notServed) {
			return nil, &waitingError{message: at + ".from: " + err.Error(), poll: true}
		}
		if err != nil {
			return nil, terminal(core.ReasonInvalidValuesFrom, at+".from: "+err.Error())
		}
		src := &unstructured.Unstructured{}
		src.SetGroupVersionKind(gk.WithVersion(version))
		// The live object: the cache's slim copy holds a digest of status.
		if err := live.Get(ctx, client.ObjectKey{Namespace: ns, Name: ref.Name}, src); err != nil {
			if apierrors.IsNotFound(err) {
				return nil, wait("%s %s does not exist", gk.Kind, ref.Name)
			}
			return nil, err
		}
		v, ok, err := configurator.Lookup(src.Object, field)
		if err != nil {
			return nil, terminal(core.ReasonInvalidValuesFrom, fmt.Sprintf("%s.from.field %q: %v", at, field, err))
		}
		if !ok || v == nil || v == "" {
			return nil, wait("%s %s has no %s yet", gk.Kind, ref.Name, field)
		}
		return v, nil
	case vf["configMapKeyRef"] != nil:
		k, _ := vf["configMapKeyRef"].(map[string]any)
		name, _ := k["name"].(string)
		key, _ := k["key"].(string)
		var cm corev1.ConfigMap
		if err := live.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &cm); err != nil {
			if apierrors.IsNotFound(err) {
				return nil, wait("ConfigMap %s does not exist", name)
			}
			return nil, err
		}
		v, ok := cm.Data[key]
		if !ok {
			return nil, wait("ConfigMap %s has no key %s", name, key)
		}
		return v, nil
	case vf["secretKeyRef"] != nil:
		k, _ := vf["secretKeyRef"].(map[string]any)
		name, _ := k["name"].(string)
		key, _ := k["key"].(string)
		secrets := r.Secrets
		if secrets == nil {
			secrets = r.Client
		}
		var s corev1.Secret
		if err := secrets.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &s); err != nil {
			if apierrors.IsNotFound(err) {
				return nil, wait("Secret %s does not exist", name)
			}
			return nil, err
		}
		v, ok := s.Data[key]
		if !ok {
			return nil, wait("Secret %s has no key %s", name, key)
		}
		return string(v), nil
	}
	return nil, terminal(core.ReasonInvalidValuesFrom, at+": set one of from, configMapKeyRef and secretKeyRef")
}
