package webhook

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/armature-dev/armature/runtime/descriptor"
)

// Attributes is what a custom rule sees of one admission request.
type Attributes struct {
	// Operation is admissionv1.Create or admissionv1.Update.
	Operation admissionv1.Operation
	// Descriptor describes the kind of Object.
	Descriptor *descriptor.Descriptor
	// Object is the object as it would be stored. A DefaulterFunc changes
	// it in place; a ValidatorFunc must not.
	Object *unstructured.Unstructured
	// OldObject is the stored object on update, nil on create.
	OldObject *unstructured.Unstructured
	// DryRun is true when the request will not be persisted.
	DryRun bool
}

// ValidatorFunc is a custom validation rule for one kind. It returns the
// problems it found, each naming its field path; none means allowed.
type ValidatorFunc func(ctx context.Context, a Attributes) field.ErrorList

// DefaulterFunc is a custom defaulting hook for one kind: it sets defaults on
// a.Object in place. An error refuses the request.
type DefaulterFunc func(ctx context.Context, a Attributes) error

// Registry holds the kinds the webhook serves, their property trees and the
// custom rules. It is safe for concurrent use; the handlers read it on
// every request, so kinds and rules may be added while serving.
type Registry struct {
	mu         sync.RWMutex
	kinds      map[schema.GroupVersionKind]*kind
	validators map[schema.GroupVersionKind][]ValidatorFunc
	defaulters map[schema.GroupVersionKind][]DefaulterFunc
	defaults   map[schema.GroupVersionKind][]pathDefault
}

// kind is one served kind: its Descriptor and its property tree.
type kind struct {
	d    *descriptor.Descriptor
	tree *node
	// reg is the Registry that serves the kind (nil in some tests): the
	// other kinds a spec names (valuesFrom sources) are looked up there.
	reg *Registry
}

// pathDefault is one configured default: a property path and its value.
type pathDefault struct {
	segs  []string
	value any
}

// Option configures a Registry.
type Option func(*Registry)

// WithValidator adds a custom validation rule for a kind, as
// RegisterValidator does. Rules run in the order they were added, after the
// Descriptor-driven checks. Defaults to none.
func WithValidator(gvk schema.GroupVersionKind, fn ValidatorFunc) Option {
	return func(r *Registry) { r.validators[gvk] = append(r.validators[gvk], fn) }
}

// WithDefaulter adds a custom defaulting hook for a kind, as
// RegisterDefaulter does. Hooks run in the order they were added, after
// azureName and the configured defaults are set. Defaults to none.
func WithDefaulter(gvk schema.GroupVersionKind, fn DefaulterFunc) Option {
	return func(r *Registry) { r.defaulters[gvk] = append(r.defaulters[gvk], fn) }
}

// WithDefaults sets configured defaults for a kind: spec property paths (as
// in the Descriptor: dotted, `[*]` for every array item, `.*` for every map
// value) to JSON-compatible values, each set only where the path is absent.
// Intermediate objects are created; `[*]` and `.*` apply to the items and
// values present. Values are copied through JSON; a value that does not
// encode as JSON panics, as defaults are static configuration. Defaults to
// none.
//
// The Descriptor carries no defaults of its own yet; this is where config
// defaults (DESIGN.md, "defaults azureName and config defaults") come in.
func WithDefaults(gvk schema.GroupVersionKind, defaults map[string]any) Option {
	paths := slices.Sorted(maps.Keys(defaults))
	return func(r *Registry) {
		for _, p := range paths {
			segs, err := descriptor.ParsePath(p)
			if err != nil {
				panic(fmt.Sprintf("webhook.WithDefaults(%s, %q): %v", gvk, p, err))
			}
			v, err := normalise(defaults[p])
			if err != nil {
				panic(fmt.Sprintf("webhook.WithDefaults(%s, %q): %v", gvk, p, err))
			}
			r.defaults[gvk] = append(r.defaults[gvk], pathDefault{segs: segs, value: v})
		}
	}
}

// New returns a Registry serving the given kinds.
func New(ds []*descriptor.Descriptor, opts ...Option) *Registry {
	r := &Registry{
		kinds:      map[schema.GroupVersionKind]*kind{},
		validators: map[schema.GroupVersionKind][]ValidatorFunc{},
		defaulters: map[schema.GroupVersionKind][]DefaulterFunc{},
		defaults:   map[schema.GroupVersionKind][]pathDefault{},
	}
	r.Add(ds...)
	for _, o := range opts {
		o(r)
	}
	return r
}

// Add serves more kinds. A kind added again replaces the earlier Descriptor.
func (r *Registry) Add(ds ...*descriptor.Descriptor) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, d := range ds {
		r.kinds[d.GroupVersionKind()] = &kind{d: d, tree: buildTree(d), reg: r}
	}
}

// served returns the Descriptors of every served version of a kind, by
// kind (case-insensitive) and, when group is not empty, group.
func (r *Registry) served(group, kindName string) []*descriptor.Descriptor {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var out []*descriptor.Descriptor
	for gvk, k := range r.kinds {
		if strings.EqualFold(gvk.Kind, kindName) && (group == "" || gvk.Group == group) {
			out = append(out, k.d)
		}
	}
	return out
}

// Descriptors returns the served kinds' Descriptors, sorted by group,
// version and kind.
func (r *Registry) Descriptors() []*descriptor.Descriptor {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]*descriptor.Descriptor, 0, len(r.kinds))
	for _, k := range r.kinds {
		out = append(out, k.d)
	}
	sortDescriptors(out)
	return out
}

// RegisterValidator adds a custom validation rule for a kind. The kind need
// not be served yet.
func (r *Registry) RegisterValidator(gvk schema.GroupVersionKind, fn ValidatorFunc) {
	r.mu.Lock()
	defer r.mu.Unlock()
	WithValidator(gvk, fn)(r)
}

// RegisterDefaulter adds a custom defaulting hook for a kind. The kind need
// not be served yet.
func (r *Registry) RegisterDefaulter(gvk schema.GroupVersionKind, fn DefaulterFunc) {
	r.mu.Lock()
	defer r.mu.Unlock()
	WithDefaulter(gvk, fn)(r)
}

// lookup returns what a request for gvk needs, under the read lock; ok is
// false when the kind is not served.
func (r *Registry) lookup(gvk schema.GroupVersionKind) (k *kind, vs []ValidatorFunc, ds []DefaulterFunc, defs []pathDefault, ok bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	k, ok = r.kinds[gvk]
	return k, r.validators[gvk], r.defaulters[gvk], r.defaults[gvk], ok
}

// defaultRegistry is the Registry of the package-level functions.
var defaultRegistry = New(nil)

// DefaultRegistry returns the Registry the package-level Register,
// RegisterValidator and RegisterDefaulter fill, and that Setup serves when
// given nil.
func DefaultRegistry() *Registry { return defaultRegistry }

// Register serves kinds from the default registry.
func Register(ds ...*descriptor.Descriptor) { defaultRegistry.Add(ds...) }

// RegisterValidator adds a custom validation rule for a kind to the default
// registry.
func RegisterValidator(gvk schema.GroupVersionKind, fn ValidatorFunc) {
	defaultRegistry.RegisterValidator(gvk, fn)
}

// RegisterDefaulter adds a custom defaulting hook for a kind to the default
// registry.
func RegisterDefaulter(gvk schema.GroupVersionKind, fn DefaulterFunc) {
	defaultRegistry.RegisterDefaulter(gvk, fn)
}

// sortDescriptors sorts by group, version, kind.
func sortDescriptors(ds []*descriptor.Descriptor) {
	sort.Slice(ds, func(i, j int) bool {
		a, b := ds[i], ds[j]
		if a.Group != b.Group {
			return a.Group < b.Group
		}
		if a.Version != b.Version {
			return a.Version < b.Version
		}
		return a.Kind < b.Kind
	})
}

// normalise returns v as the JSON decoder of the handlers would: objects as
// map[string]any, arrays as []any, numbers as json.Number.
func normalise(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("not JSON: %w", err)
	}
	var out any
	if err := decodeJSON(b, &out); err != nil {
		return nil, err
	}
	return out, nil
}
