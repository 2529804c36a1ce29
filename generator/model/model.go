package model

import (
	"github.com/armature-dev/armature/generator/classify"
	"github.com/armature-dev/armature/generator/tree"
	"github.com/armature-dev/armature/runtime/descriptor"
)

// Config is the model stage's configuration.
type Config struct {
	// Domain is the suffix of every API group. Defaults to azure.armature.dev.
	Domain string
}

// DefaultDomain is the API group suffix when Config.Domain is empty.
const DefaultDomain = "azure.armature.dev"

// Model is every generated package.
type Model struct {
	Packages []*Package
	// Kinds indexes every kind by ARM type (lower case).
	Kinds map[string]*Kind
}

// Package is one API group version: one Go package and one set of CRDs.
type Package struct {
	// Group is the API group, e.g. storage.azure.armature.dev.
	Group string
	// Short is the first label of Group and the package's parent folder.
	Short string
	// Version is the Kubernetes version, e.g. v20230501.
	Version string
	// APIVersion is the ARM api-version, e.g. 2023-05-01.
	APIVersion string
	// Provider is the ARM namespace, e.g. Microsoft.Storage.
	Provider string
	Kinds    []*Kind
	// Structs are the nested object types, sorted by name.
	Structs []*Struct
	// Enums are the string enum types, sorted by name.
	Enums []*Enum
}

// Kind is one custom resource kind.
type Kind struct {
	Name     string
	Package  *Package
	Resource *tree.Resource
	Table    *classify.Table
	Spec     *Struct
	Status   *Struct
	// Owner is the kind of the owner when the owner type is generated.
	Owner *Kind
	// Storage marks the version etcd stores when the kind is served in
	// several versions (always true for a kind with one version).
	Storage bool
	// Versions are the Kubernetes versions the kind is served in, newest
	// first (just its own when it has one).
	Versions []string
	// StorageVersion is the version etcd stores.
	StorageVersion string
	// CreateOnly are the CEL transition rules on the spec, one per topmost
	// createOnly path that CEL can reach.
	CreateOnly []Validation
	// SecretPaths are the spec paths that hold Secret references.
	SecretPaths []descriptor.Path
	// ServerDefaults are values ARM fills in when a request leaves them
	// out (set by the generator from the examples).
	ServerDefaults []ServerDefault
	// NameDerived are read-only values ARM derives from the resource's
	// name, as templates ({name}), learned from the examples.
	NameDerived []ServerDefault
	// References are the spec paths that hold an ARM id another object
	// may supply (set by the generator from generator/refs), sorted.
	References []descriptor.Reference
	// Actions are the POST actions of the kind, in the order of
	// Resource.Actions, with their bodies flattened (generator/actions).
	Actions []descriptor.Action
	// Defaults are the values the defaulting webhook sets where the spec
	// leaves a property out, from the overrides of specs/armature.yaml,
	// sorted by path.
	Defaults []Default
}

// Default is a configured default of a spec property.
type Default struct {
	// Path is the property path.
	Path descriptor.Path
	// JSON is the value as compact JSON.
	JSON string
	// Because is the reason the override gives.
	Because string
}

// ServerDefault is a property value ARM fills in.
type ServerDefault struct {
	Path descriptor.Path
	JSON string
}

// Validation is a CEL rule with its message and field path.
type Validation struct {
	Rule      string
	Message   string
	FieldPath string
}

// Struct is a Go struct type.
type Struct struct {
	Name   string
	Doc    string
	Fields []*Field
	// Origin is the swagger schema the struct comes from.
	Origin string
	// Validations are type-level CEL rules.
	Validations []Validation

	// specific is true for a struct built for one kind and path because
	// an override changes it.
	specific bool
}

// Field is one struct field.
type Field struct {
	GoName   string
	JSONName string
	Doc      string
	Type     *TypeRef
	Required bool
	// Markers are kubebuilder markers without the leading `+`, e.g.
	// `kubebuilder:validation:MaxLength=24`.
	Markers []string
}

// RefKind is the kind of a field's type.
type RefKind int

// Type kinds.
const (
	String RefKind = iota
	Bool
	Int32
	Int64
	Float64
	StructRef
	EnumRef
	Slice
	Map
	// JSON is arbitrary JSON: a free-form object or a cut recursion.
	JSON
	// SecretRef is a reference to a key of a Kubernetes Secret.
	SecretRef
	// OwnerRef is the operator's owner reference.
	OwnerRef
	// OperatorSpecRef is the operator's spec.operatorSpec (api/core
	// OperatorSpec).
	OperatorSpecRef
	// ValueFromRef is an entry of spec.valuesFrom (api/core ValueFrom).
	ValueFromRef
	// ObjectRef is a reference to another object of the operator (api/core
	// ObjectReference), beside a field that holds an ARM id.
	ObjectRef
	// Conditions is []metav1.Condition.
	Conditions
)

// TypeRef is a field's type.
type TypeRef struct {
	Kind   RefKind
	Struct *Struct
	Enum   *Enum
	Elem   *TypeRef
}

// Enum is a named string type with constants.
type Enum struct {
	Name   string
	Doc    string
	Values []EnumValue
	// Closed enums carry a kubebuilder Enum marker; open ones (x-ms-enum
	// modelAsString: true) accept any string.
	Closed bool

	// specific is true for an enum an override opened.
	specific bool
}

// EnumValue is one constant of an enum.
type EnumValue struct {
	GoName string
	Value  string
	Doc    string
}
