package configurator

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// process is one run for one resource: observe, select, render when the
// selection changed, write what differs. It is a short orchestrator; each
// step is its own function.
func (r *Registry) process(ctx context.Context, key Ref) error {
	kind := r.kinds[key.GroupVersionKind]
	if kind == nil {
		return nil
	}
	obj, err := r.observe(ctx, key)
	if err != nil || obj == nil {
		return err
	}
	in := NewResource(obj)
	prev := r.record(key)
	if prev != nil && prev.Input.UID != in.UID {
		r.forget(key) // deleted and created again: start over
		prev = nil
	}
	rec, sel, err := r.selectFor(ctx, kind, key, in, prev)
	if err != nil || rec.rendered {
		r.store(key, rec)
		return err
	}
	err = r.render(ctx, kind, obj, rec, sel)
	if err != nil {
		rec.Rendered.Error = err.Error()
	}
	rec.rendered = err == nil
	r.store(key, rec)
	return err
}

// observe reads the resource from the cache; nil when it is gone or no
// longer matches the selector (then it is forgotten).
func (r *Registry) observe(ctx context.Context, key Ref) (*unstructured.Unstructured, error) {
	obj := &unstructured.Unstructured{}
	obj.SetGroupVersionKind(key.GroupVersionKind)
	if err := r.cache.Get(ctx, client.ObjectKey{Namespace: key.Namespace, Name: key.Name}, obj); err != nil {
		if apierrors.IsNotFound(err) {
			r.forget(key)
			return nil, nil
		}
		return nil, fmt.Errorf("read %s: %w", key, err)
	}
	obj.SetGroupVersionKind(key.GroupVersionKind)
	if sel := r.watches[key.GroupVersionKind]; sel != nil && !sel.Matches(labels.Set(obj.GetLabels())) {
		r.forget(key)
		return nil, nil
	}
	return obj, nil
}

// selectFor runs Select with a Tracker and builds the new record. The
// record is marked rendered when the previous output was rendered and the
// new one is Equal to it: then nothing else is to be done.
func (r *Registry) selectFor(ctx context.Context, kind *Kind, key Ref, in *Resource, prev *Record) (*Record, Selected, error) {
	t := r.index.Track(ctx, r.cache, key)
	t.before = r.inform
	sel, err := callSelect(kind, t, in)
	t.Done()
	if err == nil {
		err = t.Err()
	}
	r.stats.selects.Add(1)
	selectsTotal.WithLabelValues(kindKey(key.GroupVersionKind)).Inc()

	rec := &Record{
		Input:    Input{UID: in.UID, Generation: in.Generation, ResourceVersion: in.ResourceVersion},
		Selected: SelectedRecord{Tracked: groupTracked(t.Reads())},
	}
	if prev != nil {
		rec.Rendered = prev.Rendered
		rec.resourcesKnown, rec.statusKnown = prev.resourcesKnown, prev.statusKnown
		rec.annotated, rec.annotatedKnown = prev.annotated, prev.annotatedKnown
	}
	if err != nil {
		rec.Selected.Error = err.Error()
		if prev != nil {
			rec.Selected.Output, rec.rendered = prev.Selected.Output, prev.rendered
		}
		return rec, nil, fmt.Errorf("select %s: %w", key, err)
	}
	rec.Selected.Output = sel
	rec.rendered = prev != nil && prev.rendered && Equal(prev.Selected.Output, sel)
	return rec, sel, nil
}

// render runs Render and writes its result; rec.Rendered follows what was
// actually written, also when a write fails half-way.
func (r *Registry) render(ctx context.Context, kind *Kind, obj *unstructured.Unstructured, rec *Record, sel Selected) error {
	key := RefOf(obj)
	rd := &Renderer{self: key, uid: obj.GetUID(), scheme: r.client.Scheme()}
	status, err := callRender(kind, rd, sel)
	r.stats.renders.Add(1)
	rendersTotal.WithLabelValues(kindKey(key.GroupVersionKind)).Inc()
	if err == nil {
		err = rd.Err()
	}
	if err != nil {
		return fmt.Errorf("render %s: %w", key, err)
	}
	rec.Rendered.Error = ""
	if err := r.writeResources(ctx, obj, rec, rd.declared); err != nil {
		return err
	}
	return r.writeStatus(ctx, obj, rec, status)
}

func callSelect(k *Kind, t *Tracker, in *Resource) (sel Selected, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("select panicked: %v", p)
		}
	}()
	return k.Select(t, in)
}

func callRender(k *Kind, rd *Renderer, sel Selected) (st Status, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("render panicked: %v", p)
		}
	}()
	return k.Render(rd, sel)
}

// isTerminal: Select or Render returned reconcile.TerminalError — retrying
// cannot help, wait for a change.
func isTerminal(err error) bool {
	return errors.Is(err, reconcile.TerminalError(nil))
}
