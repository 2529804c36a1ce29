package tree

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/armature-dev/armature/generator/load"
	"github.com/armature-dev/armature/runtime/descriptor"
)

// TestEmbedded: the collections of a parent's PUT body that are child
// resource types are marked, by schema identity (subnets) or by the
// child's type segment (rules, whose items are another definition); an
// array of objects that no child type serves (peers) is not.
func TestEmbedded(t *testing.T) {
	l := load.New("../testdata/embedded/input")
	doc, err := l.Load("fabrikam.json")
	if err != nil {
		t.Fatal(err)
	}
	tr, errs := Build(l, []*load.Document{doc})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	want := []Embedded{
		{Path: descriptor.P("properties", "rules"), ARMType: "Microsoft.Fabrikam/nets/rules", By: "name"},
		{Path: descriptor.P("properties", "subnets"), ARMType: "Microsoft.Fabrikam/nets/subnets", By: "schema"},
	}
	if diff := cmp.Diff(want, tr.Resource("Microsoft.Fabrikam/nets").Embedded); diff != "" {
		t.Errorf("nets -want +got:\n%s", diff)
	}
	for _, r := range tr.Resources {
		if r.ARMType != "Microsoft.Fabrikam/nets" && len(r.Embedded) > 0 {
			t.Errorf("%s has no embedded child collection: %v", r.ARMType, r.Embedded)
		}
	}
}
