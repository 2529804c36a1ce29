package sweep

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/armature-dev/armature/recording"
	"github.com/armature-dev/armature/runtime/descriptor"
)

// CuratedKind is a kind of the curated tier (generated/apis).
type CuratedKind struct {
	Group   string `json:"group"`
	Version string `json:"version"`
	Kind    string `json:"kind"`
	ARMType string `json:"armType"`
}

// GroupKind is "group/Kind".
func (c CuratedKind) GroupKind() string { return c.Group + "/" + c.Kind }

// ReadCurated reads the group, version, kind and ARM type of every
// descriptor.Descriptor variable in the descriptors.go files below dir
// (generated/apis), one per kind and version, sorted. The files are parsed
// as Go source, never imported: the generator does not import the code it
// generates.
func ReadCurated(dir string) ([]CuratedKind, error) {
	var out []CuratedKind
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != "descriptors.go" {
			return err
		}
		kinds, err := descriptorsOf(p)
		out = append(out, kinds...)
		return err
	})
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no descriptor below %s: give the curated tier's generated/apis", dir)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].GroupKind() != out[j].GroupKind() {
			return out[i].GroupKind() < out[j].GroupKind()
		}
		return out[i].Version > out[j].Version
	})
	return out, nil
}

// descriptorsOf reads the descriptor literals of one file.
func descriptorsOf(file string) ([]CuratedKind, error) {
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var out []CuratedKind
	for _, decl := range f.Decls {
		g, ok := decl.(*ast.GenDecl)
		if !ok || g.Tok != token.VAR {
			continue
		}
		for _, spec := range g.Specs {
			for _, v := range spec.(*ast.ValueSpec).Values {
				lit, ok := v.(*ast.CompositeLit)
				if !ok || !isDescriptorType(lit.Type) {
					continue
				}
				fields := map[string]string{}
				for _, e := range lit.Elts {
					kv, ok := e.(*ast.KeyValueExpr)
					if !ok {
						continue
					}
					key, _ := kv.Key.(*ast.Ident)
					val, _ := kv.Value.(*ast.BasicLit)
					if key == nil || val == nil || val.Kind != token.STRING {
						continue
					}
					if s, err := strconv.Unquote(val.Value); err == nil {
						fields[key.Name] = s
					}
				}
				k := CuratedKind{Group: fields["Group"], Version: fields["Version"], Kind: fields["Kind"], ARMType: fields["ARMType"]}
				if k.Group == "" || k.Kind == "" || k.ARMType == "" {
					return nil, fmt.Errorf("%s: a descriptor without Group, Kind or ARMType", file)
				}
				out = append(out, k)
			}
		}
	}
	return out, nil
}

// isDescriptorType matches descriptor.Descriptor.
func isDescriptorType(e ast.Expr) bool {
	sel, ok := e.(*ast.SelectorExpr)
	return ok && sel.Sel.Name == "Descriptor"
}

// newestCurated keeps one entry per group and kind: the first of the
// sorted list, its newest version.
func newestCurated(kinds []CuratedKind) []CuratedKind {
	var out []CuratedKind
	for i, k := range kinds {
		if i == 0 || k.GroupKind() != kinds[i-1].GroupKind() {
			out = append(out, k)
		}
	}
	return out
}

// RecordedTypes returns the ARM types, in lower case, of the resources
// that recorded real ARM traffic answered with a success: every request
// with a 2xx response whose path is a resource id (descriptor.TypeOf),
// in the cassettes (*.yaml, as `make conformance` reads them) of dirs.
// A folder that does not exist is skipped.
func RecordedTypes(dirs ...string) (map[string]bool, error) {
	out := map[string]bool{}
	for _, dir := range dirs {
		entries, err := os.ReadDir(dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			if e.IsDir() || !strings.HasSuffix(e.Name(), ".yaml") {
				continue
			}
			c, err := recording.LoadCassette(filepath.Join(dir, e.Name()))
			if err != nil {
				return nil, err
			}
			for _, i := range c.Interactions {
				if i.Response.Code < 200 || i.Response.Code > 299 {
					continue
				}
				if t, err := descriptor.TypeOf(i.Path()); err == nil {
					out[strings.ToLower(t)] = true
				}
			}
		}
	}
	return out, nil
}
