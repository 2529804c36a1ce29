package main

import (
	"go/ast"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// binding says that a value derives from an attribute: attr is the dotted
// attribute ("" for the whole resource), model the local struct type of a
// typed resource's model at that attribute.
type binding struct {
	attr, model string
}

var getters = map[string]bool{"Get": true, "GetOk": true, "GetOkExists": true, "GetChange": true, "GetRawConfigAt": false}

// tfschemaTag gives the attribute a field of a local model struct stands
// for, and the struct type of its items.
func (l *loader) tfschemaTag(p *pkg, model, field string) (string, string, bool) {
	td := p.types[model]
	if td == nil {
		return "", "", false
	}
	st, ok := td.spec.Type.(*ast.StructType)
	if !ok {
		return "", "", false
	}
	for _, fl := range st.Fields.List {
		if fl.Tag == nil {
			continue
		}
		for _, n := range fl.Names {
			if n.Name != field {
				continue
			}
			tag, _ := strconv.Unquote(fl.Tag.Value)
			t := reflect.StructTag(tag).Get("tfschema")
			if t == "" {
				return "", "", false
			}
			return t, localStruct(p, fl.Type), true
		}
	}
	return "", "", false
}

// localStruct gives the name of a package-local struct a type expression
// holds, through pointers and slices.
func localStruct(p *pkg, e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.ArrayType:
			e = x.Elt
		case *ast.Ident:
			if td := p.types[x.Name]; td != nil {
				if _, ok := td.spec.Type.(*ast.StructType); ok {
					return x.Name
				}
			}
			return ""
		default:
			return ""
		}
	}
}

// isModel tells whether a local struct has tfschema tags.
func isModel(p *pkg, name string) bool {
	td := p.types[name]
	if td == nil {
		return false
	}
	st, ok := td.spec.Type.(*ast.StructType)
	if !ok {
		return false
	}
	for _, fl := range st.Fields.List {
		if fl.Tag != nil && strings.Contains(fl.Tag.Value, "tfschema:") {
			return true
		}
	}
	return false
}

func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + "." + b
}

// sources gives the bindings an expression's value derives from. SDK
// composite literals and function literals are not looked into.
func (c *fnCtx) sources(e ast.Expr) []binding {
	set := map[binding]bool{}
	c.collect(e, set, 0)
	out := make([]binding, 0, len(set))
	for b := range set {
		out = append(out, b)
		if b.attr != "" {
			c.m.read[b.attr] = true
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].attr+out[i].model < out[j].attr+out[j].model })
	return out
}

func (c *fnCtx) collect(e ast.Expr, set map[binding]bool, depth int) {
	if e == nil || depth > 30 {
		return
	}
	add := func(bs []binding) {
		for _, b := range bs {
			set[b] = true
		}
	}
	sub := func(x ast.Expr) []binding {
		s := map[binding]bool{}
		c.collect(x, s, depth+1)
		out := make([]binding, 0, len(s))
		for b := range s {
			out = append(out, b)
		}
		return out
	}
	switch x := e.(type) {
	case *ast.Ident:
		add(c.env[c.keyOf(x)])
	case *ast.CallExpr:
		if sel, ok := x.Fun.(*ast.SelectorExpr); ok && getters[sel.Sel.Name] && len(x.Args) > 0 {
			if s, ok := c.m.l.stringValue(x.Args[0], c.f); ok {
				set[binding{attr: normAttr(s)}] = true
				return
			}
		}
		if c.local(x) == nil {
			for _, a := range x.Args {
				c.collect(a, set, depth+1)
			}
			return
		}
		// A provider function: its result derives from its one argument
		// that carries attributes; with several, which one is unknown
		// here (the function itself is followed).
		var only []binding
		n := 0
		for _, a := range x.Args {
			if bs := attrBindings(sub(a)); len(bs) > 0 {
				only, n = bs, n+1
			}
		}
		if n == 1 {
			add(only)
		}
	case *ast.SelectorExpr:
		for _, b := range sub(x.X) {
			if b.model == "" {
				continue
			}
			if t, m, ok := c.m.l.tfschemaTag(c.m.modelPkg, b.model, x.Sel.Name); ok {
				set[binding{attr: join(b.attr, t), model: m}] = true
			}
		}
	case *ast.IndexExpr:
		key, isKey := c.m.l.stringValue(x.Index, c.f)
		for _, b := range sub(x.X) {
			if isKey && b.model == "" {
				set[binding{attr: join(b.attr, key)}] = true
			} else if !isKey {
				set[b] = true
			}
		}
	case *ast.TypeAssertExpr:
		c.collect(x.X, set, depth+1)
	case *ast.ParenExpr:
		c.collect(x.X, set, depth+1)
	case *ast.StarExpr:
		c.collect(x.X, set, depth+1)
	case *ast.UnaryExpr:
		c.collect(x.X, set, depth+1)
	case *ast.BinaryExpr:
		c.collect(x.X, set, depth+1)
		c.collect(x.Y, set, depth+1)
	case *ast.SliceExpr:
		c.collect(x.X, set, depth+1)
	case *ast.CompositeLit:
		if _, ok := c.litType(x); ok {
			return
		}
		for _, el := range x.Elts {
			if kv, ok := el.(*ast.KeyValueExpr); ok {
				el = kv.Value
			}
			c.collect(el, set, depth+1)
		}
	}
}

func attrBindings(bs []binding) []binding {
	var out []binding
	for _, b := range bs {
		if b.attr != "" {
			out = append(out, b)
		}
	}
	return out
}
