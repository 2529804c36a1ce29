package reconciler

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"maps"
	"net/url"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/armature-dev/armature/runtime/descriptor"
)

// The status members the operator writes; every other member of status is
// ARM's GET body.
var operatorStatus = map[string]bool{"conditions": true, "observedGeneration": true, "lastOperation": true, "reconcilePlan": true, statusDigest: true}

// statusDigest is the status member, in the operator's cache only, that
// stands for the ARM body TransformForCache took out: "key=hash,…" for
// each top-level member of the body (see digestOf). It is never written.
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

// hashOf is a short hash of a JSON value (ints and floats of one value hash
// alike).
func hashOf(v any) string {
	b, _ := json.Marshal(v)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

// mapMark is the digest of a member that is an object: its members have
// digests of their own ("properties.accessTier").
const mapMark = "{}"

// digest hashes the members of an ARM body two levels deep: a top-level
// member that is an object by each of its members (its path's text form,
// properties.accessTier), any other by its whole value.
func digest(body map[string]any) map[string]string {
	out := make(map[string]string, len(body))
	for k, v := range body {
		m, ok := v.(map[string]any)
		if !ok {
			out[descriptor.P(k).String()] = hashOf(v)
			continue
		}
		out[descriptor.P(k).String()] = mapMark
		for c, cv := range m {
			out[descriptor.P(k, c).String()] = hashOf(cv)
		}
	}
	return out
}

// subsetDigest reports whether every digest of part is in whole, alike:
// what a listed body says, the status says too.
func subsetDigest(part, whole map[string]string) bool {
	for k, h := range part {
		if whole[k] != h {
			return false
		}
	}
	return true
}

// digestOf returns the digest of a status: the one TransformForCache left,
// else computed from its ARM members.
func digestOf(status map[string]any) map[string]string {
	if s, ok := status[statusDigest].(string); ok {
		out := map[string]string{}
		for _, kv := range strings.Split(s, ",") {
			if k, v, ok := strings.Cut(kv, "="); ok {
				if key, err := url.QueryUnescape(k); err == nil {
					out[key] = v
				}
			}
		}
		return out
	}
	return digest(armBody(status))
}

// encodeDigest is the text form of a digest, in key order.
func encodeDigest(d map[string]string) string {
	var b strings.Builder
	for i, k := range slices.Sorted(maps.Keys(d)) {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(url.QueryEscape(k) + "=" + d[k])
	}
	return b.String()
}

// sameDigest reports whether two digests are equal.
func sameDigest(a, b map[string]string) bool { return maps.Equal(a, b) }
