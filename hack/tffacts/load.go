package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
)

// modulePath is the import path of the provider's own packages.
const modulePath = "github.com/hashicorp/terraform-provider-azurerm/"

// loader parses Go packages of one azurerm tree on demand and caches them.
type loader struct {
	root string
	fset *token.FileSet
	pkgs map[string]*pkg // by directory relative to root
}

// pkg is one parsed package: its files and top-level declarations.
type pkg struct {
	dir    string // relative to the azurerm root
	files  []*file
	funcs  map[string]*funcDecl // "Name" or "Recv.Name"
	types  map[string]*typeDecl
	values map[string]ast.Expr // package-level var and const values
}

// file is one parsed file and its import aliases.
type file struct {
	rel     string // relative to the azurerm root
	ast     *ast.File
	pkg     *pkg
	imports map[string]string // alias → import path
}

type funcDecl struct {
	decl *ast.FuncDecl
	file *file
}

type typeDecl struct {
	spec *ast.TypeSpec
	file *file
}

func newLoader(root string) *loader {
	return &loader{root: root, fset: token.NewFileSet(), pkgs: map[string]*pkg{}}
}

// dirOf gives the directory of an import path inside the tree, or "" when
// the package is neither the provider's nor vendored.
func (l *loader) dirOf(importPath string) string {
	if strings.HasPrefix(importPath, modulePath) {
		return strings.TrimPrefix(importPath, modulePath)
	}
	d := path.Join("vendor", importPath)
	if st, err := os.Stat(filepath.Join(l.root, d)); err == nil && st.IsDir() {
		return d
	}
	return ""
}

// load parses the non-test Go files of dir (relative to the root). A
// directory that is absent or unparsable gives an empty package.
func (l *loader) load(dir string) *pkg {
	if p, ok := l.pkgs[dir]; ok {
		return p
	}
	p := &pkg{dir: dir, funcs: map[string]*funcDecl{}, types: map[string]*typeDecl{}, values: map[string]ast.Expr{}}
	l.pkgs[dir] = p
	entries, err := os.ReadDir(filepath.Join(l.root, dir))
	if err != nil {
		return p
	}
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		rel := path.Join(dir, n)
		af, err := parser.ParseFile(l.fset, filepath.Join(l.root, rel), nil, parser.SkipObjectResolution)
		if err != nil {
			continue
		}
		f := &file{rel: rel, ast: af, pkg: p, imports: importsOf(af)}
		p.files = append(p.files, f)
		p.index(f)
	}
	return p
}

func importsOf(af *ast.File) map[string]string {
	m := map[string]string{}
	for _, is := range af.Imports {
		ip, _ := strconv.Unquote(is.Path.Value)
		alias := path.Base(ip)
		if is.Name != nil {
			alias = is.Name.Name
		} else if strings.HasPrefix(alias, "v") && len(alias) <= 3 {
			alias = path.Base(path.Dir(ip))
		}
		m[alias] = ip
	}
	return m
}

func (p *pkg) index(f *file) {
	for _, d := range f.ast.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			key := d.Name.Name
			if d.Recv != nil && len(d.Recv.List) == 1 {
				key = recvName(d.Recv.List[0].Type) + "." + key
			}
			p.funcs[key] = &funcDecl{decl: d, file: f}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					p.types[s.Name.Name] = &typeDecl{spec: s, file: f}
				case *ast.ValueSpec:
					for i, n := range s.Names {
						if i < len(s.Values) {
							p.values[n.Name] = s.Values[i]
						}
					}
				}
			}
		}
	}
}

// recvName gives the type name of a method receiver.
func recvName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return recvName(e.X)
	case *ast.Ident:
		return e.Name
	case *ast.IndexExpr:
		return recvName(e.X)
	}
	return ""
}

// line gives the line of a position.
func (l *loader) line(pos token.Pos) int { return l.fset.Position(pos).Line }

// stringValue gives the string a literal or a package-level constant holds.
func (l *loader) stringValue(e ast.Expr, f *file) (string, bool) {
	switch e := e.(type) {
	case *ast.BasicLit:
		if e.Kind == token.STRING {
			s, err := strconv.Unquote(e.Value)
			return s, err == nil
		}
	case *ast.Ident:
		if v, ok := f.pkg.values[e.Name]; ok {
			return l.stringValue(v, f)
		}
	case *ast.ParenExpr:
		return l.stringValue(e.X, f)
	}
	return "", false
}

// resolveFunc finds the declaration a call's function expression names: a
// function of the same package, a method of the receiver type recv, or a
// function of an imported package.
func (l *loader) resolveFunc(fun ast.Expr, f *file, recv string) *funcDecl {
	switch fn := fun.(type) {
	case *ast.Ident:
		return f.pkg.funcs[fn.Name]
	case *ast.IndexExpr: // generic instantiation
		return l.resolveFunc(fn.X, f, recv)
	case *ast.SelectorExpr:
		x, ok := fn.X.(*ast.Ident)
		if !ok {
			return nil
		}
		if ip, ok := f.imports[x.Name]; ok {
			if d := l.dirOf(ip); d != "" {
				return l.load(d).funcs[fn.Sel.Name]
			}
			return nil
		}
		if recv != "" {
			return f.pkg.funcs[recv+"."+fn.Sel.Name]
		}
	}
	return nil
}

// returnExprs gives the first result of every return statement of a
// function, not those of function literals inside it.
func returnExprs(body *ast.BlockStmt) []ast.Expr {
	var out []ast.Expr
	if body == nil {
		return nil
	}
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt:
			if len(n.Results) > 0 {
				out = append(out, n.Results[0])
			}
		}
		return true
	})
	return out
}

// unparen strips parentheses, & and * from an expression.
func unparen(e ast.Expr) ast.Expr {
	for {
		switch x := e.(type) {
		case *ast.ParenExpr:
			e = x.X
		case *ast.UnaryExpr:
			if x.Op != token.AND {
				return e
			}
			e = x.X
		case *ast.StarExpr:
			e = x.X
		default:
			return e
		}
	}
}
