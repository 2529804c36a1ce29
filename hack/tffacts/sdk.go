package main

import (
	"go/ast"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// sdkPrefix is where the vendored go-azure-sdk model packages live.
const sdkPrefix = "vendor/github.com/hashicorp/go-azure-sdk/resource-manager/"

// tref is a Go type seen from a JSON location: suffix is the array ("[*]")
// and map (".*") layers between the location and the named type dir.name.
type tref struct {
	dir, name, suffix string
}

// loc is a JSON location in a request body and the Go type held there.
type loc struct {
	path string
	t    tref
}

// sdkField is one JSON member of an SDK struct.
type sdkField struct {
	json string
	t    tref
}

// root is a PUT or PATCH body type of an SDK package and its ARM type.
type root struct {
	dir, name, armType string
}

// sdkIndex answers questions about vendored SDK packages, with caches.
type sdkIndex struct {
	l       *loader
	structs map[string]map[string]sdkField // dir.name → Go field → member
	arm     map[string]string              // dir.name of an ID type → ARM type
	roots   map[string][]root              // dir → body types
}

func newSDKIndex(l *loader) *sdkIndex {
	return &sdkIndex{l: l, structs: map[string]map[string]sdkField{}, arm: map[string]string{}, roots: map[string][]root{}}
}

// isSDK tells whether a directory is a go-azure-sdk model package.
func isSDK(dir string) bool { return strings.HasPrefix(dir, sdkPrefix) }

// apiVersion gives the api-version segment of an SDK package directory.
func apiVersion(dir string) string {
	parts := strings.Split(strings.TrimPrefix(dir, sdkPrefix), "/")
	if len(parts) >= 2 {
		return parts[1]
	}
	return ""
}

// trefOf turns a field type of a file into a tref.
func (s *sdkIndex) trefOf(e ast.Expr, f *file) tref {
	suffix := ""
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
			continue
		case *ast.ArrayType:
			suffix += "[*]"
			e = x.Elt
			continue
		case *ast.MapType:
			suffix += ".*"
			e = x.Value
			continue
		case *ast.Ident:
			return tref{dir: f.pkg.dir, name: x.Name, suffix: suffix}
		case *ast.SelectorExpr:
			if id, ok := x.X.(*ast.Ident); ok {
				return tref{dir: s.l.dirOf(f.imports[id.Name]), name: x.Sel.Name, suffix: suffix}
			}
		}
		return tref{suffix: suffix}
	}
}

// fields gives the JSON members of an SDK struct, or nil.
func (s *sdkIndex) fields(dir, name string) map[string]sdkField {
	key := dir + "." + name
	if m, ok := s.structs[key]; ok {
		return m
	}
	var m map[string]sdkField
	if td := s.l.load(dir).types[name]; td != nil {
		if st, ok := td.spec.Type.(*ast.StructType); ok {
			m = map[string]sdkField{}
			for _, fl := range st.Fields.List {
				if fl.Tag == nil || len(fl.Names) == 0 {
					continue
				}
				tag, _ := strconv.Unquote(fl.Tag.Value)
				j := strings.Split(reflect.StructTag(tag).Get("json"), ",")[0]
				if j == "" || j == "-" {
					continue
				}
				for _, n := range fl.Names {
					m[n.Name] = sdkField{json: j, t: s.trefOf(fl.Type, td.file)}
				}
			}
		}
	}
	s.structs[key] = m
	return m
}

// field gives the location of a struct field below a location.
func (s *sdkIndex) field(at loc, goName string) (loc, bool) {
	if at.t.suffix != "" {
		return loc{}, false
	}
	fd, ok := s.fields(at.t.dir, at.t.name)[goName]
	if !ok {
		return loc{}, false
	}
	p := fd.json
	if at.path != "" {
		p = at.path + "." + fd.json
	}
	return loc{path: p, t: fd.t}, true
}

// elem gives the location of the items of an array or map location.
func elem(at loc) (loc, bool) {
	for _, l := range []string{"[*]", ".*"} {
		if strings.HasPrefix(at.t.suffix, l) {
			t := at.t
			t.suffix = strings.TrimPrefix(t.suffix, l)
			return loc{path: at.path + l, t: t}, true
		}
	}
	return loc{}, false
}

var segmentCall = regexp.MustCompile(`^(ResourceProviderSegment|StaticSegment)$`)

// armTypeOf gives the ARM type of a resource ID type, from its Segments()
// (go-azure-sdk, commonids) or the format string of its ID() (older
// hand-written parse packages).
func (s *sdkIndex) armTypeOf(dir, name string) string {
	key := dir + "." + name
	if t, ok := s.arm[key]; ok {
		return t
	}
	p := s.l.load(dir)
	t := ""
	if fd := p.funcs[name+".Segments"]; fd != nil {
		t = s.segmentsType(fd)
	} else if fd := p.funcs[name+".ID"]; fd != nil {
		t = s.formatType(fd)
	}
	s.arm[key] = t
	return t
}

func (s *sdkIndex) segmentsType(fd *funcDecl) string {
	var provider string
	var types []string
	ast.Inspect(fd.decl.Body, func(n ast.Node) bool {
		c, ok := n.(*ast.CallExpr)
		if !ok || len(c.Args) < 2 {
			return true
		}
		sel, ok := c.Fun.(*ast.SelectorExpr)
		if !ok || !segmentCall.MatchString(sel.Sel.Name) {
			return true
		}
		v, _ := s.l.stringValue(c.Args[1], fd.file)
		if sel.Sel.Name == "ResourceProviderSegment" {
			provider, types = v, nil
		} else if provider != "" {
			types = append(types, v)
		}
		return true
	})
	if provider == "" || len(types) == 0 {
		return ""
	}
	return provider + "/" + strings.Join(types, "/")
}

func (s *sdkIndex) formatType(fd *funcDecl) string {
	t := ""
	ast.Inspect(fd.decl.Body, func(n ast.Node) bool {
		if v, ok := n.(*ast.BasicLit); ok && t == "" {
			str, _ := s.l.stringValue(v, fd.file)
			i := strings.LastIndex(str, "/providers/")
			if i < 0 {
				return true
			}
			parts := strings.Split(str[i+len("/providers/"):], "/")
			if len(parts) < 3 || !strings.Contains(parts[0], ".") {
				return true
			}
			types := []string{parts[0]}
			for j := 1; j+1 < len(parts); j += 2 {
				types = append(types, parts[j])
			}
			t = strings.Join(types, "/")
		}
		return true
	})
	return t
}

// rootsOf gives the PUT and PATCH body types of an SDK package.
func (s *sdkIndex) rootsOf(dir string) []root {
	if r, ok := s.roots[dir]; ok {
		return r
	}
	var out []root
	seen := map[string]bool{}
	p := s.l.load(dir)
	keys := make([]string, 0, len(p.funcs))
	for k := range p.funcs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fd := p.funcs[k]
		if fd.decl.Recv == nil || !putOrPatch(fd.decl.Body) {
			continue
		}
		var in, id ast.Expr
		for _, fl := range fd.decl.Type.Params.List {
			for _, n := range fl.Names {
				switch n.Name {
				case "input":
					in = fl.Type
				case "id":
					id = fl.Type
				}
			}
		}
		bt, ok := in.(*ast.Ident)
		if !ok || id == nil || seen[bt.Name] {
			continue
		}
		it := s.trefOf(id, fd.file)
		if at := s.armTypeOf(it.dir, it.name); at != "" {
			seen[bt.Name] = true
			out = append(out, root{dir: dir, name: bt.Name, armType: at})
		}
	}
	s.roots[dir] = out
	return out
}

// putOrPatch tells whether a client method sends PUT or PATCH.
func putOrPatch(body *ast.BlockStmt) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok && (sel.Sel.Name == "MethodPut" || sel.Sel.Name == "MethodPatch") {
			found = true
		}
		return !found
	})
	return found
}

// typeGraph holds, per SDK type, up to two distinct paths from the roots.
type typeGraph map[string][]string

// buildGraph walks the struct fields from the roots, breadth first, never
// through a type twice on one path.
func (s *sdkIndex) buildGraph(roots []root) typeGraph {
	type item struct {
		at   loc
		seen []string
	}
	g := typeGraph{}
	var queue []item
	for _, r := range roots {
		queue = append(queue, item{at: loc{t: tref{dir: r.dir, name: r.name}}})
	}
	for len(queue) > 0 {
		it := queue[0]
		queue = queue[1:]
		key := it.at.t.dir + "." + it.at.t.name
		if !addPath(g, key, it.at.path) {
			continue
		}
		seen := append(append([]string(nil), it.seen...), key)
		fs := s.fields(it.at.t.dir, it.at.t.name)
		names := make([]string, 0, len(fs))
		for n := range fs {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			fl, _ := s.field(it.at, n)
			fl.path += fl.t.suffix
			fl.t.suffix = ""
			if fl.t.dir != it.at.t.dir || contains(seen, fl.t.dir+"."+fl.t.name) || len(seen) > 12 {
				continue
			}
			queue = append(queue, item{at: fl, seen: seen})
		}
	}
	return g
}

// addPath records a path of a type; it tells whether the path is new and
// the type had fewer than two paths.
func addPath(g typeGraph, key, p string) bool {
	ps := g[key]
	if len(ps) >= 2 || contains(ps, p) {
		return false
	}
	g[key] = append(ps, p)
	return true
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// unique gives the one location of a type in the graph.
func (g typeGraph) unique(t tref) (loc, bool) {
	ps := g[t.dir+"."+t.name]
	if len(ps) != 1 || t.suffix != "" {
		return loc{}, false
	}
	return loc{path: ps[0], t: t}, true
}

// sdkDirsOf gives the SDK packages a file imports.
func sdkDirsOf(l *loader, f *file) []string {
	var out []string
	for _, ip := range f.imports {
		if d := l.dirOf(ip); isSDK(d) {
			out = append(out, d)
		}
	}
	sort.Strings(out)
	return out
}
