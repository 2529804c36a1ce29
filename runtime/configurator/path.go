package configurator

import (
	"fmt"
	"strconv"
	"strings"
)

// Lookup returns the value at path in obj and whether it is there. A path
// is JSONPath-ish: dot-separated field names with an optional leading "."
// or "$.", list indexes "[0]", and list selectors "[type=Ready]" (the first
// element whose field equals the value; the value may be quoted). Examples:
//
//	status.properties.primaryEndpoints.blob
//	.status.conditions[type=Ready].status
//	keys[0].value
//
// The error is for a malformed path only.
func Lookup(obj map[string]any, path string) (any, bool, error) {
	steps, err := parsePath(path)
	if err != nil {
		return nil, false, err
	}
	var cur any = obj
	for _, s := range steps {
		var ok bool
		if cur, ok = s.apply(cur); !ok {
			return nil, false, nil
		}
	}
	return cur, true, nil
}

// step is one element of a parsed path: a field, an index, or a selector.
type step struct {
	field    string
	index    int
	key, val string
	kind     byte // 'f', 'i' or 's'
}

func (s step) apply(cur any) (any, bool) {
	switch s.kind {
	case 'f':
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		v, ok := m[s.field]
		return v, ok
	case 'i':
		l, ok := cur.([]any)
		if !ok || s.index >= len(l) {
			return nil, false
		}
		return l[s.index], true
	default:
		l, _ := cur.([]any)
		for _, e := range l {
			if m, ok := e.(map[string]any); ok && fmt.Sprint(m[s.key]) == s.val {
				return m, true
			}
		}
		return nil, false
	}
}

func parsePath(path string) ([]step, error) {
	p := strings.TrimPrefix(strings.TrimPrefix(path, "$"), ".")
	if p == "" {
		return nil, fmt.Errorf("path %q: empty", path)
	}
	var steps []step
	for p != "" {
		switch {
		case p[0] == '[':
			end := strings.IndexByte(p, ']')
			if end < 0 {
				return nil, fmt.Errorf("path %q: unclosed [", path)
			}
			s, err := parseBracket(p[1:end])
			if err != nil {
				return nil, fmt.Errorf("path %q: %w", path, err)
			}
			steps = append(steps, s)
			p = strings.TrimPrefix(p[end+1:], ".")
		default:
			end := strings.IndexAny(p, ".[")
			if end < 0 {
				end = len(p)
			}
			if end == 0 {
				return nil, fmt.Errorf("path %q: empty field name", path)
			}
			steps = append(steps, step{kind: 'f', field: p[:end]})
			p = p[end:]
			if strings.HasPrefix(p, ".") {
				p = p[1:]
				if p == "" {
					return nil, fmt.Errorf("path %q: trailing .", path)
				}
			}
		}
	}
	return steps, nil
}

func parseBracket(b string) (step, error) {
	if k, v, ok := strings.Cut(b, "="); ok {
		k = strings.TrimSpace(k)
		v = strings.Trim(strings.TrimSpace(v), `'"`)
		if k == "" {
			return step{}, fmt.Errorf("selector [%s]: empty key", b)
		}
		return step{kind: 's', key: k, val: v}, nil
	}
	i, err := strconv.Atoi(strings.TrimSpace(b))
	if err != nil || i < 0 {
		return step{}, fmt.Errorf("[%s]: want an index or key=value", b)
	}
	return step{kind: 'i', index: i}, nil
}
