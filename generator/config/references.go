package config

import (
	"errors"
	"fmt"
	"strings"

	"github.com/armature-dev/armature/runtime/descriptor"
)

// Reference corrects the detection of ARM-id fields (generator/refs) at the
// property paths it selects: add says the path holds an ARM resource id the
// rules miss, remove says a detected path holds none. The selectors are those
// of Override; docs/overrides.md ("references") and docs/references.md say
// more.
type Reference struct {
	// Group limits the entry to an API group: the full group or its first
	// label. A pattern. Defaults to every group.
	Group string `json:"group,omitempty"`
	// Version limits the entry to a version: the Kubernetes version or the
	// api-version. A pattern. Defaults to every version.
	Version string `json:"version,omitempty"`
	// Kind is the generated kind, a pattern. Case-insensitive. Kind or
	// ARMType is required.
	Kind string `json:"kind,omitempty"`
	// ARMType is the ARM type, a pattern as in Select. Case-insensitive.
	ARMType string `json:"armType,omitempty"`
	// Path is the path of the value that holds the id, as `armature inspect
	// --references` prints it: `properties.subnet.id` for a SubResource,
	// `properties.subnetIds[*]` for the items of a list of ids. A segment
	// may be a pattern, as in Override. Required.
	Path string `json:"path"`

	// Add says the string at Path is an ARM resource id. Add or Remove is
	// required.
	Add bool `json:"add,omitempty"`
	// Remove says the value at Path, which a rule detected, is no ARM
	// resource id.
	Remove bool `json:"remove,omitempty"`
	// Targets are the ARM types the id may name
	// (Microsoft.Network/virtualNetworks/subnets), with Add. Defaults to
	// what the rules found, else unknown.
	Targets []string `json:"targets,omitempty"`

	// Because says why. Required.
	Because string `json:"because"`

	// Index is the position in the file. Set by Load.
	Index int `json:"-"`
}

// Entry names the entry in messages: references[2] (RoleAssignment properties.roleDefinitionId).
func (r *Reference) Entry() string {
	sel := r.Kind
	if sel == "" {
		sel = r.ARMType
	}
	return fmt.Sprintf("references[%d] (%s %s)", r.Index, sel, r.Path)
}

// Action is "add" or "remove".
func (r *Reference) Action() string {
	if r.Remove {
		return "remove"
	}
	return "add"
}

func (r *Reference) check() error {
	if strings.TrimSpace(r.Because) == "" {
		return errors.New("because is required: say why the path holds an ARM id, or why it does not")
	}
	if r.Kind == "" && r.ARMType == "" {
		return errors.New("kind or armType is required (a pattern such as \"*\" selects every kind)")
	}
	if r.Path == "" {
		return errors.New("path is required")
	}
	for _, p := range []string{r.Group, r.Version, r.Kind, r.ARMType} {
		if err := checkPattern(p); err != nil {
			return err
		}
	}
	if err := checkPattern(strings.Join(PathSegments(r.Path), "/")); err != nil {
		return err
	}
	switch {
	case r.Add == r.Remove:
		return errors.New("set exactly one of add: true (the path holds an ARM id) and remove: true (it holds none)")
	case r.Remove && len(r.Targets) > 0:
		return errors.New("targets go with add: a removed reference has none")
	}
	for _, t := range r.Targets {
		if !armTypeShape(t) {
			return fmt.Errorf("target %q: want an ARM type such as Microsoft.Network/virtualNetworks/subnets", t)
		}
	}
	return nil
}

// armTypeShape reports a namespace and at least one type segment, none
// empty.
func armTypeShape(t string) bool {
	segs := strings.Split(t, "/")
	if len(segs) < 2 || !strings.Contains(segs[0], ".") {
		return false
	}
	for _, s := range segs {
		if s == "" || strings.ContainsAny(s, " *{}") {
			return false
		}
	}
	return true
}

// MatchKind reports whether the entry's selectors choose a kind.
func (r *Reference) MatchKind(group, short, version, apiVersion, kind, armType string) bool {
	return matchKind(selectors{r.Group, r.Version, r.Kind, r.ARMType}, group, short, version, apiVersion, kind, armType)
}

// MatchPath reports whether the entry's path pattern chooses a path.
func (r *Reference) MatchPath(p descriptor.Path) bool {
	return matchSegments(PathSegments(r.Path), p)
}

// selectors are the kind selectors Override and Reference share.
type selectors struct{ group, version, kind, armType string }

func matchKind(s selectors, group, short, version, apiVersion, kind, armType string) bool {
	if s.group != "" && !matchOne(s.group, group) && !matchOne(s.group, short) {
		return false
	}
	if s.version != "" && !matchOne(s.version, version) && !matchOne(s.version, apiVersion) {
		return false
	}
	if s.kind != "" && !matchOne(s.kind, kind) {
		return false
	}
	if s.armType != "" && !MatchARMType(s.armType, armType) {
		return false
	}
	return true
}
