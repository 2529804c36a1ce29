package reconciler

import (
	"context"
	"slices"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/armature-dev/armature/api/core"
	"github.com/armature-dev/armature/runtime/descriptor"
)

// Secrets the reconciler reads — credential Secrets and the Secrets a spec
// references for secret properties — are watched by their metadata only
// (an informer of PartialObjectMetadata: its memory does not grow with the
// size of the cluster's Secrets), and their data is read from the
// apiserver when their resourceVersion changes and kept only for the
// Secrets read (SecretReader). An index of the objects by the Secrets they
// reference requeues exactly the referrers of a Secret that changes: a
// rotated password reaches Azure within seconds.

// secretIndex is the field index of the Secrets an object references: the
// names in its spec's secret references, and its credential Secret's.
const secretIndex = "armature.dev/secrets"

// slimSecrets keeps secretIndex's values on a slim object, comma-separated.
const slimSecrets = "armature.dev/secrets"

var secretGVK = corev1.SchemeGroupVersion.WithKind("Secret")

// secretPaths are the secret paths of the registered kinds, by GVK: the
// cache transform (which has no Descriptor) reads them to keep a slim
// object's Secret references.
var secretPaths sync.Map // schema.GroupVersionKind → []descriptor.Path

func registerSecretPaths(d *descriptor.Descriptor) {
	secretPaths.Store(d.GroupVersionKind(), d.SecretPaths)
}

// secretRefs returns the names of the Secrets obj references, sorted,
// without duplicates: the credential Secret (annotation, else the
// namespace's) and the Secrets of its secret properties.
func secretRefs(obj *unstructured.Unstructured) []string {
	if _, slim := obj.Object[packedKey]; slim {
		s, _ := obj.Object[slimSecrets].(string)
		if s == "" {
			return nil
		}
		return strings.Split(s, ",")
	}
	names := []string{core.CredentialSecret}
	if n := obj.GetAnnotations()[core.AnnotationCredential]; n != "" {
		names[0] = n
	}
	if v, ok := secretPaths.Load(obj.GroupVersionKind()); ok {
		spec := spec(obj)
		for _, p := range v.([]descriptor.Path) {
			for _, ref := range refsAt(spec, p) {
				if name, _ := ref["name"].(string); name != "" {
					names = append(names, name)
				}
			}
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// refsAt returns the maps found at path p of v (array items expanded).
func refsAt(v any, p descriptor.Path) []map[string]any {
	var out []map[string]any
	descriptor.Holders(p, v, func(_ descriptor.Path, m map[string]any) { out = append(out, m) })
	return out
}

// SecretReader reads Secrets: their metadata from a cache of
// PartialObjectMetadata (Meta: the manager's cache), their data from the
// apiserver (API) when the resourceVersion changed since the last read.
// It keeps the data of the Secrets it read, and forgets a Secret that is
// gone. Get of any other object type goes to API.
type SecretReader struct {
	// Meta reads PartialObjectMetadata of Secrets (an informer).
	Meta client.Reader
	// API reads Secrets from the apiserver.
	API client.Reader

	mu   sync.Mutex
	data map[types.NamespacedName]*corev1.Secret
}

// NewSecretReader returns a SecretReader over meta and api.
func NewSecretReader(meta, api client.Reader) *SecretReader {
	return &SecretReader{Meta: meta, API: api, data: map[types.NamespacedName]*corev1.Secret{}}
}

// Get reads a Secret (obj must be a *corev1.Secret).
func (s *SecretReader) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	out, ok := obj.(*corev1.Secret)
	if !ok {
		return s.API.Get(ctx, key, obj, opts...)
	}
	md := &metav1.PartialObjectMetadata{}
	md.SetGroupVersionKind(secretGVK)
	if err := s.Meta.Get(ctx, key, md); err != nil {
		if apierrors.IsNotFound(err) {
			s.forget(key)
		}
		return err
	}
	s.mu.Lock()
	cur := s.data[key]
	s.mu.Unlock()
	if cur == nil || cur.ResourceVersion != md.ResourceVersion {
		fresh := &corev1.Secret{}
		if err := s.API.Get(ctx, key, fresh); err != nil {
			if apierrors.IsNotFound(err) {
				s.forget(key)
			}
			return err
		}
		fresh.ManagedFields = nil
		s.mu.Lock()
		s.data[key] = fresh
		s.mu.Unlock()
		cur = fresh
	}
	cur.DeepCopyInto(out)
	return nil
}

// List lists from API.
func (s *SecretReader) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	return s.API.List(ctx, list, opts...)
}

func (s *SecretReader) forget(key types.NamespacedName) {
	s.mu.Lock()
	delete(s.data, key)
	s.mu.Unlock()
}

// Len is how many Secrets' data the reader holds.
func (s *SecretReader) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.data)
}

var _ client.Reader = (*SecretReader)(nil)

// secretReferrers lists the objects of the kind that reference a Secret.
func (r *Reconciler) secretReferrers(ctx context.Context, secret client.Object) []reconcile.Request {
	return r.indexed(ctx, secret.GetNamespace(), secretIndex, secret.GetName())
}
