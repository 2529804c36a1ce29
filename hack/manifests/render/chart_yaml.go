package render

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"sigs.k8s.io/yaml"
)

// tmpl turns objects into Helm template text: the object is marshalled
// as YAML, as kustomize would print it, except for the values set to a
// marker (tmpl.mark), whose lines are replaced by what the marker's fill
// returns — template actions, gated list items, values from .Values.
type tmpl struct {
	fills []fill
}

// slot is where a marker stands in the YAML.
type slot struct {
	// Lead is the line's start before the key: its indentation, and "- "
	// when the line starts a list item.
	Lead string
	// Indent is the column of the key, or of the "- " of a marker that is
	// a list item itself: where a list under the key puts its items.
	Indent string
	// Item is true when the marker is a list item itself.
	Item bool
	// Key is the text before the value, "name: " (empty for an item).
	Key string
}

// prefix is the line's start before the value: "  name: ", "  - name: "
// or "  - ".
func (s slot) prefix() string { return s.Lead + s.Key }

// child is the indentation of what is nested under the slot's key.
func (s slot) child() string { return s.Indent + "  " }

// fill returns the lines that replace a marker's line.
type fill func(s slot) ([]string, error)

// markerLine matches a line whose value is a marker (quoted by the YAML
// marshaller, since '@' cannot start a plain scalar).
var markerLine = regexp.MustCompile(`^(\s*)(- )?([^\s'"]\S*: |'[^']*': |"[^"]*": )?['"]?@@(\d+)@@['"]?$`)

// mark returns a marker for f, to be set as a value of the object.
func (t *tmpl) mark(f fill) string {
	t.fills = append(t.fills, f)
	return fmt.Sprintf("@@%d@@", len(t.fills)-1)
}

// inline is a fill that writes expr as the value.
func inline(expr string) fill {
	return func(s slot) ([]string, error) { return []string{s.prefix() + expr}, nil }
}

// render marshals v and applies the fills of its markers.
func (t *tmpl) render(v any) (string, error) {
	lines, err := t.lines(v, "", false)
	if err != nil {
		return "", err
	}
	return strings.Join(lines, "\n") + "\n", nil
}

// lines marshals v indented by indent — as a list item when item — and
// applies the fills of its markers.
func (t *tmpl) lines(v any, indent string, item bool) ([]string, error) {
	if item {
		v = []any{v}
	}
	raw, err := yaml.Marshal(v)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, line := range strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n") {
		line = indent + line
		m := markerLine.FindStringSubmatch(line)
		if m == nil {
			if strings.Contains(line, "@@") {
				return nil, fmt.Errorf("chart: a marker is not a whole value: %q", line)
			}
			out = append(out, line)
			continue
		}
		i, _ := strconv.Atoi(m[4])
		s := slot{Lead: m[1] + m[2], Indent: m[1], Item: m[2] != "" && m[3] == "", Key: m[3]}
		if m[2] != "" && m[3] != "" {
			s.Indent += "  "
		}
		filled, err := t.fills[i](s)
		if err != nil {
			return nil, err
		}
		out = append(out, filled...)
	}
	return out, nil
}

// gated wraps lines in {{- if cond }} … {{- end }}; an empty cond leaves
// them as they are.
func gated(cond string, lines []string) []string {
	if cond == "" {
		return lines
	}
	out := append([]string{"{{- if " + cond + " }}"}, lines...)
	return append(out, "{{- end }}")
}

// keyed returns the lines of a map value under its key, with extra lines
// (template actions writing further entries at the child indentation)
// after the existing entries.
func (t *tmpl) keyed(s slot, existing map[string]any, extra ...string) ([]string, error) {
	out := []string{s.prefix()}
	out[0] = strings.TrimSuffix(out[0], " ")
	if len(existing) > 0 {
		more, err := t.lines(existing, s.child(), false)
		if err != nil {
			return nil, err
		}
		out = append(out, more...)
	}
	for _, e := range extra {
		out = append(out, strings.ReplaceAll(e, "$INDENT", s.child()))
	}
	return out, nil
}

// quoteTemplate escapes text for a Go template string literal.
func quoteTemplate(s string) string { return strconv.Quote(s) }
