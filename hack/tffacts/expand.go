package main

import (
	"fmt"
	"go/ast"
	"go/token"
	"regexp"
	"sort"
	"strings"
)

// mapper follows the create and update code of one resource.
type mapper struct {
	l        *loader
	s        *sdkIndex
	roots    []root
	graph    typeGraph
	modelPkg *pkg
	paths    map[string]map[string]bool // attribute → JSON paths
	read     map[string]bool            // attributes the code reads
	idAttrs  map[string]bool            // attributes that form the ARM ID
	visited  map[string]bool
	depth    int
	budget   int // functions left to follow; bounds pathological call graphs
}

// maxFollowed bounds the functions followed for one resource.
const maxFollowed = 300

// fnCtx is one function being followed.
type fnCtx struct {
	m        *mapper
	f        *file
	recv     string
	ret      *loc
	env      map[string][]binding
	defs     map[string][]ast.Expr
	declType map[string]ast.Expr
	ranges   map[string]ast.Expr
	uses     map[string][]*ast.Ident
	parent   map[ast.Node]ast.Node
	varLocs  map[string]*loc
	litLocs  map[*ast.CompositeLit]*loc
	done     map[*ast.CallExpr]bool
	idKey    map[*ast.Ident]string
}

var newID = regexp.MustCompile(`^New\w*ID$`)

// analyze follows a function whose parameters carry args and whose first
// result lands at ret (nil when unknown).
func (m *mapper) analyze(fd *funcDecl, args [][]binding, ret *loc) {
	if m.depth > maxDepth || fd.decl.Body == nil || m.budget <= 0 {
		return
	}
	m.budget--
	m.depth++
	defer func() { m.depth-- }()
	c := &fnCtx{m: m, f: fd.file, recv: recvOf(fd, ""), ret: ret, env: map[string][]binding{},
		defs: map[string][]ast.Expr{}, declType: map[string]ast.Expr{}, ranges: map[string]ast.Expr{},
		uses: map[string][]*ast.Ident{}, parent: map[ast.Node]ast.Node{}, varLocs: map[string]*loc{},
		litLocs: map[*ast.CompositeLit]*loc{}, done: map[*ast.CallExpr]bool{}, idKey: map[*ast.Ident]string{}}
	i := 0
	for _, fl := range fd.decl.Type.Params.List {
		for _, n := range fl.Names {
			c.declType[n.Name] = fl.Type
			if i < len(args) {
				c.env[n.Name] = args[i]
			}
			i++
		}
	}
	c.scan(fd.decl.Body)
	c.bind()
	c.walk(fd.decl.Body)
}

// scan records parents, definitions, declared types and uses. Variables
// are keyed by declaration (`v#3`), so that the many `v, ok := d.GetOk(…)`
// of one function stay apart.
func (c *fnCtx) scan(body ast.Node) {
	var stack []ast.Node
	scopes := []map[string]string{{}}
	var scopeOf []bool
	n := 0
	declare := func(id *ast.Ident) {
		if id.Name == "_" {
			return
		}
		n++
		k := fmt.Sprintf("%s#%d", id.Name, n)
		scopes[len(scopes)-1][id.Name] = k
		c.idKey[id] = k
	}
	ast.Inspect(body, func(nd ast.Node) bool {
		if nd == nil {
			if scopeOf[len(scopeOf)-1] {
				scopes = scopes[:len(scopes)-1]
			}
			stack, scopeOf = stack[:len(stack)-1], scopeOf[:len(scopeOf)-1]
			return false
		}
		if len(stack) > 0 {
			c.parent[nd] = stack[len(stack)-1]
		}
		stack = append(stack, nd)
		switch nd.(type) {
		case *ast.BlockStmt, *ast.IfStmt, *ast.ForStmt, *ast.RangeStmt, *ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.CaseClause, *ast.FuncLit:
			scopes = append(scopes, map[string]string{})
			scopeOf = append(scopeOf, true)
		default:
			scopeOf = append(scopeOf, false)
		}
		c.record(nd, declare, scopes)
		return true
	})
}

// record notes one node's declarations, definitions and uses.
func (c *fnCtx) record(nd ast.Node, declare func(*ast.Ident), scopes []map[string]string) {
	switch x := nd.(type) {
	case *ast.AssignStmt:
		for i, lhs := range x.Lhs {
			id, ok := lhs.(*ast.Ident)
			if !ok {
				continue
			}
			if x.Tok == token.DEFINE {
				if _, again := scopes[len(scopes)-1][id.Name]; !again {
					declare(id)
				}
			}
			k := c.resolve(id, scopes)
			if len(x.Lhs) == len(x.Rhs) {
				c.defs[k] = append(c.defs[k], x.Rhs[i])
			} else if len(x.Rhs) == 1 {
				c.defs[k] = append(c.defs[k], x.Rhs[0])
			}
		}
	case *ast.ValueSpec:
		for i, id := range x.Names {
			declare(id)
			if x.Type != nil {
				c.declType[c.idKey[id]] = x.Type
			}
			if i < len(x.Values) {
				c.defs[c.idKey[id]] = append(c.defs[c.idKey[id]], x.Values[i])
			}
		}
	case *ast.RangeStmt:
		if x.Tok == token.DEFINE {
			if id, ok := x.Key.(*ast.Ident); ok {
				declare(id)
			}
			if id, ok := x.Value.(*ast.Ident); ok {
				declare(id)
			}
		}
		if id, ok := x.Value.(*ast.Ident); ok {
			c.ranges[c.resolve(id, scopes)] = x.X
		}
	case *ast.Ident:
		k := c.resolve(x, scopes)
		c.uses[k] = append(c.uses[k], x)
	}
}

// resolve gives the key of an identifier: its declaration's, else its name.
func (c *fnCtx) resolve(id *ast.Ident, scopes []map[string]string) string {
	if k, ok := c.idKey[id]; ok {
		return k
	}
	for i := len(scopes) - 1; i >= 0; i-- {
		if k, ok := scopes[i][id.Name]; ok {
			c.idKey[id] = k
			return k
		}
	}
	c.idKey[id] = id.Name
	return id.Name
}

// keyOf gives the variable key of an identifier.
func (c *fnCtx) keyOf(id *ast.Ident) string {
	if k, ok := c.idKey[id]; ok {
		return k
	}
	return id.Name
}

// bind computes the bindings of the variables, to a fixed point.
func (c *fnCtx) bind() {
	for _, name := range sortedKeysOf(c.declType) {
		t := c.declType[name]
		if ls := localStruct(c.m.modelPkg, t); ls != "" && isModel(c.m.modelPkg, ls) && len(c.env[name]) == 0 {
			c.env[name] = []binding{{model: ls}}
		}
	}
	for round := 0; round < 3; round++ {
		for _, name := range sortedKeysOf(c.defs) {
			for _, d := range c.defs[name] {
				c.env[name] = mergeBindings(c.env[name], c.sources(d))
			}
		}
		for _, name := range sortedKeysOf(c.ranges) {
			c.env[name] = mergeBindings(c.env[name], c.sources(c.ranges[name]))
		}
	}
}

// maxBindings bounds the bindings of one variable: a variable that derives
// from more attributes than this is a loop variable of generic code.
const maxBindings = 16

func mergeBindings(a, b []binding) []binding {
	for _, x := range b {
		if len(a) >= maxBindings {
			break
		}
		found := false
		for _, y := range a {
			found = found || x == y
		}
		if !found {
			a = append(a, x)
		}
	}
	return a
}

// walk maps the fields of SDK literals, the assignments to SDK fields and
// the calls to provider functions.
func (c *fnCtx) walk(body ast.Node) {
	ast.Inspect(body, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.CallExpr:
			if fn, ok := x.Fun.(*ast.Ident); ok && newID.MatchString(fn.Name) || isSelNamed(x.Fun, newID) {
				for _, a := range x.Args {
					for _, b := range c.sources(a) {
						c.m.idAttrs[b.attr] = true
					}
				}
			}
		case *ast.CompositeLit:
			c.literal(x)
		case *ast.AssignStmt:
			if len(x.Lhs) == len(x.Rhs) {
				for i, lhs := range x.Lhs {
					if _, ok := lhs.(*ast.SelectorExpr); ok {
						if at := c.selLoc(lhs); at != nil {
							c.place(x.Rhs[i], *at)
						}
					}
				}
			}
		}
		return true
	})
	ast.Inspect(body, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok && !c.done[call] {
			if fd := c.local(call); fd != nil {
				c.descend(call, fd, c.placeLoc(call))
			}
		}
		return true
	})
}

func isSelNamed(e ast.Expr, re *regexp.Regexp) bool {
	sel, ok := e.(*ast.SelectorExpr)
	return ok && re.MatchString(sel.Sel.Name)
}

// literal maps the fields of an SDK struct literal.
func (c *fnCtx) literal(lit *ast.CompositeLit) {
	t, ok := c.litType(lit)
	if !ok || t.suffix != "" {
		return
	}
	at := c.litLoc(lit)
	if at == nil {
		return
	}
	for _, el := range lit.Elts {
		kv, ok := el.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		k, _ := kv.Key.(*ast.Ident)
		if k == nil {
			continue
		}
		if fl, ok := c.m.s.field(*at, k.Name); ok {
			c.place(kv.Value, fl)
		}
	}
}

// place maps the attributes a value derives from to a location and
// follows the provider functions that compute it.
func (c *fnCtx) place(v ast.Expr, at loc) {
	for _, b := range c.sources(v) {
		if b.attr == "" {
			continue
		}
		if c.m.paths[b.attr] == nil {
			c.m.paths[b.attr] = map[string]bool{}
		}
		c.m.paths[b.attr][at.path] = true
	}
	call, ok := unparen(v).(*ast.CallExpr)
	if !ok {
		return
	}
	if fd := c.local(call); fd != nil {
		c.descend(call, fd, &at)
		return
	}
	for _, a := range call.Args {
		if inner, ok := unparen(a).(*ast.CallExpr); ok {
			if fd := c.local(inner); fd != nil {
				c.descend(inner, fd, &at)
			}
		}
	}
}

// local resolves a call to a function of the provider (not vendored).
func (c *fnCtx) local(call *ast.CallExpr) *funcDecl {
	fd := c.m.l.resolveFunc(call.Fun, c.f, c.recv)
	if fd == nil || !strings.HasPrefix(fd.file.rel, "internal/") {
		return nil
	}
	return fd
}

// descend follows a provider function called with the caller's bindings.
func (c *fnCtx) descend(call *ast.CallExpr, fd *funcDecl, at *loc) {
	c.done[call] = true
	args := make([][]binding, len(call.Args))
	sig := ""
	for i, a := range call.Args {
		args[i] = c.sources(a)
		sig += fmt.Sprint(args[i])
	}
	if at == nil && fd.decl.Type.Results != nil && len(fd.decl.Type.Results.List) > 0 {
		t := c.m.s.trefOf(fd.decl.Type.Results.List[0].Type, fd.file)
		if isSDK(t.dir) {
			if l, ok := c.m.graph.unique(t); ok {
				at = &l
			}
		}
	}
	key := fmt.Sprintf("%p %s", fd, sig)
	if at != nil {
		key += " " + at.path
	}
	if c.m.visited[key] {
		return
	}
	c.m.visited[key] = true
	c.m.analyze(fd, args, at)
}

func sortedKeysOf[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
