package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/printer"
	"regexp"
	"strings"
)

// attribute is one schema attribute of a resource, at any depth.
type attribute struct {
	name      string // dotted: network_profile.dns_service_ip
	file      string
	line      int
	forceNew  bool // unconditional, or inside a ForceNew block
	optional  bool
	required  bool
	computed  bool
	condition string // why the attribute may force a new resource
	block     bool   // has nested attributes
}

// schemaProps are the fields of one schema literal that matter here.
type schemaProps struct {
	forceNew, optional, required, computed bool
	forceNewExpr                           string // a ForceNew that is not a literal
	elem                                   ast.Expr
	elemFile                               *file
}

// entry is one key of a schema map.
type entry struct {
	key  string
	val  ast.Expr
	file *file
	line int
}

const maxDepth = 8

// mapEntries gives the keys of a schema map expression: a map literal, a
// call to a function returning one, or a function literal called in place.
func (l *loader) mapEntries(e ast.Expr, f *file, recv string, depth int) []entry {
	if depth > maxDepth {
		return nil
	}
	switch x := unparen(e).(type) {
	case *ast.CompositeLit:
		var out []entry
		for _, el := range x.Elts {
			kv, ok := el.(*ast.KeyValueExpr)
			if !ok {
				continue
			}
			if k, ok := l.stringValue(kv.Key, f); ok {
				out = append(out, entry{key: k, val: kv.Value, file: f, line: l.line(kv.Key.Pos())})
			}
		}
		return out
	case *ast.CallExpr:
		if fl, ok := x.Fun.(*ast.FuncLit); ok {
			return l.bodyEntries(fl.Body, f, recv, depth)
		}
		if fd := l.resolveFunc(x.Fun, f, recv); fd != nil {
			return l.bodyEntries(fd.decl.Body, fd.file, recvOf(fd, recv), depth)
		}
	}
	return nil
}

// recvOf gives the receiver type name of a method, or recv for a function.
func recvOf(fd *funcDecl, recv string) string {
	if fd.decl.Recv != nil && len(fd.decl.Recv.List) == 1 {
		return recvName(fd.decl.Recv.List[0].Type)
	}
	return recv
}

// bodyEntries gives the keys of the map a function body returns, with the
// `m["k"] = v` assignments to a returned variable.
func (l *loader) bodyEntries(body *ast.BlockStmt, f *file, recv string, depth int) []entry {
	var out []entry
	for _, r := range returnExprs(body) {
		id, ok := unparen(r).(*ast.Ident)
		if !ok {
			out = append(out, l.mapEntries(r, f, recv, depth+1)...)
			continue
		}
		ast.Inspect(body, func(n ast.Node) bool {
			as, ok := n.(*ast.AssignStmt)
			if !ok || len(as.Lhs) != len(as.Rhs) {
				return true
			}
			for i, lhs := range as.Lhs {
				switch lh := lhs.(type) {
				case *ast.Ident:
					if lh.Name == id.Name {
						out = append(out, l.mapEntries(as.Rhs[i], f, recv, depth+1)...)
					}
				case *ast.IndexExpr:
					if x, ok := lh.X.(*ast.Ident); ok && x.Name == id.Name {
						if k, ok := l.stringValue(lh.Index, f); ok {
							out = append(out, entry{key: k, val: as.Rhs[i], file: f, line: l.line(lh.Index.Pos())})
						}
					}
				}
			}
			return true
		})
	}
	return out
}

// schemaOf reads a schema value: a literal, or a call to a helper whose
// parameters are substituted with the call's literal arguments.
func (l *loader) schemaOf(e ast.Expr, f *file, recv string, params map[string]ast.Expr, depth int) (schemaProps, bool) {
	if depth > maxDepth {
		return schemaProps{}, false
	}
	switch x := unparen(e).(type) {
	case *ast.CompositeLit:
		return l.schemaLit(x, f, params), true
	case *ast.CallExpr:
		fd := l.resolveFunc(x.Fun, f, recv)
		if fd == nil || fd.decl.Body == nil {
			return schemaProps{}, false
		}
		inner := map[string]ast.Expr{}
		i := 0
		for _, fld := range fd.decl.Type.Params.List {
			for _, n := range fld.Names {
				if i < len(x.Args) {
					inner[n.Name] = substitute(x.Args[i], params)
				}
				i++
			}
		}
		return l.schemaFromBody(fd, inner, depth)
	}
	return schemaProps{}, false
}

// substitute replaces a parameter name by the argument it stands for.
func substitute(e ast.Expr, params map[string]ast.Expr) ast.Expr {
	if id, ok := e.(*ast.Ident); ok {
		if v, ok := params[id.Name]; ok {
			return v
		}
	}
	return e
}

// schemaFromBody reads the schema a helper function returns; when several
// return statements disagree, ForceNew holds only if all of them say so.
func (l *loader) schemaFromBody(fd *funcDecl, params map[string]ast.Expr, depth int) (schemaProps, bool) {
	var got []schemaProps
	for _, r := range returnExprs(fd.decl.Body) {
		if id, ok := unparen(r).(*ast.Ident); ok {
			r = localDef(fd.decl.Body, id.Name)
			if r == nil {
				continue
			}
		}
		if sp, ok := l.schemaOf(r, fd.file, recvOf(fd, ""), params, depth+1); ok {
			got = append(got, sp)
		}
	}
	if len(got) == 0 {
		return schemaProps{}, false
	}
	sp := got[0]
	for _, g := range got[1:] {
		sp.forceNew = sp.forceNew && g.forceNew
		sp.optional = sp.optional || g.optional
		sp.required = sp.required || g.required
		sp.computed = sp.computed || g.computed
		if sp.elem == nil {
			sp.elem, sp.elemFile = g.elem, g.elemFile
		}
	}
	return sp, true
}

// localDef gives the first value assigned to a variable in a body.
func localDef(body *ast.BlockStmt, name string) ast.Expr {
	var def ast.Expr
	ast.Inspect(body, func(n ast.Node) bool {
		if def != nil {
			return false
		}
		if as, ok := n.(*ast.AssignStmt); ok && len(as.Lhs) == len(as.Rhs) {
			for i, lhs := range as.Lhs {
				if id, ok := lhs.(*ast.Ident); ok && id.Name == name {
					def = as.Rhs[i]
				}
			}
		}
		return true
	})
	return def
}

func (l *loader) schemaLit(x *ast.CompositeLit, f *file, params map[string]ast.Expr) schemaProps {
	var sp schemaProps
	for _, el := range x.Elts {
		kv, ok := el.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		k, _ := kv.Key.(*ast.Ident)
		if k == nil {
			continue
		}
		v := substitute(kv.Value, params)
		switch k.Name {
		case "ForceNew":
			sp.forceNew = isTrue(v)
			if !sp.forceNew && !isFalse(v) {
				sp.forceNewExpr = fmt.Sprintf("ForceNew: %s at %s:%d", exprString(l, v), f.rel, l.line(v.Pos()))
			}
		case "Optional":
			sp.optional = !isFalse(v)
		case "Required":
			sp.required = !isFalse(v)
		case "Computed":
			sp.computed = !isFalse(v)
		case "Elem":
			sp.elem, sp.elemFile = kv.Value, f
		}
	}
	return sp
}

func isTrue(e ast.Expr) bool  { id, ok := e.(*ast.Ident); return ok && id.Name == "true" }
func isFalse(e ast.Expr) bool { id, ok := e.(*ast.Ident); return ok && id.Name == "false" }

func exprString(l *loader, e ast.Expr) string {
	var b bytes.Buffer
	_ = printer.Fprint(&b, l.fset, e)
	s := b.String()
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return s
}

// elemSchema gives the schema map of a nested block's Elem, or nil when
// the Elem is a primitive schema.
func (l *loader) elemSchema(e ast.Expr, f *file, recv string, depth int) []entry {
	if depth > maxDepth {
		return nil
	}
	switch x := unparen(e).(type) {
	case *ast.CompositeLit:
		if sel, ok := x.Type.(*ast.SelectorExpr); !ok || sel.Sel.Name != "Resource" {
			return nil
		}
		for _, el := range x.Elts {
			if kv, ok := el.(*ast.KeyValueExpr); ok {
				if k, ok := kv.Key.(*ast.Ident); ok && k.Name == "Schema" {
					return l.mapEntries(kv.Value, f, recv, depth+1)
				}
			}
		}
	case *ast.CallExpr:
		if fd := l.resolveFunc(x.Fun, f, recv); fd != nil {
			var out []entry
			for _, r := range returnExprs(fd.decl.Body) {
				out = append(out, l.elemSchema(r, fd.file, recvOf(fd, recv), depth+1)...)
			}
			return out
		}
	}
	return nil
}

// attributes walks a schema map into attributes, nested blocks included.
//
// A block's own ForceNew (a list or set of nested resources) is not
// inherited: terraform-plugin-sdk's diffList and diffSet give it to the
// block's count only (vendor/…/helper/schema/schema.go), so adding or
// removing the block forces a new resource, while a change inside follows
// the nested attribute's own ForceNew. The block's fact is then
// conditionalForceNew. A list or set of primitives is forceNew as a whole.
func (l *loader) attributes(entries []entry, recv, prefix string, depth int) []*attribute {
	var out []*attribute
	for _, en := range entries {
		sp, ok := l.schemaOf(en.val, en.file, recv, nil, 0)
		if !ok {
			continue
		}
		a := &attribute{name: prefix + en.key, file: en.file.rel, line: en.line,
			forceNew: sp.forceNew, optional: sp.optional, required: sp.required, computed: sp.computed,
			condition: sp.forceNewExpr}
		out = append(out, a)
		if sp.elem != nil && depth < maxDepth {
			sub := l.attributes(l.elemSchema(sp.elem, sp.elemFile, recv, 0), recv, a.name+".", depth+1)
			a.block = len(sub) > 0
			if a.block && a.forceNew {
				a.forceNew = false
				a.condition = fmt.Sprintf("adding or removing the block (a block's ForceNew applies to its count; a change inside follows the nested attributes) at %s:%d", en.file.rel, en.line)
			}
			out = append(out, sub...)
		}
	}
	return out
}

var indexSegment = regexp.MustCompile(`\.(\d+|%|#)(\.|$)`)

// normAttr turns a ResourceData key (`a.0.b`) into an attribute name (`a.b`).
func normAttr(s string) string {
	for indexSegment.MatchString(s) {
		s = indexSegment.ReplaceAllString(s, "$2")
	}
	return strings.TrimSuffix(s, ".")
}

var forceNewCalls = map[string]bool{"ForceNewIfChange": true, "ForceNewIf": true, "ForceNew": true}

// conditions finds the CustomizeDiff calls that force a new resource, in
// an expression or body and the package-local functions it names.
func (l *loader) conditions(n ast.Node, f *file, recv string, out map[string]string, seen map[ast.Node]bool, depth int) {
	if n == nil || seen[n] || depth > 4 {
		return
	}
	seen[n] = true
	ast.Inspect(n, func(x ast.Node) bool {
		switch x := x.(type) {
		case *ast.CallExpr:
			name := ""
			switch fn := x.Fun.(type) {
			case *ast.SelectorExpr:
				name = fn.Sel.Name
			case *ast.Ident:
				name = fn.Name
			}
			if forceNewCalls[name] && len(x.Args) > 0 {
				if s, ok := l.stringValue(x.Args[0], f); ok {
					a := normAttr(s)
					if _, dup := out[a]; !dup {
						out[a] = fmt.Sprintf("CustomizeDiff %s at %s:%d", name, f.rel, l.line(x.Pos()))
					}
				}
			}
		case *ast.Ident:
			if fd := f.pkg.funcs[x.Name]; fd != nil {
				l.conditions(fd.decl.Body, fd.file, recv, out, seen, depth+1)
			}
		case *ast.SelectorExpr:
			if id, ok := x.X.(*ast.Ident); ok && id.Name != "" {
				if fd := f.pkg.funcs[recv+"."+x.Sel.Name]; fd != nil && recv != "" {
					l.conditions(fd.decl.Body, fd.file, recv, out, seen, depth+1)
				}
			}
		}
		return true
	})
}
