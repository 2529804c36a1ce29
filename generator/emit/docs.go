package emit

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"text/template"

	"github.com/armature-dev/armature/generator/model"
	"github.com/armature-dev/armature/runtime/descriptor"
	"github.com/armature-dev/armature/templates"
)

type docNode struct{ ID, Label string }
type docEdge struct{ From, To string }
type docKind struct {
	Name, Version, ARMType, APIVersion, Path, Scope, Owner, Singleton string
	Verbs, LongRunning, Actions                                       string
	Properties                                                        []docProp
	// ActionRows is the table of the POST actions.
	ActionRows []docAction
	// Overrides is true when an override of specs/armature.yaml applies
	// to a property: the table then has an override column.
	Overrides bool
}
type docProp struct{ Path, Class, Rule, Override string }
type docAction struct{ Name, LongRunning, Query, Request, Response string }
type docGroup struct {
	Header, Group, Provider string
	Packages                []*model.Package
	Nodes                   []docNode
	Edges                   []docEdge
	Kinds                   []docKind
}

// docFiles renders generated/docs/<group>.md for every group.
func docFiles(m *model.Model) (map[string][]byte, error) {
	tmpl, err := template.ParseFS(templates.FS, "group.md.tmpl")
	if err != nil {
		return nil, fmt.Errorf("templates: %w", err)
	}
	groups := map[string]*docGroup{}
	var order []string
	for _, p := range m.Packages {
		g := groups[p.Group]
		if g == nil {
			g = &docGroup{Header: Header, Group: p.Group, Provider: p.Provider}
			groups[p.Group] = g
			order = append(order, p.Group)
		}
		g.Packages = append(g.Packages, p)
	}
	out := map[string][]byte{}
	for _, name := range order {
		g := groups[name]
		nodes := map[string]string{}
		edges := map[docEdge]bool{}
		for _, p := range g.Packages {
			for _, k := range p.Kinds {
				r := k.Resource
				nodes[k.Name] = fmt.Sprintf("%s<br/><small>%s</small>", k.Name, r.ARMType)
				if k.Owner != nil {
					if k.Owner.Package.Group != g.Group {
						nodes[k.Owner.Name] = fmt.Sprintf("%s<br/><small>%s</small>", k.Owner.Name, k.Owner.Resource.ARMType)
					}
					edges[docEdge{From: k.Owner.Name, To: k.Name}] = true
				} else if r.Owner != "" {
					id := mermaidID(r.Owner)
					nodes[id] = r.Owner
					edges[docEdge{From: id, To: k.Name}] = true
				}
				dk := docKind{
					Name: k.Name, Version: p.Version, ARMType: r.ARMType, APIVersion: r.APIVersion, Path: r.Path,
					Scope: string(r.Scope), Owner: r.Owner, Singleton: r.Singleton,
					Verbs: strings.Join(r.Verbs(), ", "), LongRunning: strings.Join(r.LongRunning(), ", "),
				}
				var acts []string
				for _, a := range r.Actions {
					acts = append(acts, "`"+a.Name+"`")
				}
				dk.Actions = strings.Join(acts, ", ")
				for _, a := range k.Actions {
					dk.ActionRows = append(dk.ActionRows, actionRow(a))
				}
				for _, e := range k.Table.Entries {
					dp := docProp{Path: e.Path.String(), Class: string(e.Class), Rule: cell(e.Rule)}
					if sum := e.OverrideSummary(); sum != "" {
						dk.Overrides = true
						if !strings.Contains(e.Rule, e.Override.Because) {
							sum += ": " + e.Override.Because // a class or hide rule says why already
						}
						dp.Override = cell(sum)
					}
					dk.Properties = append(dk.Properties, dp)
				}
				g.Kinds = append(g.Kinds, dk)
			}
		}
		for _, id := range slices.Sorted(maps.Keys(nodes)) {
			g.Nodes = append(g.Nodes, docNode{ID: id, Label: nodes[id]})
		}
		for e := range edges {
			g.Edges = append(g.Edges, e)
		}
		sort.Slice(g.Edges, func(i, j int) bool {
			if g.Edges[i].From != g.Edges[j].From {
				return g.Edges[i].From < g.Edges[j].From
			}
			return g.Edges[i].To < g.Edges[j].To
		})
		var buf bytes.Buffer
		if err := tmpl.Execute(&buf, g); err != nil {
			return nil, fmt.Errorf("docs for %s: %w", g.Group, err)
		}
		out[g.Group+".md"] = buf.Bytes()
	}
	return out, nil
}

// actionRow summarises an action for the docs: its body schemas by
// definition name, the required request fields and the secret response
// fields (which an Action writes to a Secret).
func actionRow(a descriptor.Action) docAction {
	row := docAction{Name: "`" + a.Name + "`", LongRunning: "no", Query: "—", Request: "—", Response: "—"}
	if a.LongRunning {
		row.LongRunning = "yes"
		if a.FinalStateVia != "" {
			row.LongRunning += " (final state via " + a.FinalStateVia + ")"
		}
	}
	var qs []string
	for _, q := range a.Query {
		qs = append(qs, fieldCell(q))
	}
	if len(qs) > 0 {
		row.Query = strings.Join(qs, ", ")
	}
	if b := a.Request; b != nil {
		row.Request = schemaName(b.Schema)
		var req []string
		for _, f := range b.Fields[1:] {
			if f.Required && len(f.Path) == 1 {
				req = append(req, fieldCell(f))
			}
		}
		if b.Required {
			row.Request += ", required"
		}
		if len(req) > 0 {
			row.Request += "; required fields: " + strings.Join(req, ", ")
		}
	}
	if b := a.Response; b != nil {
		row.Response = schemaName(b.Schema)
		var sec []string
		for _, p := range b.SecretPaths() {
			sec = append(sec, "`"+p.String()+"`")
		}
		if len(sec) > 0 {
			row.Response += "; secret: " + strings.Join(sec, ", ")
		}
	}
	row.Query, row.Request, row.Response = cell(row.Query), cell(row.Request), cell(row.Response)
	return row
}

// fieldCell is `name` (type, one of a / b, required) for a field.
func fieldCell(f descriptor.Field) string {
	s := "`" + f.Path.String() + "`"
	var about []string
	if f.Type != "" {
		about = append(about, f.Type)
	}
	switch {
	case len(f.Enum) > 0 && f.EnumOpen:
		about = append(about, "known values "+strings.Join(f.Enum, " / "))
	case len(f.Enum) > 0:
		about = append(about, "one of "+strings.Join(f.Enum, " / "))
	}
	if f.Required {
		about = append(about, "required")
	}
	if len(about) > 0 {
		s += " (" + strings.Join(about, ", ") + ")"
	}
	return s
}

// schemaName is the definition a body schema names, or its origin.
func schemaName(origin string) string {
	if i := strings.Index(origin, "#/definitions/"); i >= 0 && !strings.Contains(origin[i+len("#/definitions/"):], "/") {
		return "`" + origin[i+len("#/definitions/"):] + "`"
	}
	return "`" + origin + "`"
}

func mermaidID(armType string) string {
	return strings.NewReplacer(".", "_", "/", "_").Replace(armType)
}

// cell escapes a Markdown table cell.
func cell(s string) string { return strings.ReplaceAll(s, "|", "\\|") }
