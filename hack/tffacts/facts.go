package main

import (
	"fmt"
	"go/ast"
	"go/token"
	"sort"
	"strconv"
	"strings"
)

// skipped are attributes that are never body properties.
var skipped = map[string]bool{"name": true, "resource_group_name": true}

// readResource reads one resource into facts, or says why it cannot.
func readResource(l *loader, s *sdkIndex, p *pkg, r *resource) (*resourceFacts, *unmappedResource) {
	miss := func(reason string) (*resourceFacts, *unmappedResource) {
		return nil, &unmappedResource{Resource: r.name, File: r.file.rel, Reason: reason}
	}
	if strings.HasPrefix(r.file.rel, "internal/services/legacy/") {
		// azurerm_virtual_machine and azurerm_virtual_machine_scale_set:
		// superseded by the Linux and Windows resources, and they disagree
		// with them (a legacy scale set "updates" adminUsername in place).
		return miss("a legacy resource (internal/services/legacy), superseded by the Linux and Windows resources")
	}
	idDir, idName := l.idType(r)
	if idName == "" {
		return miss("no ParseXID call found in Delete, Read or Update")
	}
	arm := s.armTypeOf(idDir, idName)
	if arm == "" {
		return miss(fmt.Sprintf("no ARM type found for the ID type %s in %s", idName, idDir))
	}
	roots := rootsFor(l, s, r, arm)
	if len(roots) == 0 {
		return miss(fmt.Sprintf("no go-azure-sdk PUT or PATCH body for %s among the imports (another SDK?)", arm))
	}
	m := &mapper{l: l, s: s, roots: roots, graph: s.buildGraph(roots), modelPkg: p,
		paths: map[string]map[string]bool{}, read: map[string]bool{}, idAttrs: map[string]bool{}, visited: map[string]bool{}, budget: maxFollowed}
	for _, k := range []string{"Create", "Update"} {
		if fd := r.funcs[k]; fd != nil {
			m.analyze(fd, nil, nil)
		}
	}
	attrs, conds := l.schema(r)
	gated, isGated := gatedUpdates(r.funcs["Update"])
	rf := &resourceFacts{Resource: r.name, ARMType: arm, APIVersion: newestVersion(roots), File: r.file.rel,
		Facts: []fact{}, Unmapped: []unmapped{}}
	for _, a := range attrs {
		if skipped[a.name] || m.idAttrs[a.name] || (!a.optional && !a.required) {
			continue
		}
		kind, cond := factUpdatable, ""
		switch {
		case a.forceNew:
			kind = factForceNew
		case a.condition != "":
			kind, cond = factConditional, a.condition
		case conds[a.name] != "":
			kind, cond = factConditional, conds[a.name]
		}
		if top, _, _ := strings.Cut(a.name, "."); kind == factUpdatable && isGated && !gated[top] {
			rf.Unmapped = append(rf.Unmapped, unmapped{Attribute: a.name, Line: a.line,
				Reason: "not ForceNew, but Update changes only the attributes its HasChange calls name, and none names " + top})
			continue
		}
		if len(m.paths[a.name]) == 0 {
			if a.block && hasMappedChild(m, a.name) {
				continue
			}
			rf.Unmapped = append(rf.Unmapped, unmapped{Attribute: a.name, Line: a.line, Reason: reason(m, a)})
			continue
		}
		for path := range m.paths[a.name] {
			if path == "" {
				rf.Unmapped = append(rf.Unmapped, unmapped{Attribute: a.name, Line: a.line, Reason: "maps to the whole request body, not one property"})
				continue
			}
			rf.Facts = append(rf.Facts, fact{Attribute: a.name, Path: path, Fact: kind, Line: a.line, Condition: cond})
		}
	}
	sort.Slice(rf.Facts, func(i, j int) bool {
		x, y := rf.Facts[i], rf.Facts[j]
		if x.Attribute != y.Attribute {
			return x.Attribute < y.Attribute
		}
		return x.Path < y.Path
	})
	sort.Slice(rf.Unmapped, func(i, j int) bool { return rf.Unmapped[i].Attribute < rf.Unmapped[j].Attribute })
	return rf, nil
}

// gatedUpdates returns the top-level attributes an Update function's
// HasChange and HasChanges calls name, and whether it makes any: then an
// attribute none names is never sent in an update (Terraform shows a
// change and does nothing), so it is no evidence of an in-place update.
func gatedUpdates(fd *funcDecl) (map[string]bool, bool) {
	if fd == nil {
		return nil, false
	}
	named, found := map[string]bool{}, false
	ast.Inspect(fd.decl, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok || (sel.Sel.Name != "HasChange" && sel.Sel.Name != "HasChanges") {
			return true
		}
		found = true
		for _, arg := range call.Args {
			if lit, ok := arg.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if v, err := strconv.Unquote(lit.Value); err == nil {
					top, _, _ := strings.Cut(normAttr(v), ".")
					named[top] = true
				}
			}
		}
		return true
	})
	return named, found
}

func hasMappedChild(m *mapper, name string) bool {
	for a := range m.paths {
		if strings.HasPrefix(a, name+".") {
			return true
		}
	}
	return false
}

// reason says why an attribute has no path.
func reason(m *mapper, a *attribute) string {
	for i := strings.LastIndex(a.name, "."); i > 0; i = strings.LastIndex(a.name[:i], ".") {
		parent := a.name[:i]
		if ps := m.paths[parent]; len(ps) > 0 {
			return fmt.Sprintf("the block %s maps to %s, but its value is built where this attribute cannot be followed", parent, sortedKeys(ps)[0])
		}
	}
	if m.read[a.name] {
		return "read by the create/update code, but no store into an SDK model field found"
	}
	return "not read by the create/update code followed (no assignment to an SDK model found)"
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// rootsFor gives the body types for an ARM type in the SDK packages the
// resource's files import.
func rootsFor(l *loader, s *sdkIndex, r *resource, arm string) []root {
	files := map[*file]bool{r.file: true}
	for _, fd := range r.funcs {
		files[fd.file] = true
	}
	dirs := map[string]bool{}
	for f := range files {
		for _, d := range sdkDirsOf(l, f) {
			dirs[d] = true
		}
	}
	var out []root
	for _, d := range sortedKeys(dirs) {
		for _, rt := range s.rootsOf(d) {
			if strings.EqualFold(rt.armType, arm) {
				out = append(out, rt)
			}
		}
	}
	return out
}

func newestVersion(roots []root) string {
	v := ""
	for _, r := range roots {
		if av := apiVersion(r.dir); av > v {
			v = av
		}
	}
	return v
}
