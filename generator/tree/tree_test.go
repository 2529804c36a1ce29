package tree

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/armature-dev/armature/generator/load"
)

func TestParse(t *testing.T) {
	cases := map[string]struct {
		path      string
		scope     Scope
		provider  string
		tokens    string
		skipMatch string
		category  SkipCategory
	}{
		"ResourceGroupScope": {path: "/subscriptions/{s}/resourceGroups/{rg}/providers/Microsoft.Storage/storageAccounts/{a}/blobServices/default/containers/{c}",
			scope: ScopeResourceGroup, provider: "Microsoft.Storage", tokens: "storageAccounts/{a}/blobServices/default/containers/{c}"},
		"LowerCaseResourceGroups": {path: "/subscriptions/{s}/resourcegroups/{rg}/providers/Microsoft.Storage/storageAccounts/{a}/hnsonmigration",
			scope: ScopeResourceGroup, provider: "Microsoft.Storage", tokens: "storageAccounts/{a}/hnsonmigration"},
		"Subscription":    {path: "/subscriptions/{s}/providers/Microsoft.Resources/deployments/{d}", scope: ScopeSubscription, provider: "Microsoft.Resources", tokens: "deployments/{d}"},
		"Tenant":          {path: "/providers/Microsoft.Resources/deployments/{d}", scope: ScopeTenant, provider: "Microsoft.Resources", tokens: "deployments/{d}"},
		"ManagementGroup": {path: "/providers/Microsoft.Management/managementGroups/{g}/providers/Microsoft.Resources/deployments/{d}", scope: ScopeManagementGroup, provider: "Microsoft.Resources", tokens: "deployments/{d}"},
		"Extension":       {path: "/{scope}/providers/Microsoft.Authorization/roleAssignments/{n}", scope: ScopeExtension, provider: "Microsoft.Authorization", tokens: "roleAssignments/{n}"},
		"ResourceGroupItself": {path: "/subscriptions/{subscriptionId}/resourcegroups/{resourceGroupName}",
			scope: ScopeSubscription, provider: "Microsoft.Resources", tokens: "resourceGroups/{resourceGroupName}"},
		"GenericByID":       {path: "/{resourceId}", skipMatch: "any resource by its ARM id", category: SkipGenericPath},
		"GenericNamespace":  {path: "/subscriptions/{s}/providers/{resourceProviderNamespace}/register", skipMatch: "namespace is a parameter", category: SkipGenericPath},
		"GenericType":       {path: "/subscriptions/{s}/resourcegroups/{rg}/providers/Microsoft.X/{parentResourcePath}/{t}/{n}", skipMatch: "type segment is a parameter", category: SkipGenericPath},
		"NotProvider":       {path: "/subscriptions/{s}/tagNames/{t}", skipMatch: "not below /providers/", category: SkipNotAResource},
		"UnsupportedPrefix": {path: "/subscriptions/{s}/resourceGroups/{rg}/providers/Microsoft.Web/sites/{n}/providers/Microsoft.Insights/x/{y}", skipMatch: "unsupported scope prefix", category: SkipUnsupportedScope},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			p, cat, reason := parse(tc.path)
			if tc.skipMatch != "" {
				if !strings.Contains(reason, tc.skipMatch) {
					t.Fatalf("reason = %q, want it to contain %q", reason, tc.skipMatch)
				}
				if cat != tc.category {
					t.Errorf("category = %q, want %q", cat, tc.category)
				}
				return
			}
			if reason != "" || cat != "" {
				t.Fatalf("unexpected skip: %s", reason)
			}
			got := struct{ Scope, Provider, Tokens string }{string(p.scope), p.provider, strings.Join(p.tokens, "/")}
			want := struct{ Scope, Provider, Tokens string }{string(tc.scope), tc.provider, tc.tokens}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("-want +got:\n%s", diff)
			}
		})
	}
}

func contosoTree(t *testing.T) *Tree {
	t.Helper()
	l := load.New("../testdata/contoso/input")
	d, err := l.Load("widgets.json")
	if err != nil {
		t.Fatal(err)
	}
	tr, errs := Build(l, []*load.Document{d})
	if len(errs) > 0 {
		t.Fatalf("Build: %v", errs)
	}
	return tr
}

func TestBuildContoso(t *testing.T) {
	tr := contosoTree(t)
	type summary struct {
		Scope, Owner, Singleton, NameParam string
		Verbs, LRO, Actions, StatusGETs    []string
		Lists                              int
	}
	got := map[string]summary{}
	for _, r := range tr.Resources {
		s := summary{Scope: string(r.Scope), Owner: r.Owner, Singleton: r.Singleton, NameParam: r.NameParam, Verbs: r.Verbs(), LRO: r.LongRunning(), Lists: len(r.ListPaths)}
		for _, a := range r.Actions {
			s.Actions = append(s.Actions, a.Name)
		}
		for _, a := range r.StatusGETs {
			s.StatusGETs = append(s.StatusGETs, a.Name)
		}
		got[r.ARMType] = s
	}
	want := map[string]summary{
		"Microsoft.Contoso/widgets": {Scope: "resourceGroup", Owner: ResourceGroupType, NameParam: "widgetName",
			Verbs: []string{"DELETE", "GET", "PATCH", "PUT"}, LRO: []string{"DELETE", "PUT"},
			Actions: []string{"regenerateKey", "restart"}, StatusGETs: []string{"status"}, Lists: 1},
		"Microsoft.Contoso/widgets/settings": {Scope: "resourceGroup", Owner: "Microsoft.Contoso/widgets", Singleton: "default", NameParam: "settingsName",
			Verbs: []string{"GET", "PUT"}},
		"Microsoft.Contoso/widgets/settings/gears": {Scope: "resourceGroup", Owner: "Microsoft.Contoso/widgets/settings", NameParam: "gearName",
			Verbs: []string{"DELETE", "GET", "PUT"}},
		"Microsoft.Contoso/labels": {Scope: "extension", NameParam: "labelName", Verbs: []string{"GET", "PUT"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("resources (-want +got):\n%s", diff)
	}
	reasons := map[string]string{}
	for _, s := range tr.Skipped {
		reasons[s.Path] = s.Reason
		if !s.Category.Known() {
			t.Errorf("skipped %s: category %q is not one of SkipCategories", s.Path, s.Category)
		}
	}
	for p, want := range map[string]string{
		"/{resourceId}": "generic resource path",
		"/providers/Microsoft.Contoso/operations": "list of a type that has no PUT",
		"/subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.Contoso/widgets/{widgetName}/checkColor": "needs the query parameter color: a question, not a status read",
		"/subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.Contoso/widgets/{widgetName}/connection": "its answer holds credentials (properties.primaryConnectionString)",
	} {
		if !strings.Contains(reasons[p], want) {
			t.Errorf("skipped %s: reason %q, want %q", p, reasons[p], want)
		}
	}
	if len(tr.Skipped) != 4 {
		t.Errorf("skipped %d paths, want 4: %v", len(tr.Skipped), tr.Skipped)
	}
	w := tr.Resource("microsoft.contoso/WIDGETS")
	if w == nil || w.Ops["PUT"].FinalStateVia != "azure-async-operation" {
		t.Fatalf("widgets PUT must keep final-state-via; got %+v", w)
	}
	if got := w.Ops["PUT"].Examples["Create a widget"]; got != "examples/WidgetPut.json" {
		t.Errorf("example path = %q", got)
	}
}

// TestBuildNameRules: the name parameter's pattern and lengths, through a
// `$ref` (widgets), declared on the path (gears), or absent (labels, and
// the singleton settings, whose name is its enum).
func TestBuildNameRules(t *testing.T) {
	tr := contosoTree(t)
	got := map[string]*NameRule{}
	for _, r := range tr.Resources {
		got[r.ARMType] = r.Name
	}
	want := map[string]*NameRule{
		"Microsoft.Contoso/widgets": {Pattern: "^[A-Za-z0-9_-]+$", MinLength: 3, MaxLength: 24,
			Origin: load.Origin{File: "widgets.json", Pointer: "/parameters/WidgetName"}},
		"Microsoft.Contoso/widgets/settings/gears": {Pattern: "^(?!-)[a-z0-9-]+$", MaxLength: 63,
			Origin: load.Origin{File: "widgets.json", Pointer: "/paths/~1subscriptions~1{subscriptionId}~1resourceGroups~1{resourceGroupName}~1providers~1Microsoft.Contoso~1widgets~1{widgetName}~1settings~1default~1gears~1{gearName}"}},
		"Microsoft.Contoso/widgets/settings": nil,
		"Microsoft.Contoso/labels":           nil,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("name rules (-want +got):\n%s", diff)
	}
}

// TestBuildSkipCategories gives every kind of skipped path its category;
// testdata/skips.json has one path (or operation) of each.
func TestBuildSkipCategories(t *testing.T) {
	l := load.New("testdata")
	d, err := l.Load("skips.json")
	if err != nil {
		t.Fatal(err)
	}
	tr, errs := Build(l, []*load.Document{d})
	if len(errs) > 0 {
		t.Fatalf("Build: %v", errs)
	}
	const rg, sub = "/subscriptions/{subscriptionId}/resourceGroups/{resourceGroupName}/providers/Microsoft.Skips", "/subscriptions/{subscriptionId}/providers/Microsoft.Skips"
	got := map[string]SkipCategory{}
	for _, s := range tr.Skipped {
		key := s.Path
		if _, dup := got[key]; dup {
			key += " (again)"
		}
		got[key] = s.Category
		if !s.Category.Known() || s.Reason == "" {
			t.Errorf("skip %s: category %q, reason %q: want a known category and a reason", s.Path, s.Category, s.Reason)
		}
	}
	want := map[string]SkipCategory{
		sub + "/things/{thingName}":                                             SkipDuplicate,
		sub + "/things/{thingName}/restart":                                     SkipDuplicate,
		rg + "/things/{thingName}/enable":                                       SkipUnsupportedSubPath,
		rg + "/things/{thingName}/script/content":                               SkipUnsupportedBody,
		rg + "/things/{thingName}/logs/{logName}":                               SkipNoPUT,
		rg + "/things/{thingName}/logs/{logName} (again)":                       SkipNoPUT,
		rg + "/things/{thingName}/gadgets":                                      SkipListOnly,
		sub + "/usages":                                                         SkipListOnly,
		sub + "/readers/{readerName}":                                           SkipNoPUT,
		sub + "/writers/{writerName}":                                           SkipNoGET,
		sub + "/checkNameAvailability":                                          SkipActionOnly,
		sub + "/locations/{location}/quota":                                     SkipProviderLevel,
		"/subscriptions/{subscriptionId}/tagNames/{tagName}":                    SkipNotAResource,
		"/{resourceId}":                                                         SkipGenericPath,
		"/{scope}/providers/Microsoft.Resources/tags/default":                   SkipNotAResource,
		rg + "/things/{thingName}/providers/Microsoft.Other/extras/{extraName}": SkipUnsupportedScope,
		rg + "/things/{thingName}/readonlykeys":                                 SkipSecretRead,
		rg + "/things/{thingName}/relay":                                        SkipSecretRead,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("categories (-want +got):\n%s", diff)
	}
	if n := len(tr.Resources); n != 1 {
		t.Errorf("%d resources, want Microsoft.Skips/things only", n)
	}
	// health's answer names a secret's id, a public key and a boolean
	// about passwords: no credential, so it stays a status read.
	var reads []string
	for _, r := range tr.Resources {
		for _, g := range r.StatusGETs {
			reads = append(reads, g.Name)
		}
	}
	if diff := cmp.Diff([]string{"health"}, reads); diff != "" {
		t.Errorf("status reads (-want +got):\n%s", diff)
	}
	seen := map[SkipCategory]bool{}
	for _, c := range want {
		seen[c] = true
	}
	for _, c := range SkipCategories() {
		if !seen[c] {
			t.Errorf("category %s has no case in testdata/skips.json", c)
		}
	}
}
