package reconciler

import (
	"bytes"
	"compress/flate"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"strings"
	"sync"
	"unique"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/armature-dev/armature/api/core"
)

// This file is the slim form of a cached object (TransformForCache): what
// is packed, how, and how it is unpacked.

// pack moves every member but apiVersion, kind and the kept metadata into
// packedKey, and sets the summary members. The members kept get maps of
// their own size (the decoded ones were sized for the whole object) and
// interned strings where objects share them.
func pack(u *unstructured.Unstructured) error {
	slim := make(map[string]any, 7)
	if id := statusID(u); id != "" {
		slim[slimID] = id
	}
	if ready(u) {
		slim[slimReady] = "True"
	}
	if g, k, n := specOwner(u); n != "" {
		slim[slimOwner] = g + "/" + k + "/" + n
	}
	if refs := secretRefs(u); len(refs) > 0 {
		slim[slimSecrets] = intern(strings.Join(refs, ","))
	}
	if refs := refTargets(u); len(refs) > 0 {
		slim[slimRefs] = strings.Join(refs, ",")
	}
	if srcs := valueSources(u); len(srcs) > 0 {
		slim[slimValues] = strings.Join(srcs, ",")
	}
	if st, ok := u.Object["status"].(map[string]any); ok {
		if d, ok := st[statusDigest].(string); ok && d != "" {
			slim[slimStatus] = d
		}
	}
	rest := make(map[string]any, len(u.Object))
	for k, v := range u.Object {
		switch k {
		case "apiVersion":
			slim["apiVersion"] = internValue(v)
		case "kind":
			slim["kind"] = internValue(v)
		case "metadata":
			md, _ := v.(map[string]any)
			kept, moved := splitMetadata(md)
			if kept != nil {
				slim["metadata"] = kept
			}
			if len(moved) > 0 {
				rest["metadata"] = moved
			}
		default:
			rest[k] = v
		}
	}
	raw, err := json.Marshal(rest)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	deflater.Lock()
	defer deflater.Unlock()
	w := deflater.writer()
	w.Reset(&buf)
	if _, err := w.Write(raw); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	// Text, not []byte: the cache deep-copies objects as JSON values, and
	// base64 survives a JSON round trip (a fake client's, a debug dump).
	slim[packedKey] = base64.StdEncoding.EncodeToString(buf.Bytes())
	u.Object = slim
	return nil
}

// splitMetadata returns the kept metadata members (keptMetadata, the
// annotations but packedAnnotations) in a new map, and the others.
func splitMetadata(md map[string]any) (kept, moved map[string]any) {
	n := 0
	for _, k := range keptMetadata {
		if _, ok := md[k]; ok {
			n++
		}
	}
	kept = make(map[string]any, n)
	moved = maps.Clone(md)
	// The kept map's keys are keptMetadata's constant strings, not the
	// decoder's copies.
	for _, k := range keptMetadata {
		v, ok := md[k]
		if !ok {
			continue
		}
		delete(moved, k)
		switch k {
		case "labels":
			kept[k] = internMap(v, nil)
		case "annotations":
			big := map[string]any{}
			if a, ok := internMap(v, big).(map[string]any); !ok || len(a) > 0 {
				kept[k] = a
			}
			if len(big) > 0 {
				moved[k] = big
			}
		case "finalizers", "namespace":
			kept[k] = internValue(v)
		default:
			kept[k] = v
		}
	}
	if len(kept) == 0 {
		kept = nil
	}
	return kept, moved
}

// internMap copies a map of strings with interned keys and values; with
// big, the packedAnnotations go there instead.
func internMap(v any, big map[string]any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	out := make(map[string]any, len(m))
	for k, x := range m {
		if big != nil && packedAnnotations[k] {
			big[k] = x
			continue
		}
		out[intern(k)] = internValue(x)
	}
	return out
}

// internValue interns a string, or the strings of a list.
func internValue(v any) any {
	switch x := v.(type) {
	case string:
		return intern(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = internValue(e)
		}
		return out
	}
	return v
}

// intern returns the canonical copy of s: objects share their namespace,
// kind, labels, finalizers and annotation names. Copies no object uses any
// more are collected (package unique).
func intern(s string) string { return unique.Make(s).Value() }

// deflater is the one flate writer of every pack (a writer holds about 600
// KiB of tables; packing takes some 20 µs, so informers seldom wait).
var deflater sharedDeflater

type sharedDeflater struct {
	sync.Mutex
	w *flate.Writer
}

// writer is the writer, made on first use; the lock must be held.
func (d *sharedDeflater) writer() *flate.Writer {
	if d.w == nil {
		d.w, _ = flate.NewWriterDict(nil, flate.BestSpeed, packDictionary)
	}
	return d.w
}

// unpack returns the object content with its packed members back in
// place: obj itself when it is not packed, else a new map that shares no
// map obj holds (obj may be the cache's own, read without a copy).
func unpack(obj map[string]any) (map[string]any, error) {
	s, ok := obj[packedKey].(string)
	if !ok {
		return obj, nil
	}
	deflated, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("cache: unpack: %w", err)
	}
	raw, err := inflate(deflated)
	if err != nil {
		return nil, fmt.Errorf("cache: unpack: %w", err)
	}
	var packed map[string]any
	// util/json: integers as int64, as the apiserver's objects decode.
	if err := utiljson.Unmarshal(raw, &packed); err != nil {
		return nil, fmt.Errorf("cache: unpack: %w", err)
	}
	out := make(map[string]any, len(obj)+len(packed))
	for k, v := range obj {
		out[k] = v
	}
	for _, k := range slimKeys {
		delete(out, k)
	}
	merge(out, packed)
	return out, nil
}

// inflaters reuse flate readers: each holds a 32 KiB window, and the
// reconciler unpacks objects on every read.
var inflaters = sync.Pool{New: func() any { return flate.NewReaderDict(nil, packDictionary) }}

// inflate undoes pack's deflation.
func inflate(deflated []byte) ([]byte, error) {
	r := inflaters.Get().(io.ReadCloser)
	defer inflaters.Put(r)
	if err := r.(flate.Resetter).Reset(bytes.NewReader(deflated), packDictionary); err != nil {
		return nil, err
	}
	out := bytes.NewBuffer(make([]byte, 0, 4*len(deflated)))
	_, err := out.ReadFrom(r)
	return out.Bytes(), err
}

// merge sets src's members in dst; a member that is an object in both is
// merged into a copy of dst's.
func merge(dst, src map[string]any) {
	for k, v := range src {
		sm, ok := v.(map[string]any)
		dm, ok2 := dst[k].(map[string]any)
		if !ok || !ok2 {
			dst[k] = v
			continue
		}
		cp := maps.Clone(dm)
		merge(cp, sm)
		dst[k] = cp
	}
}

// packDictionary primes the deflation of packed members with what they
// usually say (deflate finds it in the dictionary as in earlier text).
// Changing it changes nothing but sizes: the cache lives in memory only.
var packDictionary = func() []byte {
	const sub = "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/"
	token, _ := json.Marshal(map[string]any{"type": "body", "token": map[string]any{"type": "loc",
		"pollURL": "https://management.azure.com" + sub + "providers/Microsoft./locations/westeurope/asyncoperations/00000000-0000-0000-0000-000000000000?monitor=true&api-version=2023-01-01",
		"state":   "InProgress"}})
	op, _ := json.Marshal(map[string]any{"verb": "PUT", "token": string(token), "applied": `{"location":"westeurope","properties":{}}`, "started": "2026-01-01T00:00:00Z", "create": true})
	cond := func(typ, status, reason string) map[string]any {
		return map[string]any{"lastTransitionTime": "2026-01-01T00:00:00Z", "message": "", "observedGeneration": 1, "reason": reason, "status": status, "type": typ}
	}
	b, _ := json.Marshal(map[string]any{
		"metadata": map[string]any{
			"annotations":     map[string]any{core.AnnotationARMID: sub + "rg/providers/Microsoft.", core.AnnotationLastApplied: `{"location":"westeurope","properties":{},"tags":{}}`, core.AnnotationOperation: string(op)},
			"managedFields":   []any{map[string]any{"apiVersion": ".azure.armature.dev/v2023", "fieldsType": "FieldsV1", "fieldsV1": map[string]any{"f:spec": map[string]any{}}, "manager": "kubectl", "operation": "Update", "time": "2026-01-01T00:00:00Z"}},
			"ownerReferences": []any{map[string]any{"apiVersion": "resources.azure.armature.dev/v2024", "blockOwnerDeletion": false, "kind": "ResourceGroup", "name": "", "uid": "00000000-0000-0000-0000-000000000000"}},
		},
		"spec": map[string]any{"azureName": "", "location": "westeurope", "owner": map[string]any{"name": ""}, "properties": map[string]any{}, "sku": map[string]any{"name": "Standard_LRS"}, "tags": map[string]any{}},
		"status": map[string]any{statusDigest: "", "conditions": []any{cond(core.ConditionReady, "True", core.ReasonSucceeded), cond(core.ConditionActionRequired, "False", core.ReasonNone)},
			"lastOperation": "PUT sha256:", "observedGeneration": 1},
	})
	return b
}()
