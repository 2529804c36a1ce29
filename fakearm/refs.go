package fakearm

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/armature-dev/armature/runtime/descriptor"
)

// checkReferences refuses a PUT whose body names, at one of the type's
// reference paths (Descriptor.References: a web site's serverFarmId, a
// virtual machine's network interfaces), a resource of a served type that
// does not exist in a resource group that does — with the profile's
// referenceNotFound (issue 28.1; learned from recorded refusals: a web
// site PUT before its plan, a virtual machine PUT before its network
// interface, both 404 NotFound). An id in a group the emulator does not
// hold, or of a type it does not serve, is not checked: the emulator
// cannot know it. False means it answered. The caller holds s.mu.
func (s *Server) checkReferences(w http.ResponseWriter, d *descriptor.Descriptor, self string, body map[string]any) bool {
	p := s.profileOf(d)
	if p == nil || p.ReferenceNotFound == nil {
		return true
	}
	for _, ref := range d.References {
		for _, id := range referencedIDs(body, ref.Path, ref.Map) {
			if missing := s.missingReference(id, self); missing != "" {
				profileError(w, p.ReferenceNotFound, fmt.Sprintf("Resource %s not found.", missing), "")
				return false
			}
		}
	}
	return true
}

// missingReference is the id, when it names a resource of a served type,
// in a resource group the emulator holds, that does not exist; else "".
func (s *Server) missingReference(id, self string) string {
	id = strings.TrimSuffix(strings.TrimSpace(id), "/")
	if !strings.HasPrefix(strings.ToLower(id), "/subscriptions/") || strings.EqualFold(id, self) {
		return ""
	}
	m, ok := find(s.routes, strings.Split(strings.Trim(id, "/"), "/"))
	if !ok || m.list {
		return ""
	}
	g := groupOf(id)
	if g == "" || s.resources[strings.ToLower(id)] != nil {
		return ""
	}
	segs := strings.Split(strings.Trim(id, "/"), "/")
	if group := s.resources[strings.ToLower("/"+strings.Join(segs[:4], "/"))]; group == nil || group.State == stateDeleting {
		return ""
	}
	return id
}

// referencedIDs are the strings at a reference path of a body (the keys of
// a map reference).
func referencedIDs(body map[string]any, path descriptor.Path, isMap bool) []string {
	var out []string
	var walk func(v any, rest descriptor.Path)
	walk = func(v any, rest descriptor.Path) {
		if len(rest) == 0 {
			switch x := v.(type) {
			case string:
				out = append(out, x)
			case map[string]any:
				if isMap {
					for k := range x {
						out = append(out, k)
					}
				}
			}
			return
		}
		switch x := v.(type) {
		case map[string]any:
			if rest[0] != descriptor.Items {
				walk(x[rest[0]], rest[1:])
			}
		case []any:
			if rest[0] == descriptor.Items {
				for _, e := range x {
					walk(e, rest[1:])
				}
			}
		}
	}
	walk(body, path)
	return out
}
