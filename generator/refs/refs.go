package refs

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/armature-dev/armature/generator/classify"
	"github.com/armature-dev/armature/generator/load"
	"github.com/armature-dev/armature/generator/model"
	"github.com/armature-dev/armature/generator/override"
	"github.com/armature-dev/armature/runtime/descriptor"
)

// The rules, as References name them.
const (
	// RuleDetails: a string with x-ms-arm-id-details; its
	// allowedResources[].type are the targets.
	RuleDetails = "arm-id-details"
	// RuleFormat: a string with `format: arm-id`.
	RuleFormat = "format"
	// RuleSubResource: an object that stands for another resource by its
	// id — its only spec property is id (a SubResource), or it is the PUT
	// body of another resource type, of which ARM reads only the id.
	RuleSubResource = "subresource"
	// RuleIDKeyedMap: a map whose keys are ARM resource ids
	// (identity.userAssignedIdentities).
	RuleIDKeyedMap = "id-keyed-map"
	// RuleName: a string named …Id, …ID or id whose description says it
	// holds a resource id.
	RuleName = "name+description"
	// RuleOverride: a references entry of specs/armature.yaml added it.
	RuleOverride = "override"
)

// Rules lists the rules in the order they are tried; RuleOverride last.
var Rules = []string{RuleDetails, RuleFormat, RuleSubResource, RuleIDKeyedMap, RuleName, RuleOverride}

// Shape says where the id is in the value at a Reference's path.
type Shape string

// The shapes.
const (
	// Value: the string at the path is an ARM resource id (the path ends
	// in `[*]` for the items of a list of ids).
	Value Shape = "value"
	// Key: the keys of the map at the path are ARM resource ids; the
	// values are the map's own (`identity.userAssignedIdentities`).
	Key Shape = "key"
)

// Where the targets of a reference come from.
const (
	TargetsFromDetails     = "arm-id-details"
	TargetsFromSchema      = "schema"
	TargetsFromDescription = "description"
	// TargetsFromName: the property's name says it: a map named
	// userAssignedIdentities (ARM's managed identity contract types its
	// keys), or a SubResource named after a collection of the kind's own
	// body (an application gateway's `probe` → its probes).
	TargetsFromName     = "name"
	TargetsFromOverride = "override"
)

// Reference is one field of a kind's spec that holds an ARM resource id.
type Reference struct {
	// Path is the path of the value that holds the id, from the body root:
	// `properties.ipConfigurations[*].properties.subnet.id`.
	Path descriptor.Path
	// Shape says whether the value or the keys of a map are ids.
	Shape Shape
	// Rule is the rule that detected it (the Rule constants).
	Rule string
	// Targets are the ARM types the id may name, sorted; empty when
	// nothing says.
	Targets []string
	// TargetsFrom says where Targets come from (the TargetsFrom
	// constants), "" without targets.
	TargetsFrom string
	// Self is true when the id names a part of the resource itself (an
	// application gateway rule's backendAddressPool.id): a user writes the
	// id of the object being created, not of another one.
	Self bool
	// Class is the class of the path in the kind's table: writable,
	// createOnly or writeOnly (readOnly paths are not in the spec).
	Class classify.Class
	// Evidence is where the rule read its fact: file.json#/pointer.
	Evidence string
	// Note says what the rule saw, or, for an override, its because.
	Note string
}

// MarshalJSON writes the path in its text form.
func (r Reference) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Path        string         `json:"path"`
		Shape       Shape          `json:"shape"`
		Rule        string         `json:"rule"`
		Targets     []string       `json:"targets,omitempty"`
		TargetsFrom string         `json:"targetsFrom,omitempty"`
		Self        bool           `json:"self,omitempty"`
		Class       classify.Class `json:"class"`
		Evidence    string         `json:"evidence"`
		Note        string         `json:"note,omitempty"`
	}{r.Path.String(), r.Shape, r.Rule, r.Targets, r.TargetsFrom, r.Self, r.Class, r.Evidence, r.Note})
}

// Kind is the references of one kind's spec.
type Kind struct {
	Kind    string `json:"kind"`
	Group   string `json:"group"`
	Version string `json:"version"`
	ARMType string `json:"armType"`
	// References are sorted by path.
	References []Reference `json:"references"`
	// Removed are the references a references entry removed; Note is its
	// because.
	Removed []Reference `json:"removed,omitempty"`
}

// Report is the references of every kind of a set of packages.
type Report struct {
	Kinds []Kind `json:"kinds"`
	// Errors are problems of the swagger met on the way, and references
	// entries that do not apply (*config.Error).
	Errors []error `json:"-"`
}

// MarshalJSON writes the errors as strings.
func (r *Report) MarshalJSON() ([]byte, error) {
	var errs []string
	for _, err := range r.Errors {
		errs = append(errs, err.Error())
	}
	return json.Marshal(struct {
		Kinds  []Kind   `json:"kinds"`
		Errors []string `json:"errors,omitempty"`
	}{r.Kinds, errs})
}

// Count returns the number of references and their number per rule.
func (r *Report) Count() (int, map[string]int) {
	total, by := 0, map[string]int{}
	for _, k := range r.Kinds {
		total += len(k.References)
		for _, ref := range k.References {
			by[ref.Rule]++
		}
	}
	return total, by
}

// Find detects the references of every kind of the packages, which the
// loader l read. set holds the references entries of the config (nil for
// none); its errors are in Report.Errors.
func Find(l *load.Loader, pkgs []*model.Package, set *override.Refs) *Report {
	f := NewFinder(l)
	rep := &Report{Kinds: []Kind{}}
	for _, p := range pkgs {
		for _, k := range p.Kinds {
			rep.Add(f, k, set)
		}
	}
	rep.Errors = append(rep.Errors, set.Errors()...)
	return rep
}

// Add detects the references of one kind, with the entries of set that
// select it, and adds them to the report. The errors of set are not added:
// the caller adds set.Errors() once every kind has been seen (Find does).
func (r *Report) Add(f *Finder, k *model.Kind, set *override.Refs) {
	kr, err := f.Kind(k, set.For(TargetOf(k)))
	if err != nil {
		r.Errors = append(r.Errors, fmt.Errorf("%s: references: %w", k.Resource.ARMType, err))
	}
	r.Kinds = append(r.Kinds, kr)
}

// TargetOf is a kind as the selectors of specs/armature.yaml see it.
func TargetOf(k *model.Kind) override.Target {
	p := k.Package
	return override.Target{Group: p.Group, Short: p.Short, Version: p.Version, APIVersion: k.Resource.APIVersion, Kind: k.Name, ARMType: k.Resource.ARMType}
}

// sortRefs orders references by path.
func sortRefs(rs []Reference) {
	sort.Slice(rs, func(i, j int) bool { return rs[i].Path.Compare(rs[j].Path) < 0 })
}
