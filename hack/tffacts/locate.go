package main

import (
	"go/ast"
	"go/token"
)

// litType gives the SDK type of a composite literal, with elided types
// taken from the enclosing slice or map literal.
func (c *fnCtx) litType(lit *ast.CompositeLit) (tref, bool) {
	if lit.Type == nil {
		p, ok := c.parent[lit].(*ast.CompositeLit)
		if kv, isKV := c.parent[lit].(*ast.KeyValueExpr); isKV && kv.Value == lit {
			p, ok = c.parent[kv].(*ast.CompositeLit)
		}
		if !ok {
			return tref{}, false
		}
		pt, ok := c.litType(p)
		if !ok || pt.suffix == "" {
			return tref{}, false
		}
		pt.suffix = pt.suffix[3:]
		return pt, true
	}
	switch lit.Type.(type) {
	case *ast.SelectorExpr, *ast.ArrayType, *ast.MapType:
		t := c.m.s.trefOf(lit.Type, c.f)
		return t, isSDK(t.dir)
	}
	return tref{}, false
}

// litLoc gives the location of an SDK literal: where it is put, else the
// one path the SDK types allow.
func (c *fnCtx) litLoc(lit *ast.CompositeLit) *loc {
	if at, ok := c.litLocs[lit]; ok {
		return at
	}
	c.litLocs[lit] = nil
	t, ok := c.litType(lit)
	if !ok {
		return nil
	}
	var out *loc
	if at := c.placeLoc(lit); at != nil && at.t.dir == t.dir && at.t.name == t.name && at.t.suffix == t.suffix {
		out = at
	} else if l, ok := c.m.graph.unique(t); ok {
		out = &l
	}
	c.litLocs[lit] = out
	return out
}

// placeLoc gives the location where the value of an expression is put.
func (c *fnCtx) placeLoc(n ast.Expr) *loc {
	switch p := c.parent[n].(type) {
	case *ast.ParenExpr, *ast.StarExpr:
		return c.placeLoc(p.(ast.Expr))
	case *ast.UnaryExpr:
		if p.Op == token.AND {
			return c.placeLoc(p)
		}
	case *ast.CallExpr:
		if fn, ok := p.Fun.(*ast.Ident); ok && fn.Name == "append" && len(p.Args) > 1 && p.Args[0] != n {
			if at := c.exprLoc(p.Args[0]); at != nil {
				if e, ok := elem(*at); ok {
					return &e
				}
			}
			return nil
		}
		if len(p.Args) == 1 && p.Args[0] == n && c.local(p) == nil {
			return c.placeLoc(p) // pointer.To(x) and the like
		}
	case *ast.KeyValueExpr:
		if p.Value != n {
			return nil
		}
		g, ok := c.parent[p].(*ast.CompositeLit)
		if !ok {
			return nil
		}
		gt, ok := c.litType(g)
		if !ok {
			return nil
		}
		at := c.litLoc(g)
		if at == nil {
			return nil
		}
		if gt.suffix != "" {
			if e, ok := elem(*at); ok {
				return &e
			}
			return nil
		}
		if k, ok := p.Key.(*ast.Ident); ok {
			if fl, ok := c.m.s.field(*at, k.Name); ok {
				return &fl
			}
		}
	case *ast.CompositeLit:
		if gt, ok := c.litType(p); ok && gt.suffix != "" {
			if at := c.litLoc(p); at != nil {
				if e, ok := elem(*at); ok {
					return &e
				}
			}
		}
	case *ast.AssignStmt:
		for i, r := range p.Rhs {
			if r == n && (len(p.Lhs) == len(p.Rhs) || i == 0) {
				return c.exprLoc(p.Lhs[i])
			}
		}
	case *ast.ValueSpec:
		for i, v := range p.Values {
			if v == n && i < len(p.Names) {
				return c.varLoc(c.keyOf(p.Names[i]))
			}
		}
	case *ast.ReturnStmt:
		if len(p.Results) > 0 && p.Results[0] == n {
			return c.ret
		}
	}
	return nil
}

// exprLoc gives the location an assignable expression stands for.
func (c *fnCtx) exprLoc(e ast.Expr) *loc {
	switch x := unparen(e).(type) {
	case *ast.Ident:
		return c.varLoc(c.keyOf(x))
	case *ast.SelectorExpr:
		return c.selLoc(x)
	case *ast.IndexExpr:
		if at := c.exprLoc(x.X); at != nil {
			if el, ok := elem(*at); ok {
				return &el
			}
		}
	case *ast.CompositeLit:
		return c.litLoc(x)
	}
	return nil
}

// varLoc gives the one location a variable's value is put, else the one
// the SDK types allow for its declared or literal type.
func (c *fnCtx) varLoc(name string) *loc {
	if at, ok := c.varLocs[name]; ok {
		return at
	}
	c.varLocs[name] = nil
	var found []loc
	for _, id := range c.uses[name] {
		if c.isLHS(id) {
			continue
		}
		if at := c.placeLoc(id); at != nil {
			found = append(found, *at)
		}
	}
	out := uniqueLoc(found)
	if out == nil {
		for _, t := range c.varTypes(name) {
			if l, ok := c.m.graph.unique(t); ok {
				out = &l
			}
		}
	}
	c.varLocs[name] = out
	return out
}

// isLHS tells whether an identifier is assigned to or is the base of a
// selector or index.
func (c *fnCtx) isLHS(id *ast.Ident) bool {
	switch p := c.parent[id].(type) {
	case *ast.AssignStmt:
		for _, l := range p.Lhs {
			if l == id {
				return true
			}
		}
	case *ast.SelectorExpr:
		return p.X == id
	case *ast.IndexExpr:
		return p.X == id
	case *ast.CallExpr:
		if fn, ok := p.Fun.(*ast.Ident); ok && fn.Name == "append" && len(p.Args) > 0 && p.Args[0] == id {
			return true
		}
	case *ast.ValueSpec, *ast.RangeStmt:
		return true
	}
	return false
}

// varTypes gives the SDK types a variable is declared or defined with.
func (c *fnCtx) varTypes(name string) []tref {
	var out []tref
	if t, ok := c.declType[name]; ok {
		if tr := c.m.s.trefOf(t, c.f); isSDK(tr.dir) {
			out = append(out, tr)
		}
	}
	for _, d := range c.defs[name] {
		if lit, ok := unparen(d).(*ast.CompositeLit); ok {
			if t, ok := c.litType(lit); ok {
				out = append(out, t)
			}
		}
	}
	return out
}

func uniqueLoc(ls []loc) *loc {
	if len(ls) == 0 {
		return nil
	}
	for _, l := range ls[1:] {
		if l.path != ls[0].path {
			return nil
		}
	}
	return &ls[0]
}

// selLoc gives the location of a selector chain on an SDK value; a chain
// on an API response's `.Model` starts at the body types.
func (c *fnCtx) selLoc(e ast.Expr) *loc {
	return uniqueLoc(c.selLocs(e, 0))
}

func (c *fnCtx) selLocs(e ast.Expr, depth int) []loc {
	if depth > 10 {
		return nil
	}
	switch x := e.(type) {
	case *ast.ParenExpr:
		return c.selLocs(x.X, depth+1)
	case *ast.StarExpr:
		return c.selLocs(x.X, depth+1)
	case *ast.Ident:
		if at := c.varLoc(c.keyOf(x)); at != nil {
			return []loc{*at}
		}
		for _, d := range c.defs[c.keyOf(x)] {
			if isModelSel(d) {
				return c.rootLocs()
			}
		}
	case *ast.SelectorExpr:
		if x.Sel.Name == "Model" {
			return c.rootLocs()
		}
		var out []loc
		for _, b := range c.selLocs(x.X, depth+1) {
			if fl, ok := c.m.s.field(b, x.Sel.Name); ok {
				out = append(out, fl)
			}
		}
		return out
	case *ast.IndexExpr:
		var out []loc
		for _, b := range c.selLocs(x.X, depth+1) {
			if el, ok := elem(b); ok {
				out = append(out, el)
			}
		}
		return out
	}
	return nil
}

// isModelSel tells whether an expression is `resp.Model` or `*resp.Model`.
func isModelSel(e ast.Expr) bool {
	sel, ok := unparen(e).(*ast.SelectorExpr)
	return ok && sel.Sel.Name == "Model"
}

func (c *fnCtx) rootLocs() []loc {
	out := make([]loc, 0, len(c.m.roots))
	for _, r := range c.m.roots {
		out = append(out, loc{t: tref{dir: r.dir, name: r.name}})
	}
	return out
}
