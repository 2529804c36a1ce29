package importer

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/armature-dev/armature/runtime/arm"
	"github.com/armature-dev/armature/runtime/descriptor"
)

// walker reads a resource group's resources from ARM, concurrently.
type walker struct {
	ctx context.Context
	o   Options
	ks  *kindSet
	sem chan struct{}
	wg  sync.WaitGroup

	calls, pages atomic.Int64

	mu        sync.Mutex
	found     []*Object
	seen      map[string]bool // lower-case ids
	errs      []error
	listSkips map[string]*Skip // lower-case ARM type → a LIST ARM refused
	warnings  []string
	inventory map[string]*Skip // lower-case ARM type → count, from …/resources
}

func newWalker(ctx context.Context, o Options, ks *kindSet) *walker {
	return &walker{ctx: ctx, o: o, ks: ks, sem: make(chan struct{}, o.Concurrency), seen: map[string]bool{}, listSkips: map[string]*Skip{}}
}

// run reads the group, then everything below it.
func (w *walker) run() (*Result, error) {
	groupID := "/subscriptions/" + w.o.SubscriptionID + "/resourceGroups/" + w.o.ResourceGroup
	body, err := w.get(groupID, w.ks.group)
	if arm.IsNotFound(err) {
		return nil, fmt.Errorf("import: resource group %s does not exist (%s)", w.o.ResourceGroup, groupID)
	}
	if err != nil {
		return nil, fmt.Errorf("import: read %s: %w", groupID, err)
	}
	root := w.add(nil, w.ks.group, groupID, body)
	w.wg.Add(1)
	go w.readInventory(groupID)
	w.children(root)
	w.wg.Wait()
	if err := w.ctx.Err(); err != nil {
		return nil, err
	}
	res := &Result{GroupID: root.ID, Calls: int(w.calls.Load()), Pages: int(w.pages.Load()), Errors: w.errs, Warnings: w.warnings}
	res.Objects = w.found
	res.Skipped = w.skips()
	return res, nil
}

// children reads, below a found resource, every walked child type.
func (w *walker) children(parent *Object) {
	for _, d := range w.ks.children[strings.ToLower(parent.Desc.ARMType)] {
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			if d.Singleton != "" {
				w.fetch(parent, d, d.ID(parent.ID, d.Singleton))
				return
			}
			w.list(parent, d)
		}()
	}
}

// list LISTs the collection of type d below parent and fetches each item.
func (w *walker) list(parent *Object, d *descriptor.Descriptor) {
	one := d.ID(parent.ID, "x")
	coll := one[:len(one)-2]
	w.progress(Event{Verb: "LIST", Target: coll})
	err := w.limit(func() error {
		first := true
		err := w.o.ARM.List(w.ctx, coll, d.APIVersion, func(items []map[string]any) error {
			w.calls.Add(1)
			w.pages.Add(1)
			first = false
			for _, it := range items {
				id, _ := it["id"].(string)
				if id == "" {
					name, _ := it["name"].(string)
					id = d.ID(parent.ID, name)
				}
				if !strings.HasPrefix(strings.ToLower(id), strings.ToLower(parent.ID)+"/") {
					w.fail(fmt.Errorf("LIST %s: item %s is not below %s", coll, id, parent.ID))
					continue
				}
				w.wg.Add(1)
				go func() {
					defer w.wg.Done()
					w.fetch(parent, d, id)
				}()
			}
			return nil
		})
		if first {
			w.calls.Add(1) // an answer without a page: an error
		}
		return err
	})
	var ae *arm.Error
	switch {
	case err == nil:
	case errors.As(err, &ae) && ae.Status >= 400 && ae.Status < 500 && ae.Status != 429:
		// The type cannot be listed here (not registered, no LIST in this
		// api-version, not authorised): skip it, say why.
		w.mu.Lock()
		s := w.listSkips[strings.ToLower(d.ARMType)]
		if s == nil {
			s = &Skip{ARMType: d.ARMType, Kind: d.Kind, Reason: fmt.Sprintf("LIST %s answered %d %s: %s", coll, ae.Status, ae.Code, ae.Message)}
			w.listSkips[strings.ToLower(d.ARMType)] = s
		}
		w.mu.Unlock()
		w.progress(Event{Verb: "skip", Target: coll, Text: s.Reason})
	default:
		w.fail(fmt.Errorf("LIST %s: %w", coll, err))
	}
}

// fetch GETs one resource of type d below parent; a resource that is not
// there (a singleton never made, an item deleted since the LIST) is none.
func (w *walker) fetch(parent *Object, d *descriptor.Descriptor, id string) {
	body, err := w.get(id, d)
	switch {
	case arm.IsNotFound(err):
		return
	case err != nil:
		w.fail(fmt.Errorf("GET %s: %w", id, err))
		return
	}
	if o := w.add(parent, d, id, body); o != nil {
		w.children(o)
	}
}

// get GETs a resource, within the concurrency limit.
func (w *walker) get(id string, d *descriptor.Descriptor) (map[string]any, error) {
	w.progress(Event{Verb: "GET", Target: id})
	var res *arm.Result
	err := w.limit(func() error {
		w.calls.Add(1)
		var err error
		res, err = w.o.ARM.Get(w.ctx, id, d.APIVersion)
		return err
	})
	if err != nil {
		return nil, err
	}
	if res.Body == nil {
		return map[string]any{}, nil
	}
	return res.Body, nil
}

func (w *walker) limit(f func() error) error {
	select {
	case w.sem <- struct{}{}:
	case <-w.ctx.Done():
		return w.ctx.Err()
	}
	defer func() { <-w.sem }()
	return f()
}

// add records a found resource (once per id), nil when seen before.
func (w *walker) add(parent *Object, d *descriptor.Descriptor, id string, body map[string]any) *Object {
	if bid, _ := body["id"].(string); bid != "" {
		id = bid
	}
	o := &Object{ID: id, Desc: d, parent: parent, body: body, selected: w.ks.selected[strings.ToLower(d.ARMType)]}
	o.azName = id[strings.LastIndexByte(id, '/')+1:]
	if parent != nil {
		o.depth = parent.depth + 1
	}
	w.mu.Lock()
	if w.seen[strings.ToLower(id)] {
		w.mu.Unlock()
		return nil
	}
	w.seen[strings.ToLower(id)] = true
	w.found = append(w.found, o)
	n := len(w.found)
	w.mu.Unlock()
	w.progress(Event{Verb: "found", Target: id, Text: d.Kind, Found: n})
	return o
}

func (w *walker) fail(err error) {
	w.mu.Lock()
	w.errs = append(w.errs, err)
	w.mu.Unlock()
	w.progress(Event{Verb: "error", Text: err.Error()})
}

// readInventory reads the group's inventory (every top-level resource,
// whatever its type) to report the types not imported.
func (w *walker) readInventory(groupID string) {
	defer w.wg.Done()
	inv := map[string]*Skip{}
	coll := groupID + "/resources"
	w.progress(Event{Verb: "LIST", Target: coll})
	pages := 0
	err := w.limit(func() error {
		return w.o.ARM.List(w.ctx, coll, InventoryAPIVersion, func(items []map[string]any) error {
			pages++
			w.calls.Add(1)
			w.pages.Add(1)
			for _, it := range items {
				t, _ := it["type"].(string)
				k := strings.ToLower(t)
				if inv[k] == nil {
					inv[k] = &Skip{ARMType: t}
				}
				inv[k].Count++
			}
			return nil
		})
	})
	if err != nil {
		if pages == 0 {
			w.calls.Add(1)
		}
		w.mu.Lock()
		w.warnings = append(w.warnings, fmt.Sprintf("the group's inventory (GET %s) could not be read (%v): resources of types the operator does not serve are not reported", coll, err))
		w.mu.Unlock()
		return
	}
	w.mu.Lock()
	w.inventory = inv
	w.mu.Unlock()
}

// skips are the types not imported: skipped by default, refused by ARM,
// and, from the inventory, not served or not selected.
func (w *walker) skips() []Skip {
	owners := map[string]bool{}
	for _, o := range w.found {
		owners[strings.ToLower(o.Desc.ARMType)] = true
	}
	var out []Skip
	for _, s := range w.ks.skipped {
		// Only where there can be some: below a resource found.
		if d := w.ks.byType[strings.ToLower(s.ARMType)]; d != nil && owners[strings.ToLower(d.OwnerARMType)] {
			out = append(out, s)
		}
	}
	out = append(out, w.ks.outside...)
	for _, s := range w.listSkips {
		out = append(out, *s)
	}
	for t, s := range w.inventory {
		d := w.ks.byType[t]
		switch {
		case d == nil:
			s.Reason = "not served by this operator (no generated kind)"
		case w.ks.selected[t] || DefaultSkipped[t] != "":
			continue
		default:
			s.Kind, s.Reason = d.Kind, "not selected by --kinds"
		}
		out = append(out, *s)
	}
	sort.Slice(out, func(i, j int) bool { return strings.ToLower(out[i].ARMType) < strings.ToLower(out[j].ARMType) })
	return out
}

func (w *walker) progress(e Event) {
	if w.o.Progress != nil {
		e.Calls = int(w.calls.Load())
		w.o.Progress(e)
	}
}
