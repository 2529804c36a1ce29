package fakearm

import (
	"slices"
	"strings"

	"github.com/armature-dev/armature/runtime/descriptor"
)

// route is one ARM resource type: its path template and the descriptors of
// the api-versions it is served at.
type route struct {
	armType   string
	tmpl      descriptor.Template
	byVersion map[string]*descriptor.Descriptor
	versions  []string
}

// match is a request path matched to a route.
type match struct {
	route *route
	// id is the resource id (or, for a list, the collection path) with the
	// template's literal casing and the request's names.
	id string
	// names are the values of the name segments, one per type segment.
	names []string
	// list is true when the path is the collection of the type.
	list bool
}

func newRoutes(descs []*descriptor.Descriptor) []*route {
	byType := map[string]*route{}
	var out []*route
	for _, d := range descs {
		key := strings.ToLower(d.ARMType)
		r := byType[key]
		if r == nil {
			r = &route{armType: d.ARMType, tmpl: d.Template(), byVersion: map[string]*descriptor.Descriptor{}}
			byType[key] = r
			out = append(out, r)
		}
		if _, ok := r.byVersion[d.APIVersion]; !ok {
			r.byVersion[d.APIVersion] = d
			r.versions = append(r.versions, d.APIVersion)
			slices.Sort(r.versions)
		}
	}
	// Longer templates first, so a child never matches as its parent's list.
	slices.SortStableFunc(out, func(a, b *route) int { return b.tmpl.Len() - a.tmpl.Len() })
	return out
}

// find matches a request path (already split, without the leading "") to a
// route: the resource itself, or its collection.
func find(routes []*route, segs []string) (match, bool) {
	path := "/" + strings.Join(segs, "/")
	for _, r := range routes {
		if m, ok := r.tmpl.Match(path); ok {
			return match{route: r, id: m.ID, names: m.Names, list: m.Collection}, true
		}
	}
	return match{}, false
}
