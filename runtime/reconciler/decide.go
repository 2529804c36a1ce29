package reconciler

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/armature-dev/armature/api/core"
	"github.com/armature-dev/armature/runtime/descriptor"
)

// Why a write is decided, in Write.Reason.
const (
	WhyCreate  = "create"
	WhyChanged = "spec changed since the last write"
	WhyLive    = "Azure differs from spec"
	WhyInSync  = "in sync"
)

// Write is what a reconcile sends to ARM for an object: the one decision
// shared by the reconciler (apply and the plan policy) and `operator plan`.
type Write struct {
	// Verb is PUT or PATCH; "" when nothing needs sending.
	Verb string
	// Body is the PUT body or the JSON merge patch, with real values (a
	// secret's value, not its hash).
	Body map[string]any
	// Create is true for the first PUT of a resource not known to exist.
	Create bool
	// Reason says why (the Why constants), with the paths that differ when
	// the live resource was compared.
	Reason string
	// NeedLive is true when the decision needs the live resource and none
	// was given: the change can only go through PUT (no PATCH, or PATCH
	// only takes tags), and the PUT must keep what others set in Azure.
	// Call decide again with the GET body.
	NeedLive bool
	// Ignored are the paths of spec.operatorSpec.ignoreChanges at which
	// Azure differs from spec (when the live resource was compared): not
	// corrected, shown by the plan.
	Ignored []string
}

// decide compares the desired ARM body with what was last applied (the
// armature.dev/last-applied annotation, secret values hashed; "" when
// nothing was) and, when known, the live resource (a GET body; nil when
// not read or not found). It reads nothing and writes nothing.
//
//   - Nothing applied, nothing live: PUT the desired body (create).
//   - Nothing applied, live known (adoption, or a plan of an existing
//     resource): the values the spec sets are compared with the live ones
//     (as drift is); none differ → no write; else the merge patch of the
//     differences.
//   - Applied and desired differ: the merge patch between them.
//   - Applied equals desired: no write.
//
// A merge patch goes as PATCH when the type has a PATCH that takes more
// than tags, else as PUT of the live body (readOnly values dropped) with
// the patch applied — which needs the live body (NeedLive).
//
// A patch that sets an embedded child collection (embedded.go) sends the
// spec's children merged with the live ones, which needs the live body
// too; a PUT of the live body carries the live children as they are.
//
// The paths of spec.operatorSpec.ignoreChanges (ign) are sent on create
// only: a write to a resource that exists leaves them out of the merge
// patch (inside an array item, which a merge patch replaces whole, they
// take the live value), and a difference there alone is no write.
func decide(d *descriptor.Descriptor, desired map[string]any, lastApplied string, live map[string]any) (Write, error) {
	return decideWith(d, desired, lastApplied, live, hash, nil)
}

// decideWith is decide with the digest of secret values the last-applied
// body holds (the reconciler's is keyed: sealer.secretDigest) and the
// object's ignored paths.
func decideWith(d *descriptor.Descriptor, desired map[string]any, lastApplied string, live map[string]any, digest func(any) string, ign ignored) (Write, error) {
	var patch map[string]any
	reason := WhyChanged
	ignoredDrift := ign.differs(desired, live)
	switch applied := mustJSON(hashSecretsWith(d, desired, digest)); {
	case lastApplied == "" && live == nil:
		return Write{Verb: http.MethodPut, Body: desired, Create: true, Reason: WhyCreate}, nil
	case lastApplied == "":
		diff := drift(d, ign.mask(desired), ign.mask(live))
		if len(diff) == 0 {
			return Write{Reason: WhyInSync, Ignored: ignoredDrift}, nil
		}
		reason = WhyLive + " at " + strings.Join(diff, ", ")
		var err error
		if patch, err = mergePatch(project(d, live, desired, nil), desired); err != nil {
			return Write{}, err
		}
	case lastApplied == applied:
		return Write{Reason: WhyInSync, Ignored: ignoredDrift}, nil
	default:
		var err error
		if patch, err = mergePatch(lastApplied, applied); err != nil {
			return Write{}, err
		}
		fillFrom(patch, desired)
	}
	if ign.fixPatch(patch, live) {
		return Write{Reason: reason, NeedLive: true}, nil
	}
	if len(ign) > 0 && live != nil {
		dropUnchanged(d, patch, live, nil)
	}
	if len(patch) == 0 {
		// Only ignored paths changed.
		return Write{Reason: WhyInSync, Ignored: ignoredDrift}, nil
	}
	if keepChildren(d, patch, desired, lastApplied, live) {
		return Write{Reason: reason, NeedLive: true}, nil
	}
	if d.HasVerb(http.MethodPatch) && !d.PatchTagsOnly {
		return Write{Verb: http.MethodPatch, Body: patch, Reason: reason, Ignored: ignoredDrift}, nil
	}
	if live == nil {
		return Write{Reason: reason, NeedLive: true}, nil
	}
	body, err := putBody(d, live, patch)
	if err != nil {
		return Write{}, err
	}
	return Write{Verb: http.MethodPut, Body: body, Reason: reason, Ignored: ignoredDrift}, nil
}

// mergePatch returns the JSON merge patch from one body to another; each
// may be a map or its JSON.
func mergePatch(from, to any) (map[string]any, error) {
	raw := func(v any) []byte {
		if s, ok := v.(string); ok {
			return []byte(s)
		}
		return []byte(mustJSON(v))
	}
	p, err := jsonpatch.CreateMergePatch(raw(from), raw(to))
	if err != nil {
		return nil, fmt.Errorf("merge patch: %w", err)
	}
	var out map[string]any
	return out, json.Unmarshal(p, &out)
}

// putBody is the live body without what a request must not carry (readOnly
// and unknown values) with the merge patch applied: what others set in
// Azure outside the spec is kept.
func putBody(d *descriptor.Descriptor, live, patch map[string]any) (map[string]any, error) {
	body := runtime.DeepCopyJSON(live)
	d.Walk(body, func(n descriptor.Node) bool {
		if !n.Known || n.Class == descriptor.ReadOnly {
			delete(n.Parent, n.Key)
			return false
		}
		return true
	})
	merged, err := jsonpatch.MergePatch([]byte(mustJSON(body)), []byte(mustJSON(patch)))
	if err != nil {
		return nil, fmt.Errorf("apply merge patch to the live body: %w", err)
	}
	var out map[string]any
	return out, json.Unmarshal(merged, &out)
}

// project keeps the members of live that want has, recursively, as drift
// compares them: an open object (tags, a free-form map) is kept whole, so
// that the merge patch to want removes the keys want does not have (else
// the patch would leave them, drift would see them again, and correcting
// it would PATCH forever).
func project(d *descriptor.Descriptor, live, want map[string]any, table descriptor.Path) map[string]any {
	out := map[string]any{}
	for k, wv := range want {
		lv, ok := live[k]
		if !ok {
			continue
		}
		tp, _, _ := d.Child(table, k)
		wm, wok := wv.(map[string]any)
		lm, lok := lv.(map[string]any)
		if wok && lok && !d.Open(tp) {
			out[k] = project(d, lm, wm, tp)
			continue
		}
		out[k] = lv
	}
	return out
}

// SecretResolver returns the value of the Secret key a spec references at
// a path (Secret name and key).
type SecretResolver func(path descriptor.Path, name, key string) (string, error)

// desiredBody builds the ARM body from spec: the operator fields dropped,
// each reference to another object replaced by the ARM id refs returns,
// the values spec.valuesFrom names set from values,
// each Secret reference by what resolve returns, then the kind's
// MutateBody hook.
func desiredBody(d *descriptor.Descriptor, obj *unstructured.Unstructured, refs RefResolver, values ValueResolver, resolve SecretResolver, mutate func(*unstructured.Unstructured, map[string]any) error) (map[string]any, error) {
	body := runtime.DeepCopyJSON(spec(obj))
	for _, f := range operatorFields {
		delete(body, f)
	}
	if err := resolveRefs(d.References, body, refs); err != nil {
		return nil, err
	}
	if values != nil {
		if err := resolveValues(d, obj, body, values); err != nil {
			return nil, err
		}
	}
	var err error
	d.Walk(body, func(n descriptor.Node) bool {
		if err != nil || !n.Known || n.Class != descriptor.Secret {
			return true
		}
		ref, ok := n.Parent[n.Key].(map[string]any)
		if !ok {
			return false
		}
		name, _ := ref["name"].(string)
		key, _ := ref["key"].(string)
		var v string
		if v, err = resolve(n.Path, name, key); err == nil {
			n.Parent[n.Key] = v
		}
		return false
	})
	if err != nil {
		return nil, err
	}
	if mutate != nil {
		if err := mutate(obj, body); err != nil {
			return nil, fmt.Errorf("MutateBody hook: %w", err)
		}
	}
	if missing := d.RequiredMissing(body); len(missing) > 0 {
		return nil, terminal(core.ReasonRequiredMissing, requiredMessage(missing))
	}
	return body, nil
}

// resolveID returns the ARM id of an object from its spec, without reading
// the cluster: spec.resourceID; else the owner's ARM id (spec.owner.armId,
// or ownerID: the status.id of the owner custom resource, or the scope
// `operator plan` was given) below which the resource is named; else the
// subscription for a kind whose owner is the subscription. ok is false
// when the owner's id is needed and unknown.
func resolveID(d *descriptor.Descriptor, obj *unstructured.Unstructured, ownerID, subscriptionID string) (id string, ok bool) {
	s := spec(obj)
	if rid, _ := s["resourceID"].(string); rid != "" {
		return rid, true
	}
	name := azureName(obj, d)
	owner, _ := s["owner"].(map[string]any)
	if a, _ := owner["armId"].(string); a != "" {
		return d.ID(a, name), true
	}
	if ownerID != "" {
		return d.ID(ownerID, name), true
	}
	if strings.EqualFold(d.OwnerARMType, descriptor.SubscriptionType) && subscriptionID != "" {
		return d.ID("/subscriptions/"+subscriptionID, name), true
	}
	return "", false
}

// requiredMessage says which values the ARM API requires that the resolved
// body leaves out, and how to give them.
func requiredMessage(missing []descriptor.Path) string {
	spec := make([]string, len(missing))
	for i, p := range missing {
		spec[i] = "spec." + p.String()
	}
	return fmt.Sprintf("the ARM API requires %s: set it in the spec, by its reference, or by spec.valuesFrom; nothing is sent until then", strings.Join(spec, ", "))
}
