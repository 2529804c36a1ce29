package descriptor

import (
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Class is what a property is to a user of the CRD.
type Class string

// The classes, as decided by the generator (see generator/classify).
const (
	// Writable properties are sent on create and update.
	Writable Class = "writable"
	// CreateOnly properties are sent on create and may never change.
	CreateOnly Class = "createOnly"
	// ReadOnly properties are computed by Azure and live in status only.
	ReadOnly Class = "readOnly"
	// WriteOnly properties are sent but never returned by GET.
	WriteOnly Class = "writeOnly"
	// Secret properties hold a Secret key reference in the spec.
	Secret Class = "secret"
)

// Scope is where in ARM a resource type lives.
type Scope string

// Scopes.
const (
	ScopeResourceGroup   Scope = "resourceGroup"
	ScopeSubscription    Scope = "subscription"
	ScopeManagementGroup Scope = "managementGroup"
	ScopeTenant          Scope = "tenant"
	ScopeExtension       Scope = "extension"
)

// Property is the class of one property path, a path from the ARM body
// root whose wildcards are Items and Values.
type Property struct {
	Path  Path
	Class Class
	// Rule is the generator rule that decided the class.
	Rule string
	// Type is the JSON type (string, integer, number, boolean, object,
	// array), or "" when the swagger does not say.
	Type string
	// Required is set on a property a spec may set that the PUT body
	// requires wherever its holder is present. The CRD cannot require it
	// (a reference or spec.valuesFrom may supply it): admission checks it
	// on the spec, the reconciler on the resolved body (RequiredMissing).
	Required bool
}

// LRO describes a long-running verb.
type LRO struct {
	Verb string
	// FinalStateVia is x-ms-long-running-operation-options.final-state-via
	// ("" when the swagger does not say).
	FinalStateVia string
}

// Action is an operation on a path below the resource: a POST action such
// as regenerateKey, or a GET that adds to status, such as instanceView.
type Action struct {
	// Name is the path below the resource, e.g. regenerateKey.
	Name string
	// Path is the full path template. Its parameter names may differ from
	// PathTemplate's ({name} vs {cacheName}): fill it by position, or
	// append Name to the resource id.
	Path        string
	LongRunning bool
	// FinalStateVia is x-ms-long-running-operation-options.final-state-via
	// ("" when the swagger does not say).
	FinalStateVia string
	// Request is the request body, or nil when the action takes none.
	Request *Body
	// Response is the body of the 200 (else 201) response, or nil when
	// the action returns none.
	Response *Body
	// Query are the query parameters other than api-version, in the
	// swagger's order. Path is their JSON name; Type, Required and Enum
	// are as for a body field.
	Query []Field
	// StatusField is, for a status GET, the status field its result is
	// joined under (rollingUpgrades/latest → rollingUpgradesLatest); empty
	// for a POST action, and for a status GET whose path has a parameter
	// (which is not read).
	StatusField string
}

// Descriptor describes one generated kind.
type Descriptor struct {
	Group, Version, Kind string
	// ARMType is e.g. Microsoft.Storage/storageAccounts.
	ARMType string
	// APIVersion is the ARM api-version this version of the kind speaks.
	APIVersion string
	// Versions are the Kubernetes versions the kind is served in, newest
	// first, when there are several (one per api-version in
	// specs/armature.yaml); empty for a kind served in one version.
	Versions []string
	// StorageVersion is the version etcd stores, when Versions is set.
	StorageVersion string
	// PathTemplate is the ARM path with its parameters, as in the swagger.
	PathTemplate string
	// NameParameter is the path parameter that holds the resource name.
	NameParameter string
	// NamePattern is the swagger's pattern for the name parameter (an
	// ECMA-262 regular expression, which CheckName runs only when Go's
	// regexp compiles it); "" when the swagger declares none.
	NamePattern string
	// NameMinLength and NameMaxLength are the swagger's minLength and
	// maxLength of the name parameter, in characters; 0 when the swagger
	// declares none.
	NameMinLength, NameMaxLength int
	// Singleton is the only name the resource can have, or "".
	Singleton string
	Scope     Scope
	// OwnerARMType is the ARM type of the owner ("" when any scope may own
	// the resource).
	OwnerARMType string
	// OwnerGroup and OwnerKind name the owner's kind when it is generated.
	OwnerGroup, OwnerKind string
	// Verbs are the HTTP methods on the resource path (GET, PUT, PATCH, DELETE).
	Verbs []string
	// PatchTagsOnly is true when PATCH can only change tags: other changes
	// go through PUT.
	PatchTagsOnly bool
	// PutWithoutBody is true when the PUT declares no request body: ARM
	// creates the resource from its path alone (an API Management tag link,
	// a SQL server DNS alias). The spec then holds only the operator fields,
	// and a client sends the PUT with no body (no content at all, not {}).
	// False (the default) for every PUT with a body parameter.
	PutWithoutBody bool
	LongRunning    []LRO
	// Properties is the property-class table, sorted by path.
	Properties []Property
	// SecretPaths are the spec paths that hold Secret references.
	SecretPaths []Path
	// ListPaths are the path templates of the type's list operations (a
	// pageable GET of the collection), sorted: the collection below the
	// resource's parent scope, and often one at subscription scope. Empty
	// when the API cannot list the type.
	ListPaths []string
	// Actions are POST operations on the resource.
	Actions []Action
	// StatusGETs are extra GETs whose results are joined into status.
	StatusGETs []Action
	// ServerDefaults are values ARM fills in when a request leaves a
	// property out, learned from the x-ms-examples responses. The ARM
	// emulator applies them; they are not CRD defaults.
	ServerDefaults []ServerDefault
	// NameDerived are read-only values ARM derives from the resource's
	// name (a storage account's primaryEndpoints.blob, a SQL server's
	// fullyQualifiedDomainName), learned from the x-ms-examples responses:
	// JSON is a string with {name} where the name goes. The ARM emulator
	// fills them in.
	NameDerived []ServerDefault
	// EmbeddedChildren are the collections of the body that ARM also
	// serves as child resources (a virtual network's properties.subnets):
	// a PUT of the parent replaces the children with what the collection
	// holds, so the reconciler sends one only with the live children kept,
	// and drift does not count live children the spec does not name.
	// Sorted by path; empty when the type has none.
	EmbeddedChildren []EmbeddedChild
	// References are the spec fields that hold an ARM id another object
	// of the operator may supply (docs/references.md), sorted by path;
	// empty when the type has none.
	References []Reference
}

// EmbeddedChild is a collection of a parent's body whose items are child
// resources of the parent served at their own path too.
type EmbeddedChild struct {
	// Path is the array property, from the body root (properties.subnets).
	Path Path
	// ARMType is the child's type (Microsoft.Network/virtualNetworks/subnets).
	ARMType string
}

// Embedded returns the embedded child collection at a table path (no
// index segments), and false when the path holds none.
func (d *Descriptor) Embedded(tablePath Path) (EmbeddedChild, bool) {
	for _, e := range d.EmbeddedChildren {
		if e.Path.Equal(tablePath) {
			return e, true
		}
	}
	return EmbeddedChild{}, false
}

// ServerDefault is a value ARM fills in for a property left out.
// Reference is a spec field that holds an ARM resource id, which the spec
// may give as a reference to another object of the operator instead:
// beside the field X, a field X+"Ref" ({group, kind, name}: an object in
// the same namespace) for a string; for a map keyed by ARM ids
// (identity.userAssignedIdentities), a list X+"Refs" of such references,
// each adding the key of the target's id with an empty object. The
// reconciler sends the target's status.id; exactly one of X and its ref
// is set (the CRD's CEL rule, and admission).
type Reference struct {
	// Path is the field's path from the body root, with Items for every
	// item of an array (properties.ipConfigurations[*].properties.subnet.id).
	Path Path
	// Map is set for a map keyed by ARM ids: the refs are a list.
	Map bool
	// Targets are the kinds a reference may name ("group/Kind"), from the
	// swagger's x-ms-arm-id-details allowedResources; empty when any kind
	// the operator serves may be named.
	Targets []string
	// Required is set when the swagger requires the field: one of the
	// field and its reference is (the CRD cannot say "set or sourced").
	Required bool
}

// RefField is the name of the spec field beside r's field that holds the
// reference: X+"Ref", or X+"Refs" for a map.
func (r Reference) RefField() string {
	if r.Map {
		return r.Path.Last() + "Refs"
	}
	return r.Path.Last() + "Ref"
}

type ServerDefault struct {
	Path Path
	// JSON is the value as JSON.
	JSON string
}

// GroupVersionKind returns the kind's GVK.
func (d *Descriptor) GroupVersionKind() schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: d.Group, Version: d.Version, Kind: d.Kind}
}

// IsStorage reports whether this is the version of the kind that etcd
// stores (a kind with one version has only that one).
func (d *Descriptor) IsStorage() bool {
	return d.StorageVersion == "" || d.StorageVersion == d.Version
}

// HasVerb reports whether the resource path supports an HTTP method.
func (d *Descriptor) HasVerb(verb string) bool {
	for _, v := range d.Verbs {
		if strings.EqualFold(v, verb) {
			return true
		}
	}
	return false
}

// ClassOf returns the class of a property path, and false when the path is
// not in the table.
func (d *Descriptor) ClassOf(path Path) (Class, bool) {
	i, found := slices.BinarySearchFunc(d.Properties, path, func(p Property, q Path) int { return p.Path.Compare(q) })
	if found {
		return d.Properties[i].Class, true
	}
	return "", false
}

// PathsOf returns the property paths of a class, in order.
func (d *Descriptor) PathsOf(c Class) []Path {
	var out []Path
	for _, p := range d.Properties {
		if p.Class == c {
			out = append(out, p.Path)
		}
	}
	return out
}
