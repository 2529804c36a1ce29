package apidiff_test

import (
	"os"

	"github.com/armature-dev/armature/generator/apidiff"
	"github.com/armature-dev/armature/generator/classify"
	"github.com/armature-dev/armature/generator/model"
	"github.com/armature-dev/armature/generator/tree"
	"github.com/armature-dev/armature/runtime/descriptor"
)

// widgets builds the model of one kind from its classification table, as
// the generator's analysis would.
func widgets(apiVersion, version string, entries ...classify.Entry) *model.Model {
	pkg := &model.Package{Group: "shop.azure.armature.dev", Version: version, APIVersion: apiVersion}
	k := &model.Kind{
		Name:     "Widget",
		Package:  pkg,
		Resource: &tree.Resource{ARMType: "Microsoft.Shop/widgets", APIVersion: apiVersion},
		Table:    &classify.Table{Entries: entries},
	}
	pkg.Kinds = []*model.Kind{k}
	return &model.Model{Packages: []*model.Package{pkg}}
}

func ExampleCompare() {
	older := widgets("2024-01-01", "v20240101",
		classify.Entry{Path: descriptor.MustParsePath("location"), Class: classify.Writable, Rule: classify.RulePUTAndPATCH, Type: "string"},
		classify.Entry{Path: descriptor.MustParsePath("properties.note"), Class: classify.Writable, Rule: classify.RulePUTAndPATCH, Type: "string"},
	)
	newer := widgets("2024-06-01", "v20240601",
		classify.Entry{Path: descriptor.MustParsePath("location"), Class: classify.CreateOnly, Rule: classify.RuleNotInPATCH, Type: "string"},
		classify.Entry{Path: descriptor.MustParsePath("properties.label"), Class: classify.Writable, Rule: classify.RulePUTAndPATCH, Type: "string"},
	)
	rep := apidiff.Compare(older, newer)
	_ = rep.Write(os.Stdout)
	// Output:
	// API changes 2024-01-01 → 2024-06-01
	//
	// Microsoft.Shop/widgets (Widget shop.azure.armature.dev, v20240101 → v20240601)
	//   BREAKING  class         location: writable → createOnly (in the PUT body, not in the PATCH body) — a change after creation is rejected
	//             added         properties.label: writable string
	//   BREAKING  removed       properties.note: was writable string — a manifest that sets it is refused (unknown field) or loses the value
	//
	// Summary: 1 of 1 kind changed (0 added, 0 removed); 2 breaking changes
}
