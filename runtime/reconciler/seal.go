package reconciler

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/armature-dev/armature/api/core"
)

// Records the reconciler reads back from an object — the operation in
// flight (AnnotationOperation) and the ARM id it created or adopted
// (AnnotationARMID) — are bound to the object with an HMAC under a key
// only the operator holds (Config.StateKey): a record an editor of the
// object wrote, or copied from another object, does not verify and is
// ignored with an event. Nothing an editor can write decides where the
// operator sends its token or which id it writes or deletes.

// sealer computes and checks the HMACs of records.
type sealer struct{ key []byte }

// processKey is the key of a Config without StateKey: random, this
// process's only.
var processKey = sync.OnceValue(func() []byte {
	k := make([]byte, 32)
	if _, err := rand.Read(k); err != nil {
		panic("reconciler: no randomness for the state key: " + err.Error())
	}
	return k
})

func newSealer(key []byte) sealer {
	if len(key) == 0 {
		key = processKey()
	}
	return sealer{key: key}
}

// mac is the HMAC of what (a record's name), the object's UID and payload.
func (s sealer) mac(what string, uid types.UID, payload string) string {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte(what))
	m.Write([]byte{0})
	m.Write([]byte(uid))
	m.Write([]byte{0})
	m.Write([]byte(payload))
	return hex.EncodeToString(m.Sum(nil)[:16])
}

func (s sealer) valid(what string, uid types.UID, payload, mac string) bool {
	if mac == "" || len(s.key) == 0 {
		return false
	}
	return hmac.Equal([]byte(s.mac(what, uid, payload)), []byte(mac))
}

// secretDigest is the keyed digest of a secret value in the last-applied
// body: it tells a changed value from the same one, and cannot be reversed
// by guessing without the key.
func (s sealer) secretDigest(v any) string {
	return "hmac:" + s.mac("secret", "", mustJSON(v))[:24]
}

// The names of the records, in their HMACs.
const (
	recordOperation = "operation"
	recordARMID     = "arm-id"
)

// sealOperation returns the annotation value of op, sealed to uid.
func (s sealer) sealOperation(uid types.UID, op operation) string {
	op.Seal = ""
	op.Seal = s.mac(recordOperation, uid, mustJSON(op))
	return mustJSON(op)
}

// openOperation parses an operation annotation; ok is false when it is
// not one, or not sealed to uid under this key.
func (s sealer) openOperation(uid types.UID, raw string) (op *operation, ok bool) {
	op = parseOperation(raw)
	if op == nil {
		return nil, false
	}
	c := *op
	c.Seal = ""
	return op, s.valid(recordOperation, uid, mustJSON(c), op.Seal)
}

// parseOperation reads an operation annotation without checking its seal;
// nil when it is not one.
func parseOperation(raw string) *operation {
	if raw == "" {
		return nil
	}
	var op operation
	if json.Unmarshal([]byte(raw), &op) != nil || op.Verb == "" {
		return nil
	}
	return &op
}

// setARMID records id as the object's ARM id, sealed.
func (s sealer) setARMID(obj *unstructured.Unstructured, id string) {
	setAnnotation(obj, core.AnnotationARMID, id)
	setAnnotation(obj, core.AnnotationSeal, s.mac(recordARMID, obj.GetUID(), strings.ToLower(id)))
}

// armID is the object's recorded ARM id when its seal verifies; "" when
// there is none or it does not verify (forged is then true).
func (s sealer) armID(obj *unstructured.Unstructured) (id string, forged bool) {
	a := obj.GetAnnotations()
	id = a[core.AnnotationARMID]
	if id == "" {
		return "", false
	}
	if !s.valid(recordARMID, obj.GetUID(), strings.ToLower(id), a[core.AnnotationSeal]) {
		return "", true
	}
	return id, false
}
