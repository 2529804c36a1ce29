package reconciler

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/armature-dev/armature/api/core"
	"github.com/armature-dev/armature/runtime/arm"
	"github.com/armature-dev/armature/runtime/configurator"
)

// Outputs for workloads (spec.operatorSpec.configMaps and secrets,
// docs/references.md): values of the object — a path into it
// (status.properties.primaryEndpoints.blob, status.id) or into the answer
// of one of the kind's list actions (listKeys.keys[0].value) — written
// into ConfigMaps and Secrets of its namespace after the resource is
// observed, with configurator's OperatorSpec.Values. Each object applies
// its keys with a field manager of its own (server-side apply, never
// forced): a key another object writes is refused (OutputConflict), and
// the ConfigMap or Secret is owned by every object that writes to it.
// What was written is remembered by digest: an unchanged value costs no
// apiserver write. A value from an action is a secret: it goes only to a
// Secret.

// outputsOf reads spec.operatorSpec's outputs; ok is false when there are
// none.
func outputsOf(obj *unstructured.Unstructured) (configurator.OperatorSpec, bool, error) {
	os, err := configurator.ReadOperatorSpec(spec(obj))
	if err != nil {
		return os, false, err
	}
	return os, len(os.ConfigMaps)+len(os.Secrets) > 0, nil
}

// listAction returns the action a value path starts with when it is one
// of the kind's list actions (listKeys, listConnectionStrings…): the read
// only POSTs, never one that changes the resource (regenerateKey).
func (r *Reconciler) listAction(path string) (name string, ok bool) {
	first, _, _ := strings.Cut(path, ".")
	first, _, _ = strings.Cut(first, "[")
	if !strings.HasPrefix(strings.ToLower(first), "list") {
		return "", false
	}
	a, ok := r.Desc.Action(first)
	if !ok || (a.Request != nil && a.Request.Required) {
		return "", false
	}
	return first, true
}

// writeOutputs writes the object's outputs from body (the status body of
// this reconcile) and the answers of the list actions they name.
func (r *Reconciler) writeOutputs(ctx context.Context, obj *unstructured.Unstructured, armClient arm.Client, id string, body map[string]any) error {
	os, ok, err := outputsOf(obj)
	if err != nil || !ok {
		return err
	}
	if err := r.checkOutputs(obj, os); err != nil {
		return err
	}
	extra := map[string]any{}
	for _, o := range os.Secrets {
		name, isAction := r.listAction(o.Value)
		if !isAction || extra[name] != nil {
			continue
		}
		p, isPoster := armClient.(arm.Poster)
		if !isPoster {
			return fmt.Errorf("output %s: the ARM client cannot POST", name)
		}
		res, err := p.Post(ctx, id, r.Desc.APIVersion, arm.PostRequest{Action: name})
		observeARM("POST", err)
		if err != nil {
			return step("POST "+id+"/"+name, err)
		}
		if res.Token != "" || res.Body == nil {
			return fmt.Errorf("output %s: the action answered no body", name)
		}
		extra[name] = res.Body
	}
	status := maps.Clone(body)
	if status == nil {
		status = map[string]any{}
	}
	if _, ok := status["id"]; !ok {
		status["id"] = id // as status shows it
	}
	withStatus := obj.DeepCopy()
	withStatus.Object["status"] = status
	vals, err := os.Values(configurator.NewResource(withStatus), extra)
	if err != nil {
		return terminal(core.ReasonInvalidOutputs, "spec.operatorSpec: "+err.Error())
	}
	// Values not there yet leave the digest unrecorded: written again
	// when they arrive.
	digest, complete := outputsDigest(vals), len(vals.Missing) == 0
	if complete && r.mem.outputsWritten(obj.GetUID(), digest) {
		return nil
	}
	manager := outputManager(r.Desc.Kind, obj.GetName())
	for _, name := range slices.Sorted(maps.Keys(vals.ConfigMaps)) {
		data := map[string]any{}
		for k, v := range vals.ConfigMaps[name] {
			data[k] = v
		}
		if err := r.applyOutput(ctx, obj, "ConfigMap", name, data, manager); err != nil {
			return err
		}
	}
	for _, name := range slices.Sorted(maps.Keys(vals.Secrets)) {
		data := map[string]any{}
		for k, v := range vals.Secrets[name] {
			data[k] = base64.StdEncoding.EncodeToString([]byte(v))
		}
		if err := r.applyOutput(ctx, obj, "Secret", name, data, manager); err != nil {
			return err
		}
	}
	if complete {
		r.mem.wroteOutputs(obj.GetUID(), digest)
	}
	return nil
}

// checkOutputs refuses outputs that could make an object's editor a
// writer of arbitrary ConfigMaps and Secrets: a value is something Azure
// or the operator produced (status, or a list action's answer; never the
// editor's own spec or metadata), an action's answer goes only to a
// Secret, and no output names a credential Secret.
func (r *Reconciler) checkOutputs(obj *unstructured.Unstructured, os configurator.OperatorSpec) error {
	credential := obj.GetAnnotations()[core.AnnotationCredential]
	for _, kind := range []string{"configMaps", "secrets"} {
		list := os.ConfigMaps
		if kind == "secrets" {
			list = os.Secrets
		}
		for _, o := range list {
			at := fmt.Sprintf("spec.operatorSpec.%s %s/%s", kind, o.Name, o.Key)
			name, isAction := r.listAction(o.Value)
			switch {
			case isAction && kind == "configMaps":
				return terminal(core.ReasonInvalidOutputs, fmt.Sprintf("%s: %s answers secrets; write it to a Secret (spec.operatorSpec.secrets)", at, name))
			case !isAction && !strings.HasPrefix(o.Value, "status."):
				return terminal(core.ReasonInvalidOutputs, fmt.Sprintf("%s: value %q is not status.… or a list action's answer", at, o.Value))
			case kind == "secrets" && (o.Name == core.CredentialSecret || o.Name == credential):
				return terminal(core.ReasonInvalidOutputs, fmt.Sprintf("%s: %s is a credential Secret; outputs never write one", at, o.Name))
			}
		}
	}
	return nil
}

// outputsOwned reports whether the ConfigMap or Secret does not exist yet
// or is one outputs wrote (owned by this object, or by an object of a kind
// the operator serves): outputs never add keys to a ConfigMap or Secret
// someone else made.
func (r *Reconciler) outputsOwned(ctx context.Context, owner *unstructured.Unstructured, kind, name string) (bool, error) {
	ns := owner.GetNamespace()
	live := r.APIReader
	if live == nil {
		live = r.Client
	}
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("v1")
	u.SetKind(kind)
	if err := live.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, u); err != nil {
		return apierrors.IsNotFound(err), client.IgnoreNotFound(err)
	}
	for _, ref := range u.GetOwnerReferences() {
		group, _, _ := strings.Cut(ref.APIVersion, "/")
		if served := r.kinds.has(schema.GroupKind{Group: group, Kind: ref.Kind}); served || ref.UID == owner.GetUID() {
			return true, nil
		}
	}
	return false, nil
}

// applyOutput applies the object's keys of one ConfigMap or Secret.
func (r *Reconciler) applyOutput(ctx context.Context, owner *unstructured.Unstructured, kind, name string, data map[string]any, manager string) error {
	if ok, err := r.outputsOwned(ctx, owner, kind, name); err != nil {
		return step("read "+kind+" "+name, err)
	} else if !ok {
		return waitWorld(core.ReasonOutputConflict, fmt.Sprintf("%s %s exists and was not made by outputs: outputs write only ConfigMaps and Secrets they create; name another", kind, name))
	}
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": kind, "data": data}}
	if kind == "Secret" {
		u.Object["type"] = "Opaque"
	}
	u.SetNamespace(owner.GetNamespace())
	u.SetName(name)
	ref := ownerRef(owner)
	u.SetOwnerReferences([]metav1.OwnerReference{ref})
	err := r.Client.Patch(ctx, u, client.Apply, client.FieldOwner(manager))
	if apierrors.IsConflict(err) {
		return waitWorld(core.ReasonOutputConflict, fmt.Sprintf("%s %s: another object writes a key this one names in spec.operatorSpec (%v); one writer per key: rename the key or the %s", kind, name, err, kind))
	}
	return step("apply "+kind+" "+name, err)
}

// outputManager is the field manager of one object's outputs (at most
// 128 characters).
func outputManager(kind, name string) string {
	m := "armature.dev/" + strings.ToLower(kind) + "/" + name
	if len(m) > 128 {
		sum := sha256.Sum256([]byte(m))
		m = m[:100] + fmt.Sprintf("-%x", sum[:8])
	}
	return m
}

// outputsDigest is a digest of the values to write (secret values
// included: only its hash is kept).
func outputsDigest(o configurator.Outputs) [32]byte {
	plain := map[string]map[string]string{}
	for n, kv := range o.ConfigMaps {
		plain["c/"+n] = kv
	}
	for n, kv := range o.Secrets {
		m := map[string]string{}
		for k, v := range kv {
			m[k] = string(v)
		}
		plain["s/"+n] = m
	}
	b, _ := json.Marshal(plain)
	return sha256.Sum256(b)
}
