package fakearm

import (
	"encoding/json"
	"net/http"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/armature-dev/armature/runtime/descriptor"
)

// Embedded children (Descriptor.EmbeddedChildren: a virtual network's
// properties.subnets) are one set of resources seen two ways, as in ARM:
// each child is stored once, as the resource at its own path, and the
// parent's GET shows them all in its collection. A child PUT or DELETE
// therefore shows in the parent's next GET, and a parent PUT replaces the
// children with what its collection holds: the items are created or
// updated at their own paths, and every child the body does not name is
// deleted — also when the body leaves the collection out, as Network does
// for virtual networks (docs/emulator.md, "Embedded children", has the
// sources). A PATCH changes the children only when it carries the
// collection. The children a write deletes are journaled in its
// Entry.Removed.

// embeddedOf returns the embedded collection of d whose items have the
// child's ARM type.
func embeddedOf(d *descriptor.Descriptor, childType string) (descriptor.EmbeddedChild, bool) {
	if d == nil {
		return descriptor.EmbeddedChild{}, false
	}
	for _, e := range d.EmbeddedChildren {
		if strings.EqualFold(e.ARMType, childType) {
			return e, true
		}
	}
	return descriptor.EmbeddedChild{}, false
}

// childDescriptor returns the descriptor the emulator serves a child type
// with: the parent's api-version when it has it, else its newest.
func (s *Server) childDescriptor(armType, apiVersion string) *descriptor.Descriptor {
	for _, r := range s.routes {
		if !strings.EqualFold(r.armType, armType) {
			continue
		}
		if d := r.byVersion[apiVersion]; d != nil {
			return d
		}
		return r.byVersion[r.versions[len(r.versions)-1]]
	}
	return nil
}

// childrenOf returns the stored children of a parent id of one ARM type,
// in id order. The caller holds s.mu.
func (s *Server) childrenOf(parentID, childType string) []*resource {
	prefix := lower(parentID) + "/" + lower(childType[strings.LastIndex(childType, "/")+1:]) + "/"
	var out []*resource
	for k, r := range s.resources {
		if strings.HasPrefix(k, prefix) && !strings.Contains(k[len(prefix):], "/") && strings.EqualFold(r.ARMType, childType) {
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return lower(out[i].ID) < lower(out[j].ID) })
	return out
}

// splitEmbedded takes the embedded collections out of a parent's body
// before it is stored and writes them to the children: a PUT (replace)
// deletes the children its body does not name; a PATCH touches only the
// collections it carries. It returns the ids of the children deleted. The
// caller holds s.mu.
func (s *Server) splitEmbedded(res *resource, replace bool) (removed []string) {
	for _, e := range res.d.EmbeddedChildren {
		cd := s.childDescriptor(e.ARMType, res.APIVersion)
		if cd == nil {
			continue // not served: the collection stays a plain property
		}
		v, carried := e.Path.Get(res.Desired)
		if carried {
			holder, _ := e.Path.Parent().Get(res.Desired)
			delete(holder.(map[string]any), e.Path.Last())
		}
		if !carried && !replace {
			continue
		}
		items, _ := v.([]any)
		named := map[string]bool{}
		seg := e.ARMType[strings.LastIndex(e.ARMType, "/")+1:]
		for _, it := range items {
			m, _ := it.(map[string]any)
			name, _ := m["name"].(string)
			if name == "" {
				continue
			}
			named[lower(name)] = true
			body := runtime.DeepCopyJSON(m)
			for _, k := range []string{"name", "id", "type", "etag"} {
				delete(body, k)
			}
			id := res.ID + "/" + seg + "/" + name
			now := s.opts.Now().UTC()
			child := &resource{ID: id, ARMType: cd.ARMType, APIVersion: cd.APIVersion, Desired: body, ETag: newETag(), State: stateSucceeded, Created: now, Modified: now, d: cd}
			if old := s.resources[lower(id)]; old != nil {
				child.Created, child.ID = old.Created, old.ID
			}
			s.resources[lower(id)] = child
			s.renderOnly(child)
		}
		for _, c := range s.childrenOf(res.ID, e.ARMType) {
			if !named[lower(c.ID[strings.LastIndex(c.ID, "/")+1:])] {
				s.remove(lower(c.ID))
				removed = append(removed, c.ID)
			}
		}
	}
	return removed
}

// joinEmbedded puts a parent's children into the collections of its GET
// body. The caller holds s.mu.
func (s *Server) joinEmbedded(res *resource, body map[string]any) {
	for _, e := range res.d.EmbeddedChildren {
		if s.childDescriptor(e.ARMType, res.APIVersion) == nil {
			continue
		}
		items := []any{}
		for _, c := range s.childrenOf(res.ID, e.ARMType) {
			if c.rendered == nil {
				s.renderOnly(c)
			}
			var m map[string]any
			if json.Unmarshal(c.rendered, &m) == nil {
				items = append(items, m)
			}
		}
		e.Path.Set(body, items)
	}
}

// parentOfEmbedded returns the stored parent whose collection shows res,
// or nil. The caller holds s.mu.
func (s *Server) parentOfEmbedded(res *resource) *resource {
	i := strings.LastIndex(res.ID, "/")
	if i < 0 {
		return nil
	}
	j := strings.LastIndex(res.ID[:i], "/")
	if j < 0 {
		return nil
	}
	p := s.resources[lower(res.ID[:j])]
	if p == nil {
		return nil
	}
	if _, ok := embeddedOf(p.d, res.ARMType); !ok {
		return nil
	}
	return p
}

// noteRemoved adds ids of children a request deleted to its journal entry.
func noteRemoved(w http.ResponseWriter, ids []string) {
	if rec, ok := w.(*recorder); ok {
		rec.removed = append(rec.removed, ids...)
	}
}
