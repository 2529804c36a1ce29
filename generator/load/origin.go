package load

import (
	"strings"
)

// Origin is where a schema was read: a file relative to the spec root and a
// JSON pointer inside it.
type Origin struct {
	File    string
	Pointer string
}

// String is the origin as `file.json#/definitions/X/properties/y`.
func (o Origin) String() string { return o.File + "#" + o.Pointer }

// Child returns the origin of a value below this one; tokens are escaped as
// JSON pointer tokens (`~0`, `~1`).
func (o Origin) Child(tokens ...string) Origin {
	var b strings.Builder
	b.WriteString(o.Pointer)
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(escape(t))
	}
	return Origin{File: o.File, Pointer: b.String()}
}

func escape(t string) string {
	return strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1")
}

func unescape(t string) string {
	return strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
}

// Error is a problem in a swagger file, located by file and JSON pointer.
type Error struct {
	Origin
	Msg string
	Err error
}

func (e *Error) Error() string {
	s := e.Origin.String() + ": " + e.Msg
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }
