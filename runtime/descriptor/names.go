package descriptor

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// forbiddenInSegment are the characters no ARM id segment may hold: the
// path separators, and the characters that end a path or start an escape
// in a URL (a name holding them would be a different request path).
const forbiddenInSegment = `/\?#%`

// CheckSegment refuses a string that can never be one segment of an ARM
// id: empty, "." or "..", or holding a slash, a backslash, '?', '#', '%' or
// a control character. Such a name, put into an id, would name another
// resource (../ climbs to the parent) or another request. It does not
// know the rules of any one resource type (see Descriptor.CheckName).
func CheckSegment(s string) error {
	switch s {
	case "":
		return errors.New("must not be empty")
	case ".", "..":
		return fmt.Errorf("must not be %q: in a URL path it names the current or the parent segment, not a resource", s)
	}
	if !utf8.ValidString(s) {
		return errors.New("must be valid UTF-8")
	}
	for _, r := range s {
		switch {
		case strings.ContainsRune(forbiddenInSegment, r):
			return fmt.Errorf("must not contain %q: it is no part of one segment of an ARM resource id", r)
		case unicode.IsControl(r):
			return fmt.Errorf("must not contain the control character %U", r)
		}
	}
	return nil
}

// CheckID refuses what cannot be an ARM resource id given by a user
// (spec.resourceID, spec.owner.armId): it must start with /subscriptions/
// or /providers/ (either in any letter case), have no empty segment (no
// "//", no "/" at the end), and every segment must pass CheckSegment. It
// does not say which type the id names (see TypeOf).
func CheckID(id string) error {
	lower := strings.ToLower(id)
	if !strings.HasPrefix(lower, "/subscriptions/") && !strings.HasPrefix(lower, "/providers/") {
		return errors.New("must start with /subscriptions/ or /providers/")
	}
	for i, s := range strings.Split(id[1:], "/") {
		if s == "" {
			return fmt.Errorf("segment %d is empty: an ARM id has no \"//\" and no \"/\" at the end", i+1)
		}
		if err := CheckSegment(s); err != nil {
			return fmt.Errorf("segment %d (%q) %v", i+1, s, err)
		}
	}
	return nil
}

// CheckName refuses a name the resource can never have in Azure: one that
// fails CheckSegment, or breaks the swagger's rules for the name parameter
// that the Descriptor carries (NamePattern, NameMinLength, NameMaxLength).
// A pattern that Go's regexp (RE2) cannot compile, such as one with a
// lookahead, is not checked: the lengths still are. Lengths count
// characters, as JSON Schema does.
func (d *Descriptor) CheckName(name string) error {
	if err := CheckSegment(name); err != nil {
		return err
	}
	n := utf8.RuneCountInString(name)
	if d.NameMinLength > 0 && n < d.NameMinLength {
		return fmt.Errorf("must be at least %d characters long (%s names are, per its API); it has %d", d.NameMinLength, d.ARMType, n)
	}
	if d.NameMaxLength > 0 && n > d.NameMaxLength {
		return fmt.Errorf("must be at most %d characters long (%s names are, per its API); it has %d", d.NameMaxLength, d.ARMType, n)
	}
	if re := namePattern(d.NamePattern); re != nil && !re.MatchString(name) {
		return fmt.Errorf("must match the pattern %s (%s names do, per its API)", d.NamePattern, d.ARMType)
	}
	return nil
}

// patterns caches the compiled name patterns: a nil value is a pattern
// RE2 cannot compile.
var patterns sync.Map // string → *regexp.Regexp

// namePattern returns the compiled pattern, or nil for none or one that
// does not compile.
func namePattern(p string) *regexp.Regexp {
	if p == "" {
		return nil
	}
	if v, ok := patterns.Load(p); ok {
		return v.(*regexp.Regexp)
	}
	re, err := regexp.Compile(p)
	if err != nil {
		re = nil
	}
	patterns.Store(p, re)
	return re
}
