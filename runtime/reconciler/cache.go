package reconciler

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/armature-dev/armature/api/core"
)

// kubectlLastApplied is kubectl's copy of the whole object: the reconciler
// never reads it.
const kubectlLastApplied = "kubectl.kubernetes.io/last-applied-configuration"

// specFields is what a compacted managedFields entry keeps of its fields:
// that it owned spec fields, which is all versions.go asks.
var specFields = []byte(`{"f:spec":{}}`)

// The top-level members of a slim object (see TransformForCache), in the
// operator's cache only; never written.
const (
	// packedKey holds the deflated JSON of the members taken out, as
	// {"spec": …, "status": …, "metadata": {…}}.
	packedKey = "armature.dev/packed"
	// slimID is status.id.
	slimID = "armature.dev/id"
	// slimReady is "True" when the Ready condition is.
	slimReady = "armature.dev/ready"
	// slimOwner is spec.owner's group, kind and name, as
	// "group/kind/name" (either of the first two may be empty).
	slimOwner = "armature.dev/owner"
)

// slimKeys are the members unpack drops.
var slimKeys = []string{packedKey, slimID, slimReady, slimOwner, slimSecrets, slimRefs, slimValues, slimStatus}

// The metadata members a slim object keeps decoded: what predicates,
// event handlers and field selectors read of an object the informer
// hands them without unpacking (generation, deletion, labels, the policy
// and sync-period annotations).
var keptMetadata = []string{"name", "namespace", "uid", "resourceVersion", "generation",
	"creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "labels", "annotations", "finalizers"}

// packedAnnotations are the reconciler's own large annotations: packed
// with spec and status, not kept decoded.
var packedAnnotations = map[string]bool{
	core.AnnotationLastApplied: true, core.AnnotationOperation: true, core.AnnotationPlan: true,
}

// TransformForCache returns a cache transform (cache.Options.
// DefaultTransform) that keeps in the operator's informer cache only what
// the reconciler reads: managedFields keep one entry, the latest to own
// spec fields, without its field sets (the mark `{"f:spec":{}}` stays:
// the choice of version reads it), and kubectl's
// last-applied-configuration annotation goes.
//
// With slim (every operator without compositions that read status
// fields), objects are also made small:
//   - status keeps its id and the operator's members, the ARM body
//     replaced by its digest (see writeStatus and the drift observer,
//     which compare digests);
//   - everything but apiVersion, kind and the metadata predicates read
//     (keptMetadata, and the annotations but the reconciler's large ones)
//     is packed into one deflated JSON member, packedKey: about a quarter
//     of the decoded size; what event handlers, predicates and indexes
//     read beside metadata — status.id, readiness, spec.owner — is kept
//     as three strings (slimID, slimReady, slimOwner; see statusID,
//     ready and specOwner).
//
// A slim object must be read through CacheReader, which unpacks it;
// SetupAll and the Action controller wrap the manager's client so. Every
// unstructured object of the cache is taken for a generated kind's. The
// reconciler writes with patches that never carry what the transform took
// out; it never Updates a whole object. Objects that are not unstructured
// pass through.
func TransformForCache(slim bool) func(any) (any, error) {
	return func(obj any) (any, error) { return transform(obj, slim) }
}

func transform(obj any, slim bool) (any, error) {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok || u.Object[packedKey] != nil {
		return obj, nil
	}
	if status, ok := u.Object["status"].(map[string]any); ok && slim && status[statusDigest] == nil {
		if body := armBody(status); len(body) > 0 {
			kept := operatorPart(status)
			if id, ok := status["id"]; ok {
				kept["id"] = id
			}
			kept[statusDigest] = encodeDigest(digest(body))
			u.Object["status"] = kept
		}
	}
	if a := u.GetAnnotations(); a[kubectlLastApplied] != "" {
		delete(a, kubectlLastApplied)
		u.SetAnnotations(a)
	}
	if mf := u.GetManagedFields(); len(mf) > 0 {
		u.SetManagedFields(compactManagedFields(mf))
	}
	if !slim {
		return u, nil
	}
	if err := pack(u); err != nil {
		return nil, fmt.Errorf("cache: pack %s %s/%s: %w", u.GetKind(), u.GetNamespace(), u.GetName(), err)
	}
	return u, nil
}

// compactManagedFields keeps the entry specWriterVersion would choose,
// with its field sets reduced to the mark that it owned spec fields; none
// when no entry owned spec fields.
func compactManagedFields(mf []metav1.ManagedFieldsEntry) []metav1.ManagedFieldsEntry {
	var best *metav1.ManagedFieldsEntry
	for i := range mf {
		e := &mf[i]
		if e.Subresource != "" || e.FieldsV1 == nil || !bytes.Contains(e.FieldsV1.Raw, []byte(`"f:spec"`)) {
			continue
		}
		if best == nil || (e.Time != nil && best.Time != nil && best.Time.Before(e.Time)) || (best.Time == nil && e.Time != nil) {
			best = e
		}
	}
	if best == nil {
		return nil
	}
	e := *best
	e.FieldsV1 = &metav1.FieldsV1{Raw: specFields}
	return []metav1.ManagedFieldsEntry{e}
}

// Unpacked returns u with what TransformForCache packed back in place: u
// itself when it is not packed, else a copy (u is left as it is, so it may
// be the cache's own). Objects read through CacheReader are unpacked
// already; event handlers and predicates get what the informer holds.
func Unpacked(u *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	if _, ok := u.Object[packedKey]; !ok {
		return u, nil
	}
	obj, err := unpack(u.Object)
	if err != nil {
		return nil, err
	}
	return &unstructured.Unstructured{Object: obj}, nil
}

// CacheReader wraps a client whose cache holds slim objects
// (TransformForCache) so that its Get and List return them whole. Writes
// pass through. Wrapping twice is harmless.
func CacheReader(c client.Client) client.Client {
	if _, ok := c.(cacheReader); ok {
		return c
	}
	return cacheReader{Client: c}
}

type cacheReader struct{ client.Client }

// Get implements client.Reader.
func (c cacheReader) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	if err := c.Client.Get(ctx, key, obj, opts...); err != nil {
		return err
	}
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return nil
	}
	o, err := unpack(u.Object)
	if err != nil {
		return err
	}
	u.Object = o
	return nil
}

// List implements client.Reader.
func (c cacheReader) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	if err := c.Client.List(ctx, list, opts...); err != nil {
		return err
	}
	ul, ok := list.(*unstructured.UnstructuredList)
	if !ok {
		return nil
	}
	for i := range ul.Items {
		o, err := unpack(ul.Items[i].Object)
		if err != nil {
			return err
		}
		ul.Items[i].Object = o
	}
	return nil
}

var _ client.Client = cacheReader{}

// slimReader reads the cache without unpacking, for reads of what a slim
// object keeps decoded: metadata, statusID, ready, specOwner.
func (r *Reconciler) slimReader() client.Reader {
	if c, ok := r.Client.(cacheReader); ok {
		return c.Client
	}
	return r.Client
}

// statusID is status.id, of a whole or a slim object.
func statusID(u *unstructured.Unstructured) string {
	if _, slim := u.Object[packedKey]; slim {
		id, _ := u.Object[slimID].(string)
		return id
	}
	id, _, _ := unstructured.NestedString(u.Object, "status", "id")
	return id
}

// specOwner is spec.owner's group, kind and name, of a whole or a slim
// object.
func specOwner(u *unstructured.Unstructured) (group, kind, name string) {
	if _, slim := u.Object[packedKey]; slim {
		s, _ := u.Object[slimOwner].(string)
		if parts := strings.SplitN(s, "/", 3); len(parts) == 3 {
			return parts[0], parts[1], parts[2]
		}
		return "", "", ""
	}
	owner, _, _ := unstructured.NestedMap(u.Object, "spec", "owner")
	group, _ = owner["group"].(string)
	kind, _ = owner["kind"].(string)
	name, _ = owner["name"].(string)
	return group, kind, name
}
