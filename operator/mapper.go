package operator

import (
	"net/http"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
)

// memoMapper is a RESTMapper that keeps the mappings it found. The
// manager's cache asks for the mapping of an object's kind on every Get and
// List (is it namespaced?), and controller-runtime's dynamic mapper answers
// by asking each API group's mapper in turn, building an error for every
// group that does not know the kind: at 10,000 objects that was a third of
// the operator's allocations. A mapping, once found, is kept for the
// process's life (a kind's mapping does not change while its CRD
// serves it); errors are not kept, so a CRD installed later is found.
type memoMapper struct {
	meta.RESTMapper
	mappings sync.Map // mappingKey → meta.RESTMapping
}

// NewRESTMapper is a ctrl.Options.MapperProvider: controller-runtime's
// dynamic mapper, memoized. Run uses it; a program that builds its own
// manager around the reconciler (a test, a bench) should too.
func NewRESTMapper(cfg *rest.Config, hc *http.Client) (meta.RESTMapper, error) {
	m, err := apiutil.NewDynamicRESTMapper(cfg, hc)
	if err != nil {
		return nil, err
	}
	return &memoMapper{RESTMapper: m}, nil
}

type mappingKey struct {
	gk       schema.GroupKind
	versions string
}

// RESTMapping implements meta.RESTMapper.
func (m *memoMapper) RESTMapping(gk schema.GroupKind, versions ...string) (*meta.RESTMapping, error) {
	key := mappingKey{gk: gk, versions: strings.Join(versions, ",")}
	if v, ok := m.mappings.Load(key); ok {
		mapping := v.(meta.RESTMapping) // a copy: callers may change theirs
		return &mapping, nil
	}
	mapping, err := m.RESTMapper.RESTMapping(gk, versions...)
	if err != nil {
		return nil, err
	}
	m.mappings.Store(key, *mapping)
	return mapping, nil
}

var _ meta.RESTMapper = (*memoMapper)(nil)

// forget drops the mappings kept of gk (its CRD is gone: it may come back
// with other versions).
func (m *memoMapper) forget(gk schema.GroupKind) {
	m.mappings.Range(func(k, _ any) bool {
		if k.(mappingKey).gk == gk {
			m.mappings.Delete(k)
		}
		return true
	})
}
