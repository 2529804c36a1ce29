package importer

import (
	"slices"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/armature-dev/armature/runtime/descriptor"
)

// hiddenRule marks, in a property's Rule, a property an override hides
// from the CRD (generator/classify.RuleHidden: the composition layer does
// not import the generator).
const hiddenRule = "; hidden by override: "

// built is the spec of a resource from its GET body.
type built struct {
	spec map[string]any
	// secrets are the secret paths given a Secret key reference.
	secrets []descriptor.Path
	// unreferenced are secret paths inside arrays or maps: no reference
	// is written for them (the number of items is not known).
	unreferenced []descriptor.Path
	// dropped are the paths of values the CRD has no field for (unknown
	// to the property table, or hidden by an override).
	dropped []string
}

// specOf builds the ARM part of a spec from a GET body: what a user
// writes (writable and createOnly values, as Azure has them), nothing
// Azure computes (readOnly) and nothing the CRD lacks. Secret and
// writeOnly values are never copied (ARM does not return them; should an
// API return one, it is dropped all the same): each secret path whose
// holder the GET body has gets a reference to key keyOf(path) of the
// Secret secretName instead.
func specOf(d *descriptor.Descriptor, body map[string]any, secretName string) built {
	var b built
	b.spec = runtime.DeepCopyJSON(body)
	var removed [][2]descriptor.Path // concrete and table path
	d.Walk(b.spec, func(n descriptor.Node) bool {
		switch {
		case !n.Known || hidden(d, n.TablePath):
			b.dropped = append(b.dropped, n.Path.String())
		case n.Class == descriptor.ReadOnly, n.Class == descriptor.WriteOnly, n.Class == descriptor.Secret:
		default:
			return true
		}
		delete(n.Parent, n.Key)
		removed = append(removed, [2]descriptor.Path{n.Path, n.TablePath})
		return false
	})
	pruneEmptied(b.spec, removed)
	for _, p := range d.SecretPaths {
		if slices.ContainsFunc(p, descriptor.IsWildcard) {
			b.unreferenced = append(b.unreferenced, p)
			continue
		}
		if _, ok := p.Parent().Get(body); !ok && len(p) > 1 {
			continue // the GET has no holder: nothing is set there
		}
		p.Set(b.spec, map[string]any{"name": secretName, "key": keyOf(p)})
		b.secrets = append(b.secrets, p)
	}
	sort.Strings(b.dropped)
	return b
}

// keyOf is the Secret key for a secret path: its property names joined by
// dots (properties.osProfile.adminPassword), a valid Secret key.
func keyOf(p descriptor.Path) string {
	var parts []string
	for _, n := range p.Names() {
		parts = append(parts, strings.Map(func(r rune) rune {
			if r == '-' || r == '_' || r == '.' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
				return r
			}
			return '_'
		}, n))
	}
	return strings.Join(parts, ".")
}

// hidden reports a table path an override hides from the CRD.
func hidden(d *descriptor.Descriptor, tp descriptor.Path) bool {
	i, ok := slices.BinarySearchFunc(d.Properties, tp, func(p descriptor.Property, q descriptor.Path) int { return p.Path.Compare(q) })
	return ok && strings.Contains(d.Properties[i].Rule, hiddenRule)
}

// pruneEmptied removes the objects that removing values left empty
// (properties: {} once every property in it was readOnly), up the path.
// Objects inside arrays stay, values of maps stay (in
// identity.userAssignedIdentities the key is what counts), and so do
// objects that were empty in the GET body.
func pruneEmptied(spec map[string]any, removed [][2]descriptor.Path) {
	for _, r := range removed {
		table := r[1].Parent()
		for holder := r[0].Parent(); len(holder) > 0; holder, table = holder.Parent(), table.Parent() {
			if slices.ContainsFunc(holder, descriptor.IsWildcard) || table.Last() == descriptor.Values {
				break
			}
			v, ok := holder.Get(spec)
			m, isMap := v.(map[string]any)
			if !ok || !isMap || len(m) > 0 {
				break
			}
			parent, _ := holder.Parent().Get(spec)
			delete(parent.(map[string]any), holder.Last())
		}
	}
}
