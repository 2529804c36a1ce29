package classify

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/armature-dev/armature/generator/config"
	"github.com/armature-dev/armature/generator/facts"
	"github.com/armature-dev/armature/generator/load"
	"github.com/armature-dev/armature/generator/override"
	"github.com/armature-dev/armature/generator/tree"
	"github.com/armature-dev/armature/runtime/descriptor"
)

func table(t *testing.T, root, file, armType string) *Table {
	t.Helper()
	return tableWith(t, root, file, armType, nil)
}

// tableWith classifies with overrides, which select every kind.
func tableWith(t *testing.T, root, file, armType string, list []config.Override) *Table {
	t.Helper()
	l := load.New(root)
	d, err := l.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	tr, errs := tree.Build(l, []*load.Document{d})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	r := tr.Resource(armType)
	if r == nil {
		t.Fatalf("no resource %s", armType)
	}
	var fixes *override.Kind
	if list != nil {
		for i := range list {
			list[i].Kind, list[i].Index = "*", i
		}
		fixes = override.New("armature.yaml", list).For(override.Target{Kind: "Thing", ARMType: armType})
	}
	tb, err := ClassifyWith(l, r, Inputs{Fixes: fixes})
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

type want struct {
	class Class
	rule  string
}

func check(t *testing.T, tb *Table, cases map[string]want) {
	t.Helper()
	for path, w := range cases {
		e, ok := tb.Entry(descriptor.MustParsePath(path))
		if !ok {
			t.Errorf("%s: not in the table", path)
			continue
		}
		if diff := cmp.Diff(w, want{e.Class, e.Rule}, cmp.AllowUnexported(want{})); diff != "" {
			t.Errorf("%s (-want +got):\n%s", path, diff)
		}
	}
}

func TestRules(t *testing.T) {
	tb := table(t, "testdata", "rules.json", "Microsoft.Rules/things")
	check(t, tb, map[string]want{
		"id":                {ReadOnly, RuleGETOnly},
		"location":          {CreateOnly, RuleLocation},
		"sku":               {Writable, RulePUTAndPATCH}, // readOnly in GET does not count
		"sku.name":          {Writable, RulePUTAndPATCH},
		"network.subnet":    {Writable, RulePUTAndPATCH},
		"network.fixed":     {CreateOnly, RuleNotInPATCH},
		"network.fixed.ip":  {CreateOnly, "inside createOnly network.fixed"},
		"bootstrapToken":    {WriteOnly, RuleNotInGET},
		"password":          {Secret, RulePassword},
		"status":            {ReadOnly, RuleReadOnlyPUT},
		"status.phase":      {ReadOnly, "inside readOnly status"},
		"status.since":      {ReadOnly, "inside readOnly status"},
		"settings.b.c":      {Writable, RulePUTAndPATCH}, // PATCH's settings is free-form
		"mutable":           {Writable, RuleMutNoCreate},
		"rules[*].port":     {Writable, RulePUTAndPATCH},
		"extras.*.v":        {Writable, RulePUTAndPATCH},
		"extras.*.computed": {ReadOnly, RuleGETOnly},
	})
	if _, ok := tb.Entry(descriptor.MustParsePath("password.anything")); ok {
		t.Error("nothing below a secret is classified")
	}
}

// Overrides decide the class of the path they match; paths below inherit
// readOnly and createOnly as usual, a replaced type drops them, and hide
// reaches them.
func TestOverrides(t *testing.T) {
	tb := tableWith(t, "testdata", "rules.json", "Microsoft.Rules/things", []config.Override{
		{Path: "network", Class: "readOnly", Because: "computed"},
		{Path: "status", Class: "writable", Because: "settable"},
		{Path: "bootstrapToken", Class: "secret", Because: "a credential"},
		{Path: "rules[*].port", Class: "createOnly", Because: "fixed"},
		{Path: "extras", Type: "object", Because: "free-form"},
		{Path: "settings", Hide: true, Because: "deprecated"},
		{Path: "mutable", Default: []byte(`"x"`), Because: "policy"},
	})
	check(t, tb, map[string]want{
		"network":          {ReadOnly, RuleOverride + "computed"},
		"network.subnet":   {ReadOnly, "inside readOnly network"},
		"network.fixed.ip": {ReadOnly, "inside readOnly network.fixed"},
		"status":           {Writable, RuleOverride + "settable"},
		"status.phase":     {CreateOnly, RuleNotInPATCH}, // the rules decide below an override
		"bootstrapToken":   {Secret, RuleOverride + "a credential"},
		"rules[*].port":    {CreateOnly, RuleOverride + "fixed"},
		"settings":         {Writable, RulePUTAndPATCH + RuleHidden + "deprecated"},
		"settings.b.c":     {Writable, RulePUTAndPATCH + "; hidden inside settings"},
		"mutable":          {Writable, RuleMutNoCreate},
		"extras":           {Writable, RulePUTAndPATCH},
		"location":         {CreateOnly, RuleLocation},
		"password":         {Secret, RulePassword},
	})
	if e, _ := tb.Entry(descriptor.MustParsePath("network")); e.Was != Writable {
		t.Errorf("network was %q, want the swagger's class kept as writable", e.Was)
	}
	if e, _ := tb.Entry(descriptor.MustParsePath("settings.b.c")); !e.Hidden {
		t.Error("paths below a hidden one are hidden")
	}
	if e, _ := tb.Entry(descriptor.MustParsePath("mutable")); e.Default != `"x"` {
		t.Errorf("default = %q", e.Default)
	}
	if _, ok := tb.Entry(descriptor.MustParsePath("extras.*.v")); ok {
		t.Error("a replaced type drops the paths below it")
	}
}

func TestContosoWidget(t *testing.T) {
	tb := table(t, "../testdata/contoso/input", "widgets.json", "Microsoft.Contoso/widgets")
	check(t, tb, map[string]want{
		"location":                     {CreateOnly, RuleLocation},
		"tags":                         {Writable, RuleMutWritable},
		"sku":                          {Writable, RulePUTAndPATCH},
		"properties.serial":            {CreateOnly, RuleNotInPATCH},
		"properties.zone":              {CreateOnly, RuleMutCreateOnly},
		"properties.createMode":        {WriteOnly, RuleMutWriteOnly},
		"properties.adminPassword":     {Secret, RuleSecret},
		"properties.provisioningState": {ReadOnly, RuleReadOnlyPUT},
		"properties.shape.radius":      {Writable, RulePUTAndPATCH}, // from a discriminated subtype
		"properties.parts[*].children": {Writable, RulePUTAndPATCH}, // recursion stops here
		"id":                           {ReadOnly, RuleReadOnlyPUT},
	})
	if _, ok := tb.Entry(descriptor.MustParsePath("properties.parts[*].children[*].name")); ok {
		t.Error("recursive Part must not be expanded below its first repetition")
	}
}

func TestParent(t *testing.T) {
	cases := map[string]string{
		"a":          "",
		"a.b":        "a",
		"a.b[*].c":   "a.b",
		"a.*.c":      "a",
		"a.b.*.c[*]": "a.b",
	}
	for in, want := range cases {
		if got := parent(descriptor.MustParsePath(in)).String(); got != want {
			t.Errorf("parent(%q) = %q, want %q", in, got, want)
		}
	}
}

// A PATCH that only takes tags (AKS's UpdateTags pattern) does not make
// everything else create-only: updates go through PUT.
func TestTagsOnlyPatch(t *testing.T) {
	tb := table(t, "testdata", "rules.json", "Microsoft.Rules/gadgets")
	check(t, tb, map[string]want{
		"location":           {CreateOnly, RuleLocation},
		"tags":               {Writable, RulePUTTagsPATCH},
		"properties.version": {Writable, RulePUTTagsPATCH},
	})
}

// A PATCH body without the PUT's tags (Web's ProxyOnlyResource envelopes)
// is not a patch of the resource: what it lacks is not createOnly. Members
// the service fills are readOnly wherever they appear.
func TestNotARealPatch(t *testing.T) {
	tb := table(t, "testdata", "rules.json", "Microsoft.Rules/farms")
	check(t, tb, map[string]want{
		"location":                              {CreateOnly, RuleLocation},
		"tags":                                  {Writable, RuleNotRealPatch},
		"sku.name":                              {Writable, RuleNotRealPatch},
		"properties.reserved":                   {Writable, RuleNotRealPatch},
		"properties.pools[*].name":              {Writable, RuleNotRealPatch},
		"properties.pools[*].provisioningState": {ReadOnly, sprintf(RuleServerFilled, "provisioningState: the ARM resource provider contract's async-api-reference says the service sets it")},
		"identity.principalId":                  {ReadOnly, sprintf(RuleServerFilled, "identity.principalId: common-types managedidentity.json ManagedServiceIdentity marks it readOnly")},
		"identity.userAssignedIdentities.*.clientId": {ReadOnly, sprintf(RuleServerFilled, "userAssignedIdentities.*.clientId: common-types managedidentity.json UserAssignedIdentity marks it readOnly")},
		"identity.type": {Writable, RuleNotRealPatch},
	})
	if e, _ := tb.Entry(descriptor.MustParsePath("location")); e.Source != SourceARM || e.Swagger != Writable {
		t.Errorf("location: source %q, swagger %q; want arm over the swagger's writable", e.Source, e.Swagger)
	}
}

// The facts decide after the ARM-wide rules and before x-ms-mutability and
// the PUT/PATCH comparison; a property they show updated in place is never
// createOnly by the comparison alone, nor is one that holds such a
// property; conditional facts and conflicts decide nothing.
func TestFacts(t *testing.T) {
	f := &facts.File{Commit: "c", Resources: []facts.Resource{{
		Resource: "azurerm_thing", ARMType: "Microsoft.Rules/things", File: "thing.go",
		Facts: []facts.Fact{
			{Attribute: "location", Path: "location", Fact: facts.Updatable, Line: 1},
			{Attribute: "sku_name", Path: "sku.name", Fact: facts.ForceNew, Line: 2},
			{Attribute: "fixed_ip", Path: "network.fixed.ip", Fact: facts.Updatable, Line: 3},
			{Attribute: "subnet", Path: "network.subnet", Fact: facts.ConditionalForceNew, Line: 4, Condition: "ForceNewIfChange"},
			{Attribute: "mutable", Path: "mutable", Fact: facts.ForceNew, Line: 5},
		},
	}}}
	ft := &facts.Table{}
	if err := ft.Add(f); err != nil {
		t.Fatal(err)
	}
	tb := tableWithFacts(t, "Microsoft.Rules/things", ft)
	check(t, tb, map[string]want{
		"location":         {CreateOnly, RuleLocation}, // ARM-wide comes first
		"sku.name":         {CreateOnly, RuleFactForceNew + "azurerm_thing.sku_name ForceNew (thing.go:2)"},
		"network.fixed":    {Writable, RuleFactInPlaceBelow + "azurerm_thing.fixed_ip updated in place (thing.go:3)"},
		"network.fixed.ip": {Writable, RuleFactInPlace + "azurerm_thing.fixed_ip updated in place (thing.go:3)"},
		"network.subnet":   {Writable, RulePUTAndPATCH},
		"mutable":          {CreateOnly, RuleFactForceNew + "azurerm_thing.mutable ForceNew (thing.go:5)"},
	})
	e, _ := tb.Entry(descriptor.MustParsePath("network.subnet"))
	if e.Facts == "" || e.Source != SourceSwagger {
		t.Errorf("network.subnet: facts %q, source %q; want the conditional fact shown, the swagger deciding", e.Facts, e.Source)
	}
	if e, _ := tb.Entry(descriptor.MustParsePath("sku.name")); e.Source != SourceTerraform || e.Swagger != Writable {
		t.Errorf("sku.name: source %q swagger %q", e.Source, e.Swagger)
	}
}

// An object x-ms-mutability makes createOnly opens when the facts show a
// property inside it updated in place; the others inside stay createOnly.
func TestFactsOpenAnObject(t *testing.T) {
	ft := &facts.Table{}
	if err := ft.Add(&facts.File{Resources: []facts.Resource{{
		Resource: "azurerm_farm", ARMType: "Microsoft.Rules/farms", File: "farm.go",
		Facts: []facts.Fact{{Attribute: "public_access", Path: "properties.network.access", Fact: facts.Updatable, Line: 7}},
	}}}); err != nil {
		t.Fatal(err)
	}
	tb := tableWithFacts(t, "Microsoft.Rules/farms", ft)
	cite := "azurerm_farm.public_access updated in place (farm.go:7)"
	check(t, tb, map[string]want{
		"properties.network":        {Writable, RuleMutSplit + cite},
		"properties.network.access": {Writable, RuleNotRealPatch},
		"properties.network.subnet": {CreateOnly, sprintf(RuleSplitParent, "properties.network")},
	})
	// Without the facts, x-ms-mutability freezes the whole object.
	check(t, table(t, "testdata", "rules.json", "Microsoft.Rules/farms"), map[string]want{
		"properties.network":        {CreateOnly, RuleMutCreateOnly},
		"properties.network.access": {CreateOnly, "inside createOnly properties.network"},
	})
}

// tableWithFacts classifies a resource of testdata/rules.json with facts.
func tableWithFacts(t *testing.T, armType string, ft *facts.Table) *Table {
	t.Helper()
	l := load.New("testdata")
	d, err := l.Load("rules.json")
	if err != nil {
		t.Fatal(err)
	}
	tr, _ := tree.Build(l, []*load.Document{d})
	tb, err := ClassifyWith(l, tr.Resource(armType), Inputs{Facts: ft})
	if err != nil {
		t.Fatal(err)
	}
	return tb
}
