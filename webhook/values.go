package webhook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"unicode/utf8"
)

// Rendering of values in messages.
const (
	// unsetValue renders an absent field.
	unsetValue = "unset"
	// hiddenValue renders a value that may be secret.
	hiddenValue = "<hidden>"
	// maxRendered is the longest rendered value; longer ones are cut.
	maxRendered = 120
)

// decodeJSON decodes one JSON value with numbers as json.Number, so that a
// value re-encoded by the defaulter is byte-for-byte the number it was.
func decodeJSON(b []byte, into any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(into); err != nil {
		return fmt.Errorf("decode JSON: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("decode JSON: data after the value")
	}
	return nil
}

// render renders a value for a message: unset when absent, hidden when it
// may be secret, a Go-quoted string for strings (as field errors quote
// them), compact JSON otherwise, cut to maxRendered.
func render(v any, present, hide bool) string {
	switch {
	case !present:
		return unsetValue
	case hide:
		return hiddenValue
	}
	var s string
	if str, ok := v.(string); ok {
		s = fmt.Sprintf("%q", str)
	} else if b, err := json.Marshal(v); err == nil {
		s = string(b)
	} else {
		s = fmt.Sprintf("%v", v)
	}
	if len(s) > maxRendered {
		cut := maxRendered
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

// equal reports whether two decoded JSON values are the same. Numbers
// compare by their text, as the apiserver always sends them canonical.
func equal(a, b any) bool { return reflect.DeepEqual(a, b) }

// deepCopy copies a decoded JSON value.
func deepCopy(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[k] = deepCopy(e)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = deepCopy(e)
		}
		return out
	default:
		return v
	}
}

// lookup returns m[key] and whether it is there; m may be nil or not a map.
func lookup(m any, key string) (any, bool) {
	mm, ok := m.(map[string]any)
	if !ok {
		return nil, false
	}
	v, ok := mm[key]
	return v, ok
}

// str returns the string at m[key], "" when absent or not a string.
func str(m any, key string) string {
	v, _ := lookup(m, key)
	s, _ := v.(string)
	return s
}
