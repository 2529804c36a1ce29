package main

import (
	"go/ast"
	"regexp"
	"sort"
	"strings"
)

// resource is one registered azurerm resource and where its code is.
type resource struct {
	name  string
	file  *file
	recv  string            // typed: the sdk.Resource type; untyped: ""
	lit   *ast.CompositeLit // untyped: the &pluginsdk.Resource{…} literal
	funcs map[string]*funcDecl
}

// discover finds the resources a service package registers.
func (l *loader) discover(p *pkg) []*resource {
	var out []*resource
	for _, key := range sortedFuncs(p) {
		fd := p.funcs[key]
		switch {
		case strings.HasSuffix(key, ".SupportedResources"):
			out = append(out, l.untyped(p, fd)...)
		case strings.HasSuffix(key, ".Resources"):
			out = append(out, l.typed(p, fd)...)
		}
	}
	return out
}

func (l *loader) untyped(p *pkg, fd *funcDecl) []*resource {
	var out []*resource
	for _, en := range l.bodyEntries(fd.decl.Body, fd.file, "", 0) {
		call, ok := unparen(en.val).(*ast.CallExpr)
		if !ok {
			continue
		}
		rf := l.resolveFunc(call.Fun, en.file, "")
		if rf == nil {
			continue
		}
		var lit *ast.CompositeLit
		for _, r := range returnExprs(rf.decl.Body) {
			if id, ok := unparen(r).(*ast.Ident); ok {
				r = localDef(rf.decl.Body, id.Name)
			}
			if c, ok := unparen(r).(*ast.CompositeLit); ok {
				lit = c
			}
		}
		if lit == nil {
			continue
		}
		r := &resource{name: en.key, file: rf.file, lit: lit, funcs: map[string]*funcDecl{}}
		for _, el := range lit.Elts {
			kv, ok := el.(*ast.KeyValueExpr)
			if !ok {
				continue
			}
			k, _ := kv.Key.(*ast.Ident)
			if k == nil {
				continue
			}
			if id, ok := kv.Value.(*ast.Ident); ok {
				if f := rf.file.pkg.funcs[id.Name]; f != nil {
					r.funcs[k.Name] = f
				}
			}
		}
		out = append(out, r)
	}
	return out
}

func (l *loader) typed(p *pkg, fd *funcDecl) []*resource {
	var out []*resource
	for _, r := range returnExprs(fd.decl.Body) {
		c, ok := unparen(r).(*ast.CompositeLit)
		if !ok {
			continue
		}
		for _, el := range c.Elts {
			ec, ok := unparen(el).(*ast.CompositeLit)
			if !ok {
				continue
			}
			id, ok := ec.Type.(*ast.Ident)
			if !ok {
				continue
			}
			rt := p.funcs[id.Name+".ResourceType"]
			if rt == nil {
				continue
			}
			var name string
			for _, re := range returnExprs(rt.decl.Body) {
				name, _ = l.stringValue(re, rt.file)
			}
			if name == "" {
				continue
			}
			res := &resource{name: name, file: rt.file, recv: id.Name, funcs: map[string]*funcDecl{}}
			for _, m := range []string{"Arguments", "Create", "Update", "Read", "Delete", "CustomizeDiff", "ModelObject"} {
				if f := p.funcs[id.Name+"."+m]; f != nil {
					res.funcs[m] = f
				}
			}
			if a := res.funcs["Arguments"]; a != nil {
				res.file = a.file
			}
			out = append(out, res)
		}
	}
	return out
}

// schema gives the attributes of a resource and its CustomizeDiff
// conditions (attribute → where).
func (l *loader) schema(r *resource) ([]*attribute, map[string]string) {
	conds := map[string]string{}
	seen := map[ast.Node]bool{}
	var entries []entry
	if r.recv != "" {
		if a := r.funcs["Arguments"]; a != nil {
			entries = l.bodyEntries(a.decl.Body, a.file, r.recv, 0)
		}
		if c := r.funcs["CustomizeDiff"]; c != nil {
			l.conditions(c.decl.Body, c.file, r.recv, conds, seen, 0)
		}
	} else {
		for _, el := range r.lit.Elts {
			kv, ok := el.(*ast.KeyValueExpr)
			if !ok {
				continue
			}
			switch k, _ := kv.Key.(*ast.Ident); {
			case k == nil:
			case k.Name == "Schema":
				entries = l.mapEntries(kv.Value, r.file, "", 0)
			case k.Name == "CustomizeDiff":
				l.conditions(kv.Value, r.file, "", conds, seen, 0)
			}
		}
	}
	return l.attributes(entries, r.recv, "", 0), conds
}

var parseID = regexp.MustCompile(`^Parse(\w+?)ID(Insensitively)?$`)

// idType finds the resource ID type a resource parses, in its Delete, Read
// or Update function: the directory and name of the type.
func (l *loader) idType(r *resource) (string, string) {
	for _, k := range []string{"Delete", "Read", "Update"} {
		fd := r.funcs[k]
		if fd == nil {
			continue
		}
		dir, name := "", ""
		ast.Inspect(fd.decl.Body, func(n ast.Node) bool {
			c, ok := n.(*ast.CallExpr)
			if !ok || name != "" {
				return name == ""
			}
			sel, ok := c.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			m := parseID.FindStringSubmatch(sel.Sel.Name)
			x, ok := sel.X.(*ast.Ident)
			if m == nil || !ok {
				return true
			}
			if ip, ok := fd.file.imports[x.Name]; ok {
				dir, name = l.dirOf(ip), m[1]+"Id"
			}
			return true
		})
		if name != "" {
			return dir, name
		}
	}
	return "", ""
}

// sortedFuncs gives the function keys of a package in order, so that runs
// are deterministic.
func sortedFuncs(p *pkg) []string {
	keys := make([]string, 0, len(p.funcs))
	for k := range p.funcs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
