package fakearm

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/armature-dev/armature/runtime/descriptor"
)

// render computes the GET body of a resource and caches it (renderOnly),
// and renders again the parent whose embedded collection shows it
// (embedded.go). The caller holds s.mu.
func (s *Server) render(res *resource) {
	s.renderOnly(res)
	if p := s.parentOfEmbedded(res); p != nil {
		s.renderOnly(p)
	}
}

// renderOnly computes the GET body of a resource and caches it: the
// desired body without secret and writeOnly values, plus what the server
// computes, plus its embedded children.
func (s *Server) renderOnly(res *resource) {
	d := res.d
	body := runtime.DeepCopyJSON(res.Desired)
	d.Walk(body, func(n descriptor.Node) bool {
		if n.Known && (n.Class == descriptor.Secret || n.Class == descriptor.WriteOnly) {
			delete(n.Parent, n.Key)
			return false
		}
		return true
	})
	segs := strings.Split(res.ID, "/")
	body["id"] = res.ID
	body["name"] = segs[len(segs)-1]
	body["type"] = d.ARMType
	if _, ok := d.ClassOf(descriptor.P("etag")); ok {
		body["etag"] = res.ETag
	}
	if _, ok := d.ClassOf(descriptor.P("systemData")); ok {
		body["systemData"] = map[string]any{
			"createdBy": "armature@example.com", "createdByType": "User", "createdAt": res.Created.Format(time.RFC3339Nano),
			"lastModifiedBy": "armature@example.com", "lastModifiedByType": "User", "lastModifiedAt": res.Modified.Format(time.RFC3339Nano),
		}
	}
	if _, ok := d.ClassOf(descriptor.P("properties", "provisioningState")); ok {
		props, _ := body["properties"].(map[string]any)
		if props == nil {
			props = map[string]any{}
			body["properties"] = props
		}
		props["provisioningState"] = res.State
	}
	s.profileDefaults(d, body)
	s.profileAnswered(res, body)
	serverDefaults(d, body)
	placeholders(d, body, res)
	s.joinEmbedded(res, body)
	b, err := json.Marshal(body)
	if err != nil {
		b = []byte(`{}`)
	}
	res.rendered = b
}

// placeholders fills the readOnly properties the table lists, outside arrays
// and maps, with values of their JSON type, so a GET has a real GET's shape.
func placeholders(d *descriptor.Descriptor, body map[string]any, res *resource) {
	for _, p := range d.Properties {
		if p.Class != descriptor.ReadOnly || slices.ContainsFunc(p.Path, descriptor.IsWildcard) {
			continue
		}
		// properties.* is there even when the request sent no properties,
		// as in a real GET; deeper objects only when their parent is.
		create := len(p.Path) == 2 && p.Path[0] == "properties"
		if parent, last := slot(body, p.Path, create); parent != nil {
			parent[last] = placeholder(p, res)
			if v, ok := nameDerived(d, p.Path, res); ok {
				parent[last] = v
			}
		}
	}
}

func placeholder(p descriptor.Property, res *resource) any {
	lower := strings.ToLower(p.Path.Last())
	switch p.Type {
	case "object":
		return map[string]any{}
	case "array":
		return []any{}
	case "boolean":
		return false
	case "integer", "number":
		return 0
	}
	switch {
	case strings.HasSuffix(lower, "time") || strings.HasSuffix(lower, "date") || strings.HasSuffix(lower, "at") && strings.Contains(lower, "ed"):
		return res.Created.Format(time.RFC3339Nano)
	case strings.HasSuffix(lower, "id"):
		sum := sha256.Sum256([]byte(res.ID + "/" + p.Path.String()))
		h := hex.EncodeToString(sum[:16])
		return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
	case strings.HasSuffix(lower, "state") || strings.HasSuffix(lower, "status"):
		return "Succeeded"
	}
	return ""
}

// serverDefaults adds the values ARM fills in for properties a request
// left out (learned by the generator from real responses).
func serverDefaults(d *descriptor.Descriptor, body map[string]any) {
	for _, sd := range d.ServerDefaults {
		parent, last := slot(body, sd.Path, true)
		if parent == nil {
			continue
		}
		var v any
		if err := json.Unmarshal([]byte(sd.JSON), &v); err == nil {
			parent[last] = v
		}
	}
}

// slot finds where the value at a path of property names goes: the parent
// object and the last key, or nil when the path is taken or blocked by a
// non-object (a null is no value). create makes missing parent objects.
func slot(body map[string]any, path descriptor.Path, create bool) (map[string]any, string) {
	parent := body
	for _, k := range path.Parent() {
		next, ok := parent[k].(map[string]any)
		if !ok {
			if _, exists := parent[k]; exists || !create {
				return nil, ""
			}
			next = map[string]any{}
			parent[k] = next
		}
		parent = next
	}
	last := path.Last()
	if v, ok := parent[last]; ok && v != nil { // a null sent is nothing sent
		return nil, ""
	}
	return parent, last
}

// nameDerived is the value ARM derives from the resource's name at a path
// (descriptor.NameDerived), with this resource's name in it.
func nameDerived(d *descriptor.Descriptor, p descriptor.Path, res *resource) (string, bool) {
	for _, nd := range d.NameDerived {
		if !nd.Path.Equal(p) {
			continue
		}
		var tmpl string
		if json.Unmarshal([]byte(nd.JSON), &tmpl) != nil {
			return "", false
		}
		name := res.ID[strings.LastIndex(res.ID, "/")+1:]
		return strings.ReplaceAll(tmpl, "{name}", name), true
	}
	return "", false
}
