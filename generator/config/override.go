package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"go/token"
	"path"
	"strings"

	"github.com/armature-dev/armature/runtime/descriptor"
)

// The classes an override may force, as generator/classify names them.
var classes = map[string]bool{"writable": true, "createOnly": true, "readOnly": true, "writeOnly": true, "secret": true}

// Types are the schemas `type:` may put in place of a property's schema.
var Types = map[string]string{
	"map[string]string": "object",
	"object":            "object",
	"string":            "string",
	"integer":           "integer",
	"number":            "number",
	"boolean":           "boolean",
	"[]string":          "array",
}

// Override corrects or decides one thing about the properties it selects.
// The selectors (Group, Version, Kind, ARMType) choose kinds, Path chooses
// properties of those kinds; the actions (Class, Enum, Type, Hide, Default,
// Rename) say what changes, and Because says why.
type Override struct {
	// Group limits the override to an API group: the full group
	// (keyvault.azure.armature.dev) or its first label (keyvault). A
	// pattern. Defaults to every group.
	Group string `json:"group,omitempty"`
	// Version limits the override to a version: the Kubernetes version
	// (v20230701) or the api-version (2023-07-01). A pattern. Defaults to
	// every version.
	Version string `json:"version,omitempty"`
	// Kind is the generated kind (Vault), a pattern (`*Extension`).
	// Case-insensitive. Kind or ARMType is required.
	Kind string `json:"kind,omitempty"`
	// ARMType is the ARM type (Microsoft.KeyVault/vaults), a pattern as in
	// Select. Case-insensitive.
	ARMType string `json:"armType,omitempty"`
	// Path is the property path as `armature inspect --properties` prints
	// it: dotted, `[*]` for array items, `.*` for map values. A segment may
	// be a pattern (`*` one property name, `**` any number of segments).
	// Required.
	Path string `json:"path"`

	// Class forces the property's class: writable, createOnly, readOnly,
	// writeOnly or secret.
	Class string `json:"class,omitempty"`
	// Enum "open" turns a closed enum into a string that accepts any value
	// (the known values stay as constants).
	Enum string `json:"enum,omitempty"`
	// Type replaces the property's schema: map[string]string, object
	// (free-form JSON), string, integer, number, boolean or []string.
	Type string `json:"type,omitempty"`
	// Hide keeps the property out of the CRD: users cannot set it and the
	// reconciler never sends it.
	Hide bool `json:"hide,omitempty"`
	// Default is a JSON value the defaulting webhook sets where the spec
	// leaves the property out; the CRD docs show it.
	Default json.RawMessage `json:"default,omitempty"`
	// Rename is the Go field name of the property.
	Rename string `json:"rename,omitempty"`

	// Because says why. Required.
	Because string `json:"because"`

	// Index is the position in the file. Set by Load.
	Index int `json:"-"`
}

// Entry names the override in messages: overrides[3] (Vault properties.vaultUri).
func (o *Override) Entry() string {
	sel := o.Kind
	if sel == "" {
		sel = o.ARMType
	}
	return fmt.Sprintf("overrides[%d] (%s %s)", o.Index, sel, o.Path)
}

// Actions lists the actions the override sets, in a fixed order.
func (o *Override) Actions() []string {
	var out []string
	if o.Class != "" {
		out = append(out, "class")
	}
	if o.Enum != "" {
		out = append(out, "enum")
	}
	if o.Type != "" {
		out = append(out, "type")
	}
	if o.Hide {
		out = append(out, "hide")
	}
	if len(o.Default) > 0 {
		out = append(out, "default")
	}
	if o.Rename != "" {
		out = append(out, "rename")
	}
	return out
}

func (o *Override) check() error {
	if strings.TrimSpace(o.Because) == "" {
		return errors.New("because is required: say why the swagger is wrong or why users need this")
	}
	if o.Kind == "" && o.ARMType == "" {
		return errors.New("kind or armType is required (a pattern such as \"*\" selects every kind)")
	}
	if o.Path == "" {
		return errors.New("path is required")
	}
	for _, p := range []string{o.Group, o.Version, o.Kind, o.ARMType} {
		if err := checkPattern(p); err != nil {
			return err
		}
	}
	if err := checkPattern(strings.Join(PathSegments(o.Path), "/")); err != nil {
		return err
	}
	acts := o.Actions()
	if len(acts) == 0 {
		return errors.New("nothing to do: set class, enum, type, hide, default or rename")
	}
	if o.Hide && len(acts) > 1 {
		return fmt.Errorf("hide cannot be combined with %s: a hidden property is not in the CRD", strings.Join(acts[:len(acts)-1], ", "))
	}
	if o.Class != "" && !classes[o.Class] {
		return fmt.Errorf("class %q: want writable, createOnly, readOnly, writeOnly or secret", o.Class)
	}
	if o.Enum != "" && o.Enum != "open" {
		return fmt.Errorf("enum %q: the only value is open", o.Enum)
	}
	if o.Type != "" && Types[o.Type] == "" {
		return fmt.Errorf("type %q: want map[string]string, object, string, integer, number, boolean or []string", o.Type)
	}
	if len(o.Default) > 0 {
		var v any
		if err := json.Unmarshal(o.Default, &v); err != nil {
			return fmt.Errorf("default: %w", err)
		}
		if v == nil {
			return errors.New("default: null is not a value")
		}
		if o.Class == "readOnly" || o.Class == "secret" {
			return fmt.Errorf("default with class %s: only properties in the spec take defaults, and never secret values", o.Class)
		}
	}
	if o.Rename != "" && (!token.IsIdentifier(o.Rename) || !token.IsExported(o.Rename)) {
		return fmt.Errorf("rename %q: want an exported Go identifier", o.Rename)
	}
	return nil
}

// DefaultJSON returns the default compacted, or "" when there is none.
func (o *Override) DefaultJSON() string {
	if len(o.Default) == 0 {
		return ""
	}
	var v any
	if err := json.Unmarshal(o.Default, &v); err != nil {
		return ""
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// MatchKind reports whether the override's selectors choose a kind.
func (o *Override) MatchKind(group, short, version, apiVersion, kind, armType string) bool {
	return matchKind(selectors{o.Group, o.Version, o.Kind, o.ARMType}, group, short, version, apiVersion, kind, armType)
}

// MatchPath reports whether the override's path pattern chooses a property
// path.
func (o *Override) MatchPath(p descriptor.Path) bool {
	return matchSegments(PathSegments(o.Path), p)
}

// Error is a problem with one entry of the config file.
type Error struct {
	// File is the config file, Entry the entry (overrides[3] (Vault properties.vaultUri)).
	File, Entry string
	Msg         string
}

// Error formats the problem as file: entry: message.
func (e *Error) Error() string { return fmt.Sprintf("%s: %s: %s", e.File, e.Entry, e.Msg) }

// MatchARMType matches an ARM type against a pattern whose segments are
// separated by `/`: `*` in a segment as in path.Match, `**` for any number
// of segments. Case-insensitive.
func MatchARMType(pattern, armType string) bool {
	return matchSegments(strings.Split(strings.ToLower(pattern), "/"), strings.Split(strings.ToLower(armType), "/"))
}

// PathSegments splits a path pattern into segment patterns:
// properties.rules[*].name → properties, rules, [*], name. A dot inside a
// property name is escaped with a backslash (properties.odata\.type), as in
// descriptor.Path's text form; other backslashes are kept for path.Match.
func PathSegments(p string) []string {
	var out []string
	var cur strings.Builder
	flush := func() {
		s := cur.String()
		cur.Reset()
		var items int
		for strings.HasSuffix(s, descriptor.Items) && s != descriptor.Items {
			s = strings.TrimSuffix(s, descriptor.Items)
			items++
		}
		out = append(out, s)
		for ; items > 0; items-- {
			out = append(out, descriptor.Items)
		}
	}
	for i := 0; i < len(p); i++ {
		switch {
		case p[i] == '\\' && i+1 < len(p) && p[i+1] == '.':
			cur.WriteByte('.')
			i++
		case p[i] == '.':
			flush()
		default:
			cur.WriteByte(p[i])
		}
	}
	flush()
	return out
}

// matchSegments matches segment patterns: `**` matches any number of
// segments, `[*]` only the array item segment, anything else one segment
// (not `[*]`) by path.Match, case-insensitively.
func matchSegments(pat, segs []string) bool {
	if len(pat) == 0 {
		return len(segs) == 0
	}
	if pat[0] == "**" {
		for i := 0; i <= len(segs); i++ {
			if matchSegments(pat[1:], segs[i:]) {
				return true
			}
		}
		return false
	}
	if len(segs) == 0 {
		return false
	}
	if pat[0] == "[*]" || segs[0] == "[*]" {
		return pat[0] == segs[0] && matchSegments(pat[1:], segs[1:])
	}
	return matchOne(pat[0], segs[0]) && matchSegments(pat[1:], segs[1:])
}

func matchOne(pattern, s string) bool {
	ok, err := path.Match(strings.ToLower(pattern), strings.ToLower(s))
	return err == nil && ok
}

// checkPattern reports a malformed pattern.
func checkPattern(p string) error {
	for _, seg := range strings.Split(p, "/") {
		if seg == "**" || seg == "[*]" || strings.HasSuffix(seg, "[*]") {
			continue
		}
		if _, err := path.Match(seg, ""); err != nil {
			return fmt.Errorf("pattern %q: %w", p, err)
		}
	}
	return nil
}
