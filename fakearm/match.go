package fakearm

import (
	"sort"
	"strings"

	"github.com/armature-dev/armature/runtime/descriptor"
)

// route is one ARM resource type: its path template and the descriptors of
// the api-versions it is served at.
type route struct {
	armType string
	segs    []string // template segments, without the leading ""
	// extension is true for /{scope}/providers/...: the scope is any prefix.
	extension bool
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
			r = &route{armType: d.ARMType, byVersion: map[string]*descriptor.Descriptor{}}
			r.segs = strings.Split(strings.Trim(d.PathTemplate, "/"), "/")
			r.extension = len(r.segs) > 1 && isParam(r.segs[0]) && strings.EqualFold(r.segs[1], "providers")
			byType[key] = r
			out = append(out, r)
		}
		if _, ok := r.byVersion[d.APIVersion]; !ok {
			r.byVersion[d.APIVersion] = d
			r.versions = append(r.versions, d.APIVersion)
			sort.Strings(r.versions)
		}
	}
	// Longer templates first, so a child never matches as its parent's list.
	sort.SliceStable(out, func(i, j int) bool { return len(out[i].segs) > len(out[j].segs) })
	return out
}

func isParam(s string) bool { return strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}") }

// canonical are literal segments whose ARM casing differs from some
// templates (resources.json writes resourcegroups).
var canonical = map[string]string{"resourcegroups": "resourceGroups", "subscriptions": "subscriptions", "providers": "providers"}

func literal(s string) string {
	if c, ok := canonical[strings.ToLower(s)]; ok {
		return c
	}
	return s
}

// find matches a request path (already split, without the leading "") to a
// route: the resource itself, or its collection.
func find(routes []*route, segs []string) (match, bool) {
	for _, r := range routes {
		if m, ok := r.match(segs); ok {
			return m, true
		}
	}
	return match{}, false
}

func (r *route) match(segs []string) (match, bool) {
	tmpl := r.segs
	var prefix []string
	if r.extension {
		// The scope is everything before the last "providers" that starts
		// the template's provider part.
		at := -1
		for i := len(segs) - 1; i > 0; i-- {
			if strings.EqualFold(segs[i], "providers") && len(segs)-i >= len(tmpl)-2 && len(segs)-i <= len(tmpl)-1 {
				at = i
				break
			}
		}
		if at < 1 {
			return match{}, false
		}
		prefix, segs, tmpl = segs[:at], segs[at:], tmpl[1:]
	}
	list := false
	switch len(segs) {
	case len(tmpl):
	case len(tmpl) - 1:
		list = true
		tmpl = tmpl[:len(tmpl)-1]
	default:
		return match{}, false
	}
	out := make([]string, 0, len(prefix)+len(tmpl))
	out = append(out, prefix...)
	for i, t := range tmpl {
		if isParam(t) {
			if segs[i] == "" {
				return match{}, false
			}
			out = append(out, segs[i])
			continue
		}
		if !strings.EqualFold(t, segs[i]) {
			return match{}, false
		}
		out = append(out, literal(t))
	}
	m := match{route: r, id: "/" + strings.Join(out, "/"), list: list}
	if !list {
		// names: the segment after each type segment, from the end.
		n := len(strings.Split(r.armType, "/")) - 1
		for i := len(out) - 2*n + 1; i < len(out); i += 2 {
			m.names = append(m.names, out[i])
		}
	}
	return m, true
}

// parentID is the id of the resource that must exist before id: the parent
// resource, else the resource group.
func parentID(id string, nTypes int, scope descriptor.Scope) string {
	segs := strings.Split(strings.Trim(id, "/"), "/")
	if nTypes > 1 {
		return "/" + strings.Join(segs[:len(segs)-2], "/")
	}
	if scope == descriptor.ScopeResourceGroup && len(segs) >= 4 {
		return "/" + strings.Join(segs[:4], "/")
	}
	return ""
}
