package importer

import (
	"context"
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/armature-dev/armature/api/core"
	"github.com/armature-dev/armature/runtime/arm"
	"github.com/armature-dev/armature/runtime/descriptor"
)

// Reader is what an import needs from ARM: GET and LIST, nothing that
// writes. The clients arm.NewClient returns are Readers.
type Reader interface {
	Get(ctx context.Context, id, apiVersion string) (*arm.Result, error)
	arm.Lister
}

// Options configure Run. Fields without a default are required.
type Options struct {
	// ARM reads Azure.
	ARM Reader
	// Descriptors are the kinds the operator serves (generated/apis
	// Descriptors()); one version per ARM type is imported (see
	// PreferredVersions).
	Descriptors []*descriptor.Descriptor
	// SubscriptionID and ResourceGroup name the group to import.
	SubscriptionID, ResourceGroup string
	// Kinds are path.Match patterns over "<group>/<Kind>", as the
	// operator's --kinds. Empty means every kind except those of
	// DefaultSkipped.
	Kinds []string
	// PreferredVersions is the version written per API group
	// (group → version), as the operator's --preferred-versions. Defaults
	// to each kind's storage version.
	PreferredVersions map[string]string
	// Policy is written as the armature.dev/reconcile-policy annotation
	// of every custom resource. Defaults to none (manage).
	Policy core.Policy
	// Defaults are the defaulting webhook's configured defaults (spec path
	// → JSON value per GVK, generated/apis Defaults()): a default whose
	// path Azure leaves empty would be written by the first reconcile, so
	// the import warns about it. Defaults to none.
	Defaults map[schema.GroupVersionKind]map[string]any
	// Concurrency is how many ARM requests are in flight at most. Defaults
	// to 8.
	Concurrency int
	// Progress, when set, is told what the import does as it goes.
	Progress func(Event)
}

// DefaultSkipped are the ARM types (in lower case) not imported unless
// Options.Kinds names their kind, with why.
var DefaultSkipped = map[string]string{
	"microsoft.resources/deployments":                                      "deployments are the history of template runs, not resources (a change would run one again)",
	"microsoft.compute/virtualmachinescalesets/virtualmachines":            "scale-set instances belong to their scale set, which creates and deletes them",
	"microsoft.compute/virtualmachinescalesets/virtualmachines/extensions": "scale-set instance extensions come from the scale set's extension profile",
}

// InventoryAPIVersion is the api-version of the resource group inventory
// (…/resourceGroups/{g}/resources) read to report the types the operator
// does not serve.
const InventoryAPIVersion = "2021-04-01"

// Object is one imported resource.
type Object struct {
	// ID is the resource's ARM id, as its GET says it.
	ID string
	// Desc describes its kind.
	Desc *descriptor.Descriptor
	// Resource is the custom resource: apiVersion, kind, metadata (name,
	// the policy annotation) and spec; no namespace.
	Resource *unstructured.Unstructured
	// Secret, when the kind has secret properties, is the Secret its spec
	// references, with the keys to fill in; nil otherwise.
	Secret *SecretStub
	// Notes say what the import left out or the user must know, one line
	// each; they head the object's file as comments.
	Notes []string

	parent   *Object
	depth    int // 0 for the resource group
	selected bool
	body     map[string]any
	azName   string
}

// SecretStub is a Secret for the user to fill in: the import never has a
// secret value (ARM does not return them).
type SecretStub struct {
	// Name is the Secret's name.
	Name string
	// Keys are the keys the custom resource references.
	Keys []string
}

// Kind returns the object's kind.
func (o *Object) Kind() string { return o.Desc.Kind }

// Name returns the object's Kubernetes name.
func (o *Object) Name() string { return o.Resource.GetName() }

// Skip is a type of resource not imported, with why.
type Skip struct {
	// ARMType is the resource type.
	ARMType string
	// Kind is the operator's kind for it ("" when none serves it).
	Kind string
	// Count is how many resources of the type were seen (0 when unknown).
	Count int
	// Reason says why.
	Reason string
}

// Result is what an import found.
type Result struct {
	// GroupID is the ARM id of the resource group.
	GroupID string
	// Objects are the imported resources: the resource group first, then
	// by depth, kind and name.
	Objects []*Object
	// Skipped are the types not imported, by ARM type.
	Skipped []Skip
	// Warnings are things the user should know that stop nothing (a
	// default the first reconcile would write, an inventory not read).
	Warnings []string
	// Errors are reads that failed, each naming the resource id or
	// collection: the resources they would have found are missing.
	Errors []error
	// Calls is the number of ARM requests the import sent (a LIST page
	// counts one; the ARM pipeline's retries are not counted).
	Calls int
	// Pages is how many of Calls were LIST pages.
	Pages int
	// Duration is how long the import took.
	Duration time.Duration
}

// Err joins Errors, nil when there are none.
func (r *Result) Err() error { return errors.Join(r.Errors...) }

// Run imports the resource group: it reads the group, the LIST of every
// top-level type the operator serves in it, and below each resource found
// the children of every child type (a singleton child by GET), then GETs
// each resource and builds its custom resource. It writes nothing, to ARM
// or to disk (see Result.Write).
func Run(ctx context.Context, o Options) (*Result, error) {
	if o.ARM == nil || o.SubscriptionID == "" || o.ResourceGroup == "" {
		return nil, errors.New("import: the ARM reader, the subscription and the resource group are required")
	}
	if o.Concurrency <= 0 {
		o.Concurrency = 8
	}
	if o.Policy != "" {
		if _, err := core.ParsePolicy(string(o.Policy)); err != nil {
			return nil, err
		}
	}
	kinds, err := chooseKinds(o)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	w := newWalker(ctx, o, kinds)
	res, err := w.run()
	if err != nil {
		return nil, err
	}
	build(res, o)
	res.Duration = time.Since(start)
	return res, nil
}

// kindSet is the kinds of an import: one descriptor per ARM type.
type kindSet struct {
	byType map[string]*descriptor.Descriptor // lower-case ARM type
	// selected are the lower-case ARM types to write.
	selected map[string]bool
	// walked are the types read: the selected ones and their ancestors.
	walked map[string]bool
	// children maps a lower-case ARM type to its walked child types.
	children map[string][]*descriptor.Descriptor
	group    *descriptor.Descriptor
	// skipped are the types DefaultSkipped leaves out; outside are the
	// selected types that do not live in a resource group.
	skipped, outside []Skip
}

// chooseKinds picks the version of each ARM type and the types to read.
func chooseKinds(o Options) (*kindSet, error) {
	ks := &kindSet{byType: map[string]*descriptor.Descriptor{}, selected: map[string]bool{}, walked: map[string]bool{}, children: map[string][]*descriptor.Descriptor{}}
	for _, d := range o.Descriptors {
		t := strings.ToLower(d.ARMType)
		cur := ks.byType[t]
		want := o.PreferredVersions[d.Group]
		switch {
		case cur == nil, want != "" && d.Version == want, want == "" && d.IsStorage() && !cur.IsStorage():
			ks.byType[t] = d
		}
	}
	ks.group = ks.byType[strings.ToLower(descriptor.ResourceGroupType)]
	if ks.group == nil {
		return nil, errors.New("import: the operator serves no ResourceGroup kind")
	}
	types := make([]string, 0, len(ks.byType))
	for t := range ks.byType {
		types = append(types, t)
	}
	sort.Strings(types)
	for _, t := range types {
		d := ks.byType[t]
		ok, err := matches(o.Kinds, d)
		if err != nil {
			return nil, err
		}
		why, skipped := DefaultSkipped[t]
		switch {
		case len(o.Kinds) == 0 && skipped:
			ks.skipped = append(ks.skipped, Skip{ARMType: d.ARMType, Kind: d.Kind, Reason: "not by default: " + why + " (--kinds " + d.Group + "/" + d.Kind + " imports them)"})
		case ok && d != ks.group && d.Scope != descriptor.ScopeResourceGroup:
			ks.outside = append(ks.outside, Skip{ARMType: d.ARMType, Kind: d.Kind, Reason: fmt.Sprintf("not in a resource group (scope %s): not read", d.Scope)})
		case ok:
			ks.selected[t] = true
		}
	}
	if len(ks.selected) == 0 {
		return nil, fmt.Errorf("import: --kinds %s selects no kind", strings.Join(o.Kinds, ","))
	}
	// Walk the selected types and their ancestors.
	for t := range ks.selected {
		for d := ks.byType[t]; d != nil; d = ks.byType[strings.ToLower(d.OwnerARMType)] {
			if ks.walked[strings.ToLower(d.ARMType)] {
				break
			}
			ks.walked[strings.ToLower(d.ARMType)] = true
		}
	}
	for _, t := range types {
		d := ks.byType[t]
		if ks.walked[t] && d != ks.group && d.Scope == descriptor.ScopeResourceGroup {
			owner := strings.ToLower(d.OwnerARMType)
			ks.children[owner] = append(ks.children[owner], d)
		}
	}
	return ks, nil
}

func matches(patterns []string, d *descriptor.Descriptor) (bool, error) {
	if len(patterns) == 0 {
		return true, nil
	}
	for _, p := range patterns {
		ok, err := path.Match(p, d.Group+"/"+d.Kind)
		if err != nil {
			return false, fmt.Errorf("import: --kinds %q: %w", p, err)
		}
		if ok {
			return true, nil
		}
	}
	return false, nil
}
