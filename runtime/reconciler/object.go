package reconciler

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/armature-dev/armature/api/core"
	"github.com/armature-dev/armature/runtime/descriptor"
)

// Operator fields of spec: not part of the ARM body, never sent to ARM.
var operatorFields = []string{"azureName", "owner", "resourceID", "operatorSpec", "valuesFrom"}

// specPath is the root of field paths in messages.
var specPath = field.NewPath("spec")

// operation is the content of AnnotationOperation: an operation in flight
// (with its resume token), or the intent of a create recorded before its
// PUT (no token; see claim).
type operation struct {
	Verb  string `json:"verb"`
	Token string `json:"token,omitempty"`
	// Applied is the last-applied value to record when the operation ends.
	Applied string `json:"applied,omitempty"`
	// Started is when the operation started (RFC 3339).
	Started string `json:"started,omitempty"`
	// Create is true for the PUT that creates the resource.
	Create bool `json:"create,omitempty"`
	// ID is the ARM id the operation writes or deletes.
	ID string `json:"id,omitempty"`
	// Seal is the HMAC binding the record to the object (seal.go).
	Seal string `json:"seal,omitempty"`
	// completes, on an operation this process keeps in memory (pendingOf, apply.go),
	// is the opHash of the create intent recorded on the object that the
	// operation's end completes. Never stored.
	completes string
}

// slowOperation is how long an operation runs before its progress is
// written to the Ready condition: quicker ones cost no status write.
const slowOperation = 15 * time.Second

// slowOwner is how long a new object waits for an owner that exists
// before WaitingForOwner is written to its status: an owner on its way
// (its own operation, ARM's budget) costs no status write.
const slowOwner = 2 * time.Minute

func spec(obj *unstructured.Unstructured) map[string]any {
	s, _ := obj.Object["spec"].(map[string]any)
	if s == nil {
		s = map[string]any{}
	}
	return s
}

// azureName is the resource's name in Azure.
func azureName(obj *unstructured.Unstructured, d *descriptor.Descriptor) string {
	if n, _ := spec(obj)["azureName"].(string); n != "" {
		return n
	}
	if d.Singleton != "" {
		return d.Singleton
	}
	return obj.GetName()
}

// conditions reads status.conditions.
func conditions(obj *unstructured.Unstructured) []metav1.Condition {
	raw, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	var out []metav1.Condition
	for _, c := range raw {
		m, ok := c.(map[string]any)
		if !ok {
			continue
		}
		var cond metav1.Condition
		if runtime.DefaultUnstructuredConverter.FromUnstructured(m, &cond) == nil {
			out = append(out, cond)
		}
	}
	return out
}

// ready reports the Ready condition of an object.
func ready(obj *unstructured.Unstructured) bool {
	if _, slim := obj.Object[packedKey]; slim {
		return obj.Object[slimReady] == "True"
	}
	return meta.IsStatusConditionTrue(conditions(obj), core.ConditionReady)
}

// IsReady reports whether a generated kind's custom resource has
// Ready=True.
func IsReady(obj *unstructured.Unstructured) bool { return ready(obj) }

// ReadinessChanged reports whether an update changed what dependents of a
// resource care about: its Ready condition or its ARM id (status.id).
// Updates of other types count as changed.
func ReadinessChanged(oldObj, newObj client.Object) bool {
	o, ok1 := oldObj.(*unstructured.Unstructured)
	n, ok2 := newObj.(*unstructured.Unstructured)
	if !ok1 || !ok2 {
		return true
	}
	return statusID(o) != statusID(n) || ready(o) != ready(n)
}

func hash(v any) string {
	b, _ := json.Marshal(v)
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:12])
}

// hashSecrets replaces the values at the descriptor's secret paths with
// their hashes, in a copy. The reconciler uses hashSecretsWith and a keyed
// digest (sealer.secretDigest): an unkeyed hash of a weak password can be
// reversed by guessing.
func hashSecrets(d *descriptor.Descriptor, body map[string]any) map[string]any {
	return hashSecretsWith(d, body, hash)
}

// hashSecretsWith replaces the values at the descriptor's secret paths
// with digest(value), in a copy.
func hashSecretsWith(d *descriptor.Descriptor, body map[string]any, digest func(any) string) map[string]any {
	out := runtime.DeepCopyJSON(body)
	d.Walk(out, func(n descriptor.Node) bool {
		if n.Known && n.Class == descriptor.Secret {
			n.Parent[n.Key] = digest(n.Parent[n.Key])
			return false
		}
		return true
	})
	return out
}

// redactSecrets replaces the values at the descriptor's secret paths with
// Redacted, in a copy.
func redactSecrets(d *descriptor.Descriptor, body map[string]any) map[string]any {
	return hashSecretsWith(d, body, func(any) string { return core.Redacted })
}

// fillFrom replaces the values of a merge patch computed on hashed bodies
// with the real values of desired.
func fillFrom(patch, desired map[string]any) {
	for k, v := range patch {
		if v == nil {
			continue
		}
		dv, ok := desired[k]
		if !ok {
			continue
		}
		pm, pok := v.(map[string]any)
		dm, dok := dv.(map[string]any)
		if pok && dok {
			fillFrom(pm, dm)
			continue
		}
		patch[k] = dv
	}
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("reconciler: marshal: %v", err))
	}
	return string(b)
}
