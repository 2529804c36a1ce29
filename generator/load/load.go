package load

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/go-openapi/loads"
	"github.com/go-openapi/spec"
)

// Document is one loaded swagger file.
type Document struct {
	// Path is the file's path relative to the spec root, slash-separated.
	Path string
	// Swagger is the parsed document. It is never modified after loading.
	Swagger *spec.Swagger
}

// Loader reads swagger files below a root folder and resolves references
// between them. A Loader is not safe for concurrent use.
type Loader struct {
	root     string
	docs     map[string]*Document
	order    []string
	plain    map[string][]Property
	full     map[string][]Property
	busy     map[string]bool
	subtypes map[string][]Schema
	// files are whole-file schema targets ($ref without #fragment).
	files map[string]*spec.Schema
}

// New returns a Loader that reads files relative to root.
func New(root string) *Loader {
	return &Loader{
		root:     root,
		docs:     map[string]*Document{},
		plain:    map[string][]Property{},
		full:     map[string][]Property{},
		busy:     map[string]bool{},
		subtypes: map[string][]Schema{},
		files:    map[string]*spec.Schema{},
	}
}

// Root is the folder file paths are relative to.
func (l *Loader) Root() string { return l.root }

// Documents returns every loaded document, in load order.
func (l *Loader) Documents() []*Document {
	out := make([]*Document, 0, len(l.order))
	for _, p := range l.order {
		out = append(out, l.docs[p])
	}
	return out
}

// Document returns a loaded document by its root-relative path, or nil.
func (l *Loader) Document(rel string) *Document { return l.docs[cleanRel(rel)] }

// crossFileRef finds `"$ref": "other.json#/..."` values: schema references
// into other files. x-ms-examples references have no fragment and are not
// followed.
var crossFileRef = regexp.MustCompile(`"\$ref"\s*:\s*"([^"#]+)#[^"]*"`)

// Load reads a swagger file (relative to the root) and, first, every file it
// references, transitively. Loading a file twice returns the cached document.
func (l *Loader) Load(rel string) (*Document, error) {
	rel = cleanRel(rel)
	if d, ok := l.docs[rel]; ok {
		return d, nil
	}
	abs := filepath.Join(l.root, filepath.FromSlash(rel))
	raw, err := loads.JSONDoc(abs)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, &Error{Origin: Origin{File: rel}, Msg: "file not found below spec root " + l.root}
		}
		return nil, &Error{Origin: Origin{File: rel}, Msg: "cannot read", Err: err}
	}
	sw := new(spec.Swagger)
	if err := json.Unmarshal(raw, sw); err != nil {
		return nil, &Error{Origin: Origin{File: rel}, Msg: jsonErrorMessage(raw, err)}
	}
	if sw.Swagger != "2.0" {
		return nil, &Error{Origin: Origin{File: rel, Pointer: "/swagger"}, Msg: fmt.Sprintf("swagger version %q is not supported (want \"2.0\")", sw.Swagger)}
	}
	d := &Document{Path: rel, Swagger: sw}
	l.docs[rel] = d
	l.order = append(l.order, rel)

	// Load the closure first, so that subtypes declared in referenced
	// files are known before anything is asked of this one.
	seen := map[string]bool{}
	for _, m := range crossFileRef.FindAllSubmatch(raw, -1) {
		target := cleanRel(path.Join(path.Dir(rel), string(m[1])))
		if seen[target] {
			continue
		}
		seen[target] = true
		if _, err := l.Load(target); err != nil {
			var le *Error
			if errors.As(err, &le) && le.Pointer == "" && le.File == target {
				return nil, &Error{Origin: Origin{File: rel}, Msg: fmt.Sprintf("references %s", m[1]), Err: err}
			}
			return nil, err
		}
	}
	l.indexSubtypes(d)
	return d, nil
}

// indexSubtypes records, for every definition that names a parent in allOf,
// the parent → child edge, so a discriminated base can list its subtypes.
func (l *Loader) indexSubtypes(d *Document) {
	names := make([]string, 0, len(d.Swagger.Definitions))
	for n := range d.Swagger.Definitions {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		def := d.Swagger.Definitions[n]
		child := Schema{Schema: &def, Origin: Origin{File: d.Path, Pointer: "/definitions/" + escape(n)}, Name: n}
		for i, a := range def.AllOf {
			if a.Ref.String() == "" {
				continue
			}
			parent, err := l.Deref(Schema{Schema: &def.AllOf[i], Origin: child.Origin.Child("allOf", fmt.Sprint(i))})
			if err != nil {
				continue // reported when the schema is walked
			}
			key := parent.Origin.String()
			l.subtypes[key] = append(l.subtypes[key], child)
		}
	}
}

func cleanRel(p string) string {
	p = path.Clean(filepath.ToSlash(p))
	return strings.TrimPrefix(p, "./")
}

// jsonErrorMessage turns an encoding/json error into a message with a line
// and column.
func jsonErrorMessage(raw []byte, err error) string {
	var off int64 = -1
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	}
	if off < 0 || off > int64(len(raw)) {
		return "invalid JSON: " + err.Error()
	}
	line := bytes.Count(raw[:off], []byte("\n")) + 1
	col := off - int64(bytes.LastIndexByte(raw[:off], '\n'))
	return fmt.Sprintf("invalid JSON at line %d, column %d: %v", line, col, err)
}
