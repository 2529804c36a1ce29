package reconciler

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"hash/fnv"
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/armature-dev/armature/runtime/descriptor"
)

// The status members the operator writes; every other member of status is
// ARM's GET body.
var operatorStatus = map[string]bool{"conditions": true, "observedGeneration": true, "lastOperation": true, "reconcilePlan": true, statusDigest: true}

// statusDigest is the status member, in the operator's cache only, that
// stands for the ARM body TransformForCache took out (encodeDigest's text
// of its digest). It is never written.
const statusDigest = "armature.dev/digest"

// armBody returns the ARM members of a status (nil when it holds none).
func armBody(status map[string]any) map[string]any {
	var out map[string]any
	for k, v := range status {
		if !operatorStatus[k] {
			if out == nil {
				out = map[string]any{}
			}
			out[k] = v
		}
	}
	return out
}

// normalize is an ARM body as the apiserver stores it in status: members
// the kind's schema does not know, and nulls, left out (in a copy). A body
// read from ARM is normalized before it is compared with or written to
// status, so that an unchanged resource compares equal.
func normalize(d *descriptor.Descriptor, body map[string]any) map[string]any {
	if body == nil {
		return nil
	}
	out := runtime.DeepCopyJSON(body)
	d.Walk(out, func(n descriptor.Node) bool {
		if !n.Known || n.Parent[n.Key] == nil {
			delete(n.Parent, n.Key)
			return false
		}
		if n.Class == descriptor.Secret || n.Class == descriptor.WriteOnly {
			// An API that echoes a secret (or a writeOnly value) does not
			// put it in status: secret values live only in Secrets.
			delete(n.Parent, n.Key)
			return false
		}
		if n.Class == descriptor.ReadOnly {
			// The table stops at a readOnly property: its subtree is ARM's,
			// kept whole but for nulls.
			dropNulls(n.Parent[n.Key])
			return false
		}
		return true
	})
	return out
}

// dropNulls removes the null members of every object in v.
func dropNulls(v any) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if x == nil {
				delete(v, k)
				continue
			}
			dropNulls(x)
		}
	case []any:
		for _, x := range v {
			dropNulls(x)
		}
	}
}

// A digest is what the cache keeps of status's ARM body (see
// TransformForCache): a hash per member, two levels deep — a top-level
// member that is an object by each of its members (properties.accessTier)
// and by a mark that it is an object, any other member by its whole value.
// It answers what the reconciler and the drift observer ask of a status
// they no longer hold: is this body the same (writeStatus), does a listed
// body say anything the status does not (the observer), does the status
// hold this value at this path (drift). Members are keyed by a 32-bit hash
// of their path's text form and valued by a 64-bit hash of their JSON:
// 12 bytes a member, kept as base64 text.
type digestMap map[uint32]uint64

// mapMark is the value of a member that is an object: its members have
// digests of their own.
var mapMark = valueHash("armature.dev/digest: an object")

// keyHash is the key of a member path's text form in a digest.
func keyHash(path string) uint32 {
	h := fnv.New32a()
	_, _ = h.Write([]byte(path))
	return h.Sum32()
}

// valueHash hashes a JSON value (ints and floats of one value hash alike).
func valueHash(v any) uint64 {
	b, _ := json.Marshal(v)
	sum := sha256.Sum256(b)
	return binary.BigEndian.Uint64(sum[:8])
}

// digest hashes the members of an ARM body two levels deep.
func digest(body map[string]any) digestMap {
	out := make(digestMap, len(body))
	for k, v := range body {
		m, ok := v.(map[string]any)
		if !ok {
			out[keyHash(descriptor.P(k).String())] = valueHash(v)
			continue
		}
		out[keyHash(descriptor.P(k).String())] = mapMark
		for c, cv := range m {
			out[keyHash(descriptor.P(k, c).String())] = valueHash(cv)
		}
	}
	return out
}

// at returns the digest's value for a member path and whether it holds one.
func (d digestMap) at(p descriptor.Path) (uint64, bool) {
	h, ok := d[keyHash(p.String())]
	return h, ok
}

// subsetDigest reports whether every member of part is in whole, alike:
// what a listed body says, the status says too.
func subsetDigest(part, whole digestMap) bool {
	for k, h := range part {
		if got, ok := whole[k]; !ok || got != h {
			return false
		}
	}
	return true
}

// digestOf returns the digest of a status: the one TransformForCache left,
// else computed from its ARM members.
func digestOf(status map[string]any) digestMap {
	if s, ok := status[statusDigest].(string); ok {
		return decodeDigest(s)
	}
	return digest(armBody(status))
}

// encodeDigest is the text form of a digest: its members in key order, 4
// bytes of key and 8 of value each, in base64.
func encodeDigest(d digestMap) string {
	raw := make([]byte, 0, 12*len(d))
	for _, k := range slices.Sorted(maps.Keys(d)) {
		raw = binary.BigEndian.AppendUint32(raw, k)
		raw = binary.BigEndian.AppendUint64(raw, d[k])
	}
	return base64.RawStdEncoding.EncodeToString(raw)
}

// decodeDigest reads encodeDigest's text (an unreadable one is empty: it
// matches nothing, so the object is read again).
func decodeDigest(s string) digestMap {
	raw, err := base64.RawStdEncoding.DecodeString(s)
	if err != nil || len(raw)%12 != 0 {
		return digestMap{}
	}
	out := make(digestMap, len(raw)/12)
	for ; len(raw) > 0; raw = raw[12:] {
		out[binary.BigEndian.Uint32(raw)] = binary.BigEndian.Uint64(raw[4:])
	}
	return out
}

// sameDigest reports whether two digests are equal.
func sameDigest(a, b digestMap) bool { return maps.Equal(a, b) }
