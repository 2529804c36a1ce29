package apidiff

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Op is what changed.
type Op string

// The changes, in the order a kind's changes with the same path are listed.
const (
	// ResourceAdded is a resource type only the new side has.
	ResourceAdded Op = "resource-added"
	// ResourceRemoved is a resource type only the old side has. Breaking.
	ResourceRemoved Op = "resource-removed"
	// KindRenamed is a kind whose name or API group changed. Breaking.
	KindRenamed Op = "kind-renamed"
	// OwnerChanged is a kind whose owner type changed. Breaking.
	OwnerChanged Op = "owner-changed"
	// ScopeChanged is a kind whose scope changed. Breaking.
	ScopeChanged Op = "scope-changed"
	// Added is a property only the new side has; breaking when required.
	Added Op = "added"
	// Removed is a property only the old side has. Breaking.
	Removed Op = "removed"
	// ClassChanged is a property whose class changed; see the package doc
	// for which transitions are breaking.
	ClassChanged Op = "class"
	// TypeChanged is a property whose type changed. Breaking.
	TypeChanged Op = "type"
	// Required is a property the PUT body now requires. Breaking.
	Required Op = "required"
	// Optional is a property the PUT body no longer requires.
	Optional Op = "optional"
	// EnumRemoved lists enum values the new side lacks. Breaking.
	EnumRemoved Op = "enum-removed"
	// EnumAdded lists enum values only the new side has.
	EnumAdded Op = "enum-added"
	// EnumClosed is an enum that now accepts only its values. Breaking.
	EnumClosed Op = "enum-closed"
	// EnumOpened is an enum that now accepts any string.
	EnumOpened Op = "enum-opened"
)

// opOrder sorts the changes of one path.
var opOrder = map[Op]int{
	ResourceAdded: 0, ResourceRemoved: 1, KindRenamed: 2, OwnerChanged: 3, ScopeChanged: 4,
	Added: 5, Removed: 6, ClassChanged: 7, TypeChanged: 8, Required: 9, Optional: 10,
	EnumRemoved: 11, EnumAdded: 12, EnumClosed: 13, EnumOpened: 14,
}

// Report is the API change report between two analyses.
type Report struct {
	// Old and New name the two sides: their api-versions, comma-separated.
	Old string `json:"old"`
	New string `json:"new"`
	// Kinds are the kinds with at least one change, sorted by ARM type.
	Kinds []KindDiff `json:"kinds"`
	// Notes are remarks about the input, such as an ARM type present twice
	// on one side (the first is compared).
	Notes   []string `json:"notes,omitempty"`
	Summary Summary  `json:"summary"`
}

// KindDiff is the changes of one ARM resource type.
type KindDiff struct {
	ARMType string `json:"armType"`
	// Kind is the kind's name on the new side (the old side when removed).
	Kind string `json:"kind"`
	// Group is the API group, e.g. storage.azure.armature.dev.
	Group string `json:"group"`
	// OldVersion and NewVersion are the Kubernetes versions (v20230101);
	// one is empty for an added or removed type.
	OldVersion string `json:"oldVersion,omitempty"`
	NewVersion string `json:"newVersion,omitempty"`
	// OldAPIVersion and NewAPIVersion are the ARM api-versions.
	OldAPIVersion string `json:"oldApiVersion,omitempty"`
	NewAPIVersion string `json:"newApiVersion,omitempty"`
	// Breaking counts the breaking changes.
	Breaking int      `json:"breaking"`
	Changes  []Change `json:"changes"`
}

// Change is one line of the report.
type Change struct {
	// Op is what changed.
	Op Op `json:"change"`
	// Path is the property path ("" for a change of the resource type).
	Path string `json:"path,omitempty"`
	// Old and New are the class, type, owner, scope or kind name before and
	// after. For Added (New) and Removed (Old) they are the property's class
	// and type ("writable boolean", ", required" when the PUT body requires
	// it); for ResourceAdded (New) and ResourceRemoved (Old), the
	// api-version.
	Old string `json:"old,omitempty"`
	New string `json:"new,omitempty"`
	// Rule is the classification rule that decided the new class (the old
	// class for a removed property).
	Rule string `json:"rule,omitempty"`
	// OldRule is the rule that decided the old class of a class change.
	OldRule string `json:"oldRule,omitempty"`
	// Values are the enum values added or removed, or those of a closed
	// enum, sorted.
	Values []string `json:"values,omitempty"`
	// Below counts the property paths folded into this change.
	Below int `json:"below,omitempty"`
	// Breaking marks a change that can break a user of the old version.
	Breaking bool `json:"breaking"`
	// Why says what breaks.
	Why string `json:"why,omitempty"`
}

// Summary counts the report.
type Summary struct {
	// Compared is the number of ARM types present on both sides.
	Compared int `json:"compared"`
	// Changed is the number of kinds listed, added and removed included.
	Changed int `json:"changed"`
	Added   int `json:"added"`
	Removed int `json:"removed"`
	// Breaking is the number of breaking changes.
	Breaking int `json:"breaking"`
}

// HasBreaking reports whether any change is breaking.
func (r *Report) HasBreaking() bool { return r.Summary.Breaking > 0 }

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// breakingMark starts the line of a breaking change.
const breakingMark = "BREAKING"

// Write writes the report for people: a header, one block per changed kind,
// every breaking line starting with BREAKING, and a summary line.
func (r *Report) Write(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "API changes %s → %s\n", orNone(r.Old), orNone(r.New))
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	for _, k := range r.Kinds {
		b.WriteString("\n")
		b.WriteString(k.header())
		b.WriteString("\n")
		for _, c := range k.Changes {
			mark := ""
			if c.Breaking {
				mark = breakingMark
			}
			fmt.Fprintf(&b, "  %-8s  %-13s %s\n", mark, label(c.Op), c.text())
		}
	}
	s := r.Summary
	fmt.Fprintf(&b, "\nSummary: %d of %s changed (%d added, %d removed); %s\n",
		s.Changed, plural(s.Compared+s.Added+s.Removed, "kind"), s.Added, s.Removed, plural(s.Breaking, "breaking change"))
	_, err := io.WriteString(w, b.String())
	return err
}

func orNone(s string) string {
	if s == "" {
		return "(nothing)"
	}
	return s
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// header is the first line of a kind's block.
func (k KindDiff) header() string {
	switch {
	case k.OldVersion == "":
		return fmt.Sprintf("%s (%s %s/%s)", k.ARMType, k.Kind, k.Group, k.NewVersion)
	case k.NewVersion == "":
		return fmt.Sprintf("%s (%s %s/%s)", k.ARMType, k.Kind, k.Group, k.OldVersion)
	}
	return fmt.Sprintf("%s (%s %s, %s → %s)", k.ARMType, k.Kind, k.Group, k.OldVersion, k.NewVersion)
}

// label is the short name of an op in the text report.
func label(op Op) string {
	switch op {
	case ResourceAdded:
		return "kind added"
	case ResourceRemoved:
		return "kind removed"
	case KindRenamed:
		return "kind renamed"
	case OwnerChanged:
		return "owner"
	case ScopeChanged:
		return "scope"
	case ClassChanged:
		return "class"
	case TypeChanged:
		return "type"
	case EnumRemoved:
		return "enum removed"
	case EnumAdded:
		return "enum added"
	case EnumClosed:
		return "enum closed"
	case EnumOpened:
		return "enum opened"
	}
	return string(op)
}

// text is the rest of a change's line.
func (c Change) text() string {
	var s string
	switch c.Op {
	case ResourceAdded:
		s = "new in " + c.New
	case ResourceRemoved:
		s = "only in " + c.Old
	case KindRenamed, OwnerChanged, ScopeChanged:
		s = fmt.Sprintf("%s → %s", orNone(c.Old), orNone(c.New))
	case Added:
		s = fmt.Sprintf("%s: %s", c.Path, c.New)
	case Removed:
		s = fmt.Sprintf("%s: was %s", c.Path, c.Old)
	case ClassChanged:
		s = fmt.Sprintf("%s: %s → %s (%s)", c.Path, c.Old, c.New, c.Rule)
	case TypeChanged:
		s = fmt.Sprintf("%s: %s → %s", c.Path, c.Old, c.New)
	case Required:
		s = c.Path + ": now required in the PUT body"
	case Optional:
		s = c.Path + ": no longer required"
	case EnumRemoved, EnumAdded:
		s = fmt.Sprintf("%s: %s", c.Path, strings.Join(c.Values, ", "))
	case EnumClosed:
		s = fmt.Sprintf("%s: only %s accepted", c.Path, strings.Join(c.Values, ", "))
	case EnumOpened:
		s = c.Path + ": any string accepted"
	default:
		s = c.Path
	}
	if c.Below > 0 {
		s += fmt.Sprintf(" (and %d below)", c.Below)
	}
	if c.Breaking && c.Why != "" {
		s += " — " + c.Why
	}
	return s
}
