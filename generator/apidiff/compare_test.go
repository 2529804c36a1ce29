package apidiff

import (
	"slices"
	"testing"

	"github.com/armature-dev/armature/generator/classify"
	"github.com/armature-dev/armature/generator/model"
	"github.com/armature-dev/armature/generator/tree"
	"github.com/armature-dev/armature/runtime/descriptor"
)

// TestClassTransitions checks the breaking mark of every class change.
func TestClassTransitions(t *testing.T) {
	const (
		w  = classify.Writable
		c  = classify.CreateOnly
		r  = classify.ReadOnly
		wo = classify.WriteOnly
		s  = classify.Secret
	)
	// breaking[old][new]; the diagonal is no change.
	breaking := map[classify.Class]map[classify.Class]bool{
		w:  {c: true, r: true, wo: true, s: true},
		c:  {w: false, r: true, wo: true, s: true},
		r:  {w: false, c: false, wo: true, s: true},
		wo: {w: false, c: true, r: true, s: true},
		s:  {w: true, c: true, r: true, wo: true},
	}
	for o, row := range breaking {
		for n, want := range row {
			ch, ok := classChange("p", &prop{Entry: classify.Entry{Class: o, Rule: "old"}}, &prop{Entry: classify.Entry{Class: n, Rule: "new"}})
			if !ok {
				t.Fatalf("%s → %s: no change reported", o, n)
			}
			if ch.Breaking != want {
				t.Errorf("%s → %s: breaking = %v, want %v", o, n, ch.Breaking, want)
			}
			if ch.Breaking && ch.Why == "" {
				t.Errorf("%s → %s: breaking without a reason", o, n)
			}
			if ch.Rule != "new" || ch.OldRule != "old" {
				t.Errorf("%s → %s: rules %q, %q", o, n, ch.Rule, ch.OldRule)
			}
		}
		if _, ok := classChange("p", &prop{Entry: classify.Entry{Class: o}}, &prop{Entry: classify.Entry{Class: o}}); ok {
			t.Errorf("%s → %s reported as a change", o, o)
		}
	}
}

func TestParent(t *testing.T) {
	cases := map[string]string{
		"location": "",
		"properties.networkAcls.ipRules[*].value":    "properties.networkAcls.ipRules",
		"identity.userAssignedIdentities.*.clientId": "identity.userAssignedIdentities",
		"properties.sku":     "properties",
		"properties.list[*]": "properties",
	}
	for path, want := range cases {
		if got := parent(descriptor.MustParsePath(path)).String(); got != want {
			t.Errorf("parent(%q) = %q, want %q", path, got, want)
		}
	}
}

// TestRequiredOnlyInSpec checks that required counts for spec classes only:
// the PUT body cannot require what the user does not send.
func TestRequiredOnlyInSpec(t *testing.T) {
	ro := &prop{Entry: classify.Entry{Class: classify.ReadOnly, Required: true}}
	if got := requiredChange("p", &prop{Entry: classify.Entry{Class: classify.ReadOnly}}, ro); got != nil {
		t.Errorf("a readOnly property that becomes required: %v", got)
	}
	if c := added("p", ro); c.Breaking {
		t.Errorf("an added readOnly property marked breaking: %+v", c)
	}
	wr := &prop{Entry: classify.Entry{Class: classify.Writable, Required: true}}
	if got := requiredChange("p", &prop{Entry: classify.Entry{Class: classify.Writable}}, wr); len(got) != 1 || !got[0].Breaking {
		t.Errorf("a writable property that becomes required: %v", got)
	}
}

// TestEnumChanges checks that enums are compared on the spec only
// (the model has none in status) and that an enum dropped opens the field.
func TestEnumChanges(t *testing.T) {
	closed := func(vals ...string) *prop {
		e := &model.Enum{Closed: true}
		for _, v := range vals {
			e.Values = append(e.Values, model.EnumValue{Value: v})
		}
		return &prop{specType: "string", enum: e}
	}
	plain := &prop{specType: "string"}
	status := &prop{statusType: "string"}
	if got := enumChanges("p", status, status); got != nil {
		t.Errorf("status-only: %v", got)
	}
	got := enumChanges("p", closed("A", "B"), plain)
	if len(got) != 1 || got[0].Op != EnumOpened || got[0].Breaking {
		t.Errorf("closed enum → plain string: %+v", got)
	}
	open := closed("A")
	open.enum.Closed = false
	got = enumChanges("p", closed("A", "B"), open)
	if len(got) != 2 || got[0].Op != EnumRemoved || !got[0].Breaking || got[0].Why != whyEnumRemovedOpen || got[1].Op != EnumOpened {
		t.Errorf("closed enum → open enum without a value: %+v", got)
	}
	got = enumChanges("p", plain, closed("A"))
	if len(got) != 2 || got[0].Op != EnumAdded || got[1].Op != EnumClosed || !got[1].Breaking {
		t.Errorf("plain string → closed enum: %+v", got)
	}
}

// TestKindLevelChanges checks the changes of a resource type itself.
func TestKindLevelChanges(t *testing.T) {
	kind := func(name, owner string, scope tree.Scope) *model.Kind {
		return &model.Kind{
			Name:     name,
			Package:  &model.Package{Group: "shop.azure.armature.dev"},
			Resource: &tree.Resource{ARMType: "Microsoft.Shop/widgets/parts", Owner: owner, Scope: scope},
			Table:    &classify.Table{},
		}
	}
	got := compareKind(kind("WidgetsPart", "Microsoft.Shop/widgets", tree.ScopeResourceGroup), kind("WidgetPart", "Microsoft.Shop/gadgets", tree.ScopeSubscription))
	var ops []Op
	for _, c := range got {
		if !c.Breaking || c.Why == "" {
			t.Errorf("not marked breaking with a reason: %+v", c)
		}
		ops = append(ops, c.Op)
	}
	if want := []Op{KindRenamed, OwnerChanged, ScopeChanged}; !slices.Equal(ops, want) {
		t.Errorf("ops %v, want %v", ops, want)
	}
	if got[0].Old != "WidgetsPart.shop.azure.armature.dev" || got[0].New != "WidgetPart.shop.azure.armature.dev" {
		t.Errorf("rename %q → %q", got[0].Old, got[0].New)
	}
	same := kind("WidgetsPart", "microsoft.shop/WIDGETS", tree.ScopeResourceGroup)
	if got := compareKind(kind("WidgetsPart", "Microsoft.Shop/widgets", tree.ScopeResourceGroup), same); len(got) != 0 {
		t.Errorf("owner types compare case-insensitively; got %+v", got)
	}
}
