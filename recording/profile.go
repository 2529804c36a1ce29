package recording

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"
)

// Where a Location header points.
const (
	// LocationOperation: Location names an operation to poll.
	LocationOperation = "operation"
	// LocationResource: Location names the resource itself (a synchronous
	// create, as user-assigned identities and Redis firewall rules answer).
	LocationResource = "resource"
)

// ProfileFile is one generated file: the profiles of one provider's types.
type ProfileFile struct {
	// Provider is the resource provider namespace, e.g. Microsoft.Storage.
	Provider string `json:"provider"`
	// Types are the profiles, sorted by ARM type and api-version.
	Types []Profile `json:"types"`
}

// Profile is the behaviour of one ARM type at one api-version. A nil field
// means nothing is known: the emulator then follows the swagger.
type Profile struct {
	ARMType    string `json:"armType"`
	APIVersion string `json:"apiVersion"`
	// Create answers a PUT of a resource that does not exist.
	Create *Answer `json:"create,omitempty"`
	// Update answers a PUT of a resource that exists.
	Update *Answer `json:"update,omitempty"`
	// Patch answers a PATCH.
	Patch *Answer `json:"patch,omitempty"`
	// Delete answers a DELETE of a resource that exists.
	Delete *Answer `json:"delete,omitempty"`
	// DeleteMissing answers a DELETE of a resource that does not exist
	// (its parent does).
	DeleteMissing *Answer `json:"deleteMissing,omitempty"`
	// NotFound is the error of a GET of a resource that does not exist.
	NotFound *Error `json:"notFound,omitempty"`
	// ParentNotFound is the error for a resource whose parent resource
	// does not exist (its group does): ARM's ParentResourceNotFound unless
	// a recording shows otherwise (Network's subnets: ResourceNotFound).
	ParentNotFound *Error `json:"parentNotFound,omitempty"`
	// GroupNotFound is the error for a nested resource whose resource
	// group is gone: ARM's gateway answers ResourceGroupNotFound for
	// everything below a missing group unless the type's own recordings
	// show otherwise, below a gone group or a deleted parent (recordings
	// of 2021–2022 show ParentResourceNotFound for Microsoft.Sql and
	// Microsoft.Storage children; docs/emulator.md).
	GroupNotFound *Error `json:"groupNotFound,omitempty"`
	// BeingDeleted is the error of a PUT while the resource is being
	// deleted.
	BeingDeleted *Error `json:"beingDeleted,omitempty"`
	// ReferenceNotFound is the error of a PUT whose body names, at a
	// reference path, a resource that does not exist (a web site whose
	// plan, a virtual machine whose network interface is not there yet).
	ReferenceNotFound *Error `json:"referenceNotFound,omitempty"`
	// CreatedWithParent names the resources of the type the service makes
	// with their parent (a Service Bus namespace's RootManageSharedAccessKey
	// rule): recordings use them without creating them.
	CreatedWithParent *Implicit `json:"createdWithParent,omitempty"`
	// Name is the rule names must follow.
	Name *NameRule `json:"name,omitempty"`
	// Locations are the regions a resource may be created in.
	Locations *LocationRule `json:"locations,omitempty"`
	// Defaults are values ARM's GET answers carry that the request left
	// out, sorted by path.
	Defaults []Default `json:"defaults,omitempty"`
	// Answered are members ARM's answers carry whatever the request said,
	// sorted by path: members the swagger does not define (App Service's
	// properties.webSpace, a peering's routeServiceVips), and writeOnly or
	// secret members ARM answers anyway, masked (SQL's
	// storageAccountAccessKey: "") or echoing the request.
	Answered []Member `json:"answered,omitempty"`
	// DeleteBlocked answers a DELETE of a resource that still has children
	// of some types (a Private DNS zone with virtual network links).
	DeleteBlocked *Blocked `json:"deleteBlocked,omitempty"`
	// Operation is what the type's finished operations answer at their
	// Azure-AsyncOperation URL besides status, name, id and times.
	Operation *Operation `json:"operation,omitempty"`
}

// Operation is the shape of a finished operation's status.
type Operation struct {
	// Output: the status names the resource under properties.output
	// (Compute's disk operations).
	Output bool `json:"output,omitempty"`
	// Members are other members, with their values (CDN's
	// "error": {"code": "None"}).
	Members []Member `json:"members,omitempty"`
	Source  string   `json:"source"`
}

// Member is a member ARM answers that the emulator would not otherwise
// render.
type Member struct {
	// Path is the member's path, e.g. properties.webSpace.
	Path string `json:"path"`
	// Value is the value, as JSON. Strings may hold {subscriptionId},
	// {resourceGroup}, {name} and {location}: the answering resource's.
	Value json.RawMessage `json:"value,omitempty"`
	// Echo answers the value the request that made the resource sent.
	Echo bool `json:"echo,omitempty"`
	// Source says where this was learned.
	Source string `json:"source"`
}

// Blocked is the refusal of a DELETE while children exist.
type Blocked struct {
	// Children are the ARM types whose presence blocks the DELETE.
	Children []string `json:"children"`
	Error    Error    `json:"error"`
	Source   string   `json:"source"`
}

// Answer is how ARM answers one verb.
type Answer struct {
	// Status is the HTTP status code.
	Status int `json:"status"`
	// AsyncOperation is true when the answer carries Azure-AsyncOperation:
	// the verb is long-running and the operation reports {"status": …}.
	AsyncOperation bool `json:"asyncOperation,omitempty"`
	// Location is what a Location header names: LocationOperation,
	// LocationResource, or "" for no Location header.
	Location string `json:"location,omitempty"`
	// EmptyBody is true when the answer has no body (a 202 that only
	// names its operation, a DELETE).
	EmptyBody bool `json:"emptyBody,omitempty"`
	// Source says where this was learned.
	Source string `json:"source"`
}

// LongRunning reports whether the answer starts an operation.
func (a *Answer) LongRunning() bool {
	return a != nil && (a.AsyncOperation || a.Location == LocationOperation)
}

// Error is an ARM error answer.
// Implicit names resources a service creates with their parent.
type Implicit struct {
	Names  []string `json:"names"`
	Source string   `json:"source"`
}

type Error struct {
	Status int    `json:"status"`
	Code   string `json:"code"`
	// Gateway is true when ARM's gateway answers (x-ms-failure-cause:
	// gateway) rather than the resource provider.
	Gateway bool   `json:"gateway,omitempty"`
	Source  string `json:"source"`
}

// NameRule is the rule of a resource's name, from the swagger's name
// parameter.
type NameRule struct {
	Pattern   string `json:"pattern,omitempty"`
	MinLength int    `json:"minLength,omitempty"`
	MaxLength int    `json:"maxLength,omitempty"`
	// Error is the answer to a name that breaks the rule, when a
	// recording shows it. The emulator enforces a rule only with an Error.
	Error  *Error `json:"error,omitempty"`
	Source string `json:"source"`
}

// LocationRule lists the regions a resource may be created in.
type LocationRule struct {
	// Allowed are region names as ARM lists them (lower case, no spaces).
	Allowed []string `json:"allowed"`
	// Error answers a location not in Allowed.
	Error  Error  `json:"error"`
	Source string `json:"source"`
}

// Default is a value ARM fills in when a request leaves a property out.
type Default struct {
	// Path is the property path, e.g. properties.encryption.
	Path string `json:"path"`
	// Value is the value, as JSON.
	Value json.RawMessage `json:"value"`
	// Source says where this was learned.
	Source string `json:"source"`
}

// ProfileSet is the profiles of many types.
type ProfileSet struct {
	byKey  map[string]*Profile
	byType map[string][]*Profile
}

// NewProfileSet indexes profiles.
func NewProfileSet(types []Profile) *ProfileSet {
	s := &ProfileSet{byKey: map[string]*Profile{}, byType: map[string][]*Profile{}}
	for i := range types {
		t := &types[i]
		s.byKey[key(t.ARMType, t.APIVersion)] = t
		lt := strings.ToLower(t.ARMType)
		s.byType[lt] = append(s.byType[lt], t)
	}
	for _, ts := range s.byType {
		slices.SortFunc(ts, func(a, b *Profile) int { return strings.Compare(a.APIVersion, b.APIVersion) })
	}
	return s
}

func key(armType, apiVersion string) string { return strings.ToLower(armType) + " " + apiVersion }

// For returns the profile of a type at an api-version: that version's, else
// the newest of the type, else nil. A nil *ProfileSet has none.
func (s *ProfileSet) For(armType, apiVersion string) *Profile {
	if s == nil {
		return nil
	}
	if t, ok := s.byKey[key(armType, apiVersion)]; ok {
		return t
	}
	if ts := s.byType[strings.ToLower(armType)]; len(ts) > 0 {
		return ts[len(ts)-1]
	}
	return nil
}

// Types returns every profile, sorted by ARM type and api-version.
func (s *ProfileSet) Types() []*Profile {
	if s == nil {
		return nil
	}
	out := make([]*Profile, 0, len(s.byKey))
	for _, t := range s.byKey {
		out = append(out, t)
	}
	slices.SortFunc(out, func(a, b *Profile) int {
		return strings.Compare(key(a.ARMType, a.APIVersion), key(b.ARMType, b.APIVersion))
	})
	return out
}

// ParseProfile reads one profile file.
func ParseProfile(data []byte) (*ProfileFile, error) {
	var f ProfileFile
	if err := yaml.UnmarshalStrict(data, &f); err != nil {
		return nil, err
	}
	return &f, nil
}

// Marshal writes one profile file, after header comment lines.
func (f *ProfileFile) Marshal(header string) ([]byte, error) {
	b, err := yaml.Marshal(f)
	if err != nil {
		return nil, err
	}
	return append([]byte(header), b...), nil
}

// LoadProfiles reads every *.yaml file of a folder.
func LoadProfiles(fsys fs.FS) (*ProfileSet, error) {
	names, err := fs.Glob(fsys, "*.yaml")
	if err != nil {
		return nil, err
	}
	var all []Profile
	for _, n := range names {
		b, err := fs.ReadFile(fsys, n)
		if err != nil {
			return nil, err
		}
		f, err := ParseProfile(b)
		if err != nil {
			return nil, fmt.Errorf("profile %s: %w", path.Base(n), err)
		}
		all = append(all, f.Types...)
	}
	return NewProfileSet(all), nil
}
