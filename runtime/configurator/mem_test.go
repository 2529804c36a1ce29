package configurator

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/uuid"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// mem is an in-memory apiserver, informer cache and client in one: the
// registry reads and watches it as a Cache and writes it as a
// client.Client, and every write fires the informer handlers
// synchronously, as a watch would. It lets unit tests and the benchmark run
// the registry's own code paths (handlers, index, queue, process, writes)
// on thousands of resources without an apiserver.
type mem struct {
	mu       sync.RWMutex
	objs     map[Ref]*unstructured.Unstructured
	rv       int64
	handlers map[schema.GroupVersionKind][]toolscache.ResourceEventHandler
	writes   atomic.Int64
	getErr   map[schema.GroupVersionKind]error // Get of these kinds fails
}

func newMem() *mem {
	return &mem{objs: map[Ref]*unstructured.Unstructured{}, handlers: map[schema.GroupVersionKind][]toolscache.ResourceEventHandler{}}
}

// put creates or replaces an object (a user's or a controller's write) and
// fires the handlers. A new object gets a uid; generation follows spec.
func (m *mem) put(u *unstructured.Unstructured) *unstructured.Unstructured {
	u = u.DeepCopy()
	ref := RefOf(u)
	m.mu.Lock()
	old := m.objs[ref]
	m.rv++
	u.SetResourceVersion(strconv.FormatInt(m.rv, 10))
	if old == nil {
		if u.GetUID() == "" {
			u.SetUID(uuid.NewUUID())
		}
		u.SetGeneration(1)
	} else {
		u.SetUID(old.GetUID())
		u.SetGeneration(old.GetGeneration())
		if !equalValue(old.Object["spec"], u.Object["spec"]) {
			u.SetGeneration(old.GetGeneration() + 1)
		}
	}
	m.objs[ref] = u
	hs := m.handlers[ref.GroupVersionKind]
	m.mu.Unlock()
	for _, h := range hs {
		if old == nil {
			h.OnAdd(u, false)
		} else {
			h.OnUpdate(old, u)
		}
	}
	return u
}

// update changes a stored object through f.
func (m *mem) update(ref Ref, f func(u *unstructured.Unstructured)) {
	m.mu.RLock()
	u := m.objs[ref].DeepCopy()
	m.mu.RUnlock()
	f(u)
	m.put(u)
}

func (m *mem) remove(ref Ref) {
	m.mu.Lock()
	old := m.objs[ref]
	delete(m.objs, ref)
	hs := m.handlers[ref.GroupVersionKind]
	m.mu.Unlock()
	if old == nil {
		return
	}
	for _, h := range hs {
		h.OnDelete(old)
	}
}

func (m *mem) obj(ref Ref) *unstructured.Unstructured {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if o := m.objs[ref]; o != nil {
		return o.DeepCopy()
	}
	return nil
}

// Get implements client.Reader for unstructured objects.
func (m *mem) Get(_ context.Context, key client.ObjectKey, obj client.Object, _ ...client.GetOption) error {
	u := obj.(*unstructured.Unstructured)
	gvk := u.GroupVersionKind()
	if err := m.getErr[gvk]; err != nil {
		return err
	}
	m.mu.RLock()
	o := m.objs[Ref{GroupVersionKind: gvk, Namespace: key.Namespace, Name: key.Name}]
	m.mu.RUnlock()
	if o == nil {
		return apierrors.NewNotFound(schema.GroupResource{Group: gvk.Group, Resource: gvk.Kind}, key.Name)
	}
	o.DeepCopyInto(u)
	return nil
}

// List implements client.Reader; the registry never lists.
func (m *mem) List(context.Context, client.ObjectList, ...client.ListOption) error {
	return errors.New("mem: List is not supported")
}

// GetInformer implements Cache.
func (m *mem) GetInformer(_ context.Context, obj client.Object, _ ...cache.InformerGetOption) (cache.Informer, error) {
	return &memInformer{m: m, gvk: obj.GetObjectKind().GroupVersionKind()}, nil
}

type memInformer struct {
	cache.Informer // only AddEventHandler is used
	m              *mem
	gvk            schema.GroupVersionKind
}

// AddEventHandler registers h and replays the existing objects as the
// initial list.
func (i *memInformer) AddEventHandler(h toolscache.ResourceEventHandler) (toolscache.ResourceEventHandlerRegistration, error) {
	i.m.mu.Lock()
	i.m.handlers[i.gvk] = append(i.m.handlers[i.gvk], h)
	var existing []*unstructured.Unstructured
	for ref, o := range i.m.objs {
		if ref.GroupVersionKind == i.gvk {
			existing = append(existing, o)
		}
	}
	i.m.mu.Unlock()
	for _, o := range existing {
		h.OnAdd(o, true)
	}
	return nil, nil
}

// memClient is the write side of mem: apply, merge patch, status merge
// patch and delete, each counted.
type memClient struct {
	client.Client // only the methods below are used
	m             *mem
	scheme        *runtime.Scheme
}

func (c memClient) Scheme() *runtime.Scheme { return c.scheme }

func (c memClient) Apply(_ context.Context, ac runtime.ApplyConfiguration, _ ...client.ApplyOption) error {
	u := &unstructured.Unstructured{Object: ac.(interface{ UnstructuredContent() map[string]any }).UnstructuredContent()}
	c.m.writes.Add(1)
	if old := c.m.obj(RefOf(u)); old != nil {
		patch := u.DeepCopy().Object
		u = old
		applyMerge(u.Object, patch)
	}
	c.m.put(u)
	return nil
}

func (c memClient) Patch(_ context.Context, obj client.Object, p client.Patch, _ ...client.PatchOption) error {
	return c.m.patch(obj, p, "")
}

func (c memClient) Delete(_ context.Context, obj client.Object, _ ...client.DeleteOption) error {
	c.m.writes.Add(1)
	u := obj.(*unstructured.Unstructured)
	if c.m.obj(RefOf(u)) == nil {
		return apierrors.NewNotFound(schema.GroupResource{Resource: u.GetKind()}, u.GetName())
	}
	c.m.remove(RefOf(u))
	return nil
}

func (c memClient) Status() client.SubResourceWriter { return memStatus{m: c.m} }

type memStatus struct {
	client.SubResourceWriter
	m *mem
}

func (s memStatus) Patch(_ context.Context, obj client.Object, p client.Patch, _ ...client.SubResourcePatchOption) error {
	return s.m.patch(obj, p, "status")
}

func (m *mem) patch(obj client.Object, p client.Patch, only string) error {
	m.writes.Add(1)
	u := obj.(*unstructured.Unstructured)
	old := m.obj(RefOf(u))
	if old == nil {
		return apierrors.NewNotFound(schema.GroupResource{Resource: u.GetKind()}, u.GetName())
	}
	if p.Type() != types.MergePatchType {
		return errors.New("mem: only merge patches")
	}
	raw, err := p.Data(u)
	if err != nil {
		return err
	}
	patch := map[string]any{}
	if err := jsonUnmarshal(raw, &patch); err != nil {
		return err
	}
	if only != "" {
		patch = map[string]any{only: patch[only]}
	}
	applyMerge(old.Object, patch)
	m.put(old)
	return nil
}

// applyMerge applies a JSON merge patch to dst.
func applyMerge(dst, patch map[string]any) {
	for k, v := range patch {
		if v == nil {
			delete(dst, k)
			continue
		}
		if pm, ok := v.(map[string]any); ok {
			dm, ok := dst[k].(map[string]any)
			if !ok {
				dm = map[string]any{}
			}
			applyMerge(dm, pm)
			dst[k] = dm
			continue
		}
		dst[k] = v
	}
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
