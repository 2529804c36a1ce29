package emit

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/armature-dev/armature/generator/model"
)

// Options configure Emit.
type Options struct {
	// OutDir is where apis/, crds/ and docs/ are written. It should be inside
	// a Go module that requires github.com/armature-dev/armature; when it is
	// not, the Go code is compiled in a staging folder below the module of
	// the working directory and copied. Required.
	OutDir string
	// Descriptions says what to do with schema descriptions in CRDs.
	// Defaults to DescriptionsFit.
	Descriptions Descriptions
	// FullStatus keeps the whole status schema in CRDs; by default it is
	// shallow (shallowStatus): objects below status preserve unknown
	// fields.
	FullStatus bool
	// Progress, when set, is told what the stage is doing.
	Progress func(string)
	// ImportPath is the Go import path of OutDir. Defaults to the path
	// derived from the Go module that holds OutDir; when OutDir is in no
	// module and ImportPath is empty, apis/registry.go is not written.
	ImportPath string
	// Extra are more files to write, by slash path relative to OutDir
	// (e.g. samples/…). Their top folders are owned like apis/.
	Extra map[string][]byte
}

// Timings are the durations of Emit's steps.
type Timings struct {
	Go, ControllerTools, CRDs, Docs, Write time.Duration
}

// Result is what Emit wrote.
type Result struct {
	// Written and Unchanged count files; Removed are stale files deleted.
	Written, Unchanged int
	Removed            []string
	// Notes are remarks such as shortened CRD descriptions.
	Notes []string
	// Problems are CRDs that could not be written (one too large even with
	// its status not expanded); everything else was written. The caller
	// reports them with the resource's errors.
	Problems []error
	Timings  Timings
}

// CRDError is a CRD that Emit could not write; the rest of the output was
// written.
type CRDError struct {
	// File is the CRD's file name.
	File string
	Err  error
}

func (e *CRDError) Error() string { return e.Err.Error() }
func (e *CRDError) Unwrap() error { return e.Err }

// owned are the folders of OutDir that Emit owns: files in them that it did
// not write are removed.
var owned = []string{"apis", "crds", "docs"}

// Emit writes the Go packages, deepcopy, CRD YAML and docs of a model.
func Emit(m *model.Model, opts Options) (*Result, error) {
	if opts.OutDir == "" {
		return nil, errors.New("emit: OutDir is required")
	}
	if opts.Descriptions == "" {
		opts.Descriptions = DescriptionsFit
	}
	progress := opts.Progress
	if progress == nil {
		progress = func(string) {}
	}
	l, err := newLayout(opts.OutDir)
	if err != nil {
		return nil, err
	}
	if l.staged {
		defer os.RemoveAll(l.stage)
	}
	res := &Result{}

	// 1. Go types and descriptors.
	t0 := time.Now()
	progress(fmt.Sprintf("writing Go for %d packages", len(m.Packages)))
	files, byImport, err := goPackages(m, l.importBase)
	if err != nil {
		return nil, err
	}
	res.Timings.Go = time.Since(t0)

	// 2. controller-tools compiles them, so they must be on disk.
	if err := compile(m, l, files, byImport, opts.Descriptions, opts.FullStatus, progress, res); err != nil {
		return nil, err
	}

	// The registry imports the packages by their final import path.
	finalBase := opts.ImportPath
	if finalBase == "" && !l.staged {
		finalBase = l.importBase
	}
	if err := registryFiles(m, finalBase, files, res); err != nil {
		return nil, err
	}

	// 3. Docs.
	t0 = time.Now()
	docs, err := docFiles(m)
	if err != nil {
		return nil, err
	}
	for name, b := range docs {
		files[path.Join("docs", name)] = b
	}
	res.Timings.Docs = time.Since(t0)

	// 4. Everything to the output folder.
	return writeOut(l.out, files, opts.Extra, res)
}

// layout is where Emit writes: the output folder, and the staging folder
// the Go code is compiled in (the output folder itself when it is inside
// the Go module; else a folder below the module's bin/, removed at the
// end).
type layout struct {
	// out is the absolute output folder.
	out string
	// modRoot is the root folder of the Go module that compiles the code.
	modRoot string
	// stage is the folder the Go code is compiled in; staged says it is
	// not out.
	stage  string
	staged bool
	// rel is stage relative to modRoot, importBase its import path.
	rel, importBase string
}

func newLayout(outDir string) (layout, error) {
	out, err := filepath.Abs(outDir)
	if err != nil {
		return layout{}, err
	}
	modRoot, modPath, err := goModule(out)
	if err != nil {
		return layout{}, err
	}
	l := layout{out: out, modRoot: modRoot, stage: out}
	if !within(modRoot, out) {
		l.stage = filepath.Join(modRoot, "bin", fmt.Sprintf("armature-stage-%d", os.Getpid()))
		l.staged = true
	}
	if l.rel, err = filepath.Rel(modRoot, l.stage); err != nil {
		return layout{}, err
	}
	l.importBase = path.Join(modPath, filepath.ToSlash(l.rel))
	return l, nil
}

// goPackages are the Go files of m's packages by slash path relative to
// the output folder, and the folder of each package by its import path
// below importBase.
func goPackages(m *model.Model, importBase string) (files map[string][]byte, byImport map[string]string, err error) {
	files = map[string][]byte{}
	byImport = map[string]string{} // import path → folder relative to out
	for _, p := range m.Packages {
		dir := path.Join("apis", p.Short, p.Version)
		imp := path.Join(importBase, dir)
		byImport[imp] = dir
		gf, err := goFiles(p, imp)
		if err != nil {
			return nil, nil, err
		}
		for name, b := range gf {
			files[path.Join(dir, name)] = b
		}
	}
	return files, byImport, nil
}

// compile writes the Go files to the staging folder and runs
// controller-tools over them; the deepcopy files and the finished CRDs
// (finishCRD) join files. A CRD that cannot be made to fit is a problem of
// res, not an error.
func compile(m *model.Model, l layout, files map[string][]byte, byImport map[string]string, descriptions Descriptions, fullStatus bool, progress func(string), res *Result) error {
	t0 := time.Now()
	// The previous deepcopy files stay until they are replaced: type errors
	// they may cause are ignored by controller-tools, and keeping them avoids
	// rewriting unchanged files.
	if err := syncDir(l.stage, files, []string{"apis"}, res, keepDeepCopy); err != nil {
		return err
	}
	res.Timings.Write += time.Since(t0)
	if len(m.Packages) == 0 {
		return nil
	}
	t0 = time.Now()
	progress("running controller-tools (deepcopy, CRDs)")
	tools, err := runControllerTools(l.modRoot, "./"+filepath.ToSlash(filepath.Join(l.rel, "apis"))+"/...")
	if err != nil {
		return err
	}
	res.Timings.ControllerTools = time.Since(t0)
	for imp, b := range tools.DeepCopy {
		dir, ok := byImport[imp]
		if !ok {
			return fmt.Errorf("controller-tools wrote deepcopy for unexpected package %s", imp)
		}
		files[path.Join(dir, "zz_generated.deepcopy.go")] = b
	}
	t0 = time.Now()
	for name, raw := range tools.CRDs {
		b, note, err := finishCRD(name, raw, descriptions, fullStatus)
		if err != nil {
			// One CRD that cannot be made to fit leaves out that CRD
			// only: the rest of the output is still written.
			res.Problems = append(res.Problems, &CRDError{File: name, Err: err})
			continue
		}
		if note != "" {
			res.Notes = append(res.Notes, note)
		}
		files[path.Join("crds", name)] = b
	}
	res.Timings.CRDs = time.Since(t0)
	return nil
}

// registryFiles adds apis/registry.go and the packages' conversion tests,
// which import the packages by their final import path finalBase; without
// one (an output folder in no module), a note says so.
func registryFiles(m *model.Model, finalBase string, files map[string][]byte, res *Result) error {
	if len(m.Packages) == 0 {
		return nil
	}
	if finalBase == "" {
		res.Notes = append(res.Notes, "apis/registry.go not written: the output folder is in no Go module; pass --import-path")
		return nil
	}
	b, err := registryFile(m, finalBase)
	if err != nil {
		return err
	}
	files["apis/registry.go"] = b
	for _, p := range m.Packages {
		if b, ok, err := conversionTestFile(p, finalBase); err != nil {
			return err
		} else if ok {
			files[path.Join("apis", p.Short, p.Version, "zz_generated_conversion_test.go")] = b
		}
	}
	return nil
}

// writeOut writes files and extra to out: the owned folders and the top
// folders of extra are synced (syncDir). The result keeps res's notes and
// timings; its counts are of this write only.
func writeOut(out string, files, extra map[string][]byte, res *Result) (*Result, error) {
	t0 := time.Now()
	dirs := append([]string(nil), owned...)
	for name, b := range extra {
		files[name] = b
		top, _, _ := strings.Cut(name, "/")
		if !contains(dirs, top) {
			dirs = append(dirs, top)
		}
	}
	*res = Result{Notes: res.Notes, Problems: res.Problems, Timings: res.Timings}
	if err := syncDir(out, files, dirs, res, nil); err != nil {
		return nil, err
	}
	res.Timings.Write += time.Since(t0)
	return res, nil
}

// keepDeepCopy keeps, while the Go code is compiled, what is written after
// it: deepcopy and the registry.
func keepDeepCopy(rel string) bool {
	return path.Base(rel) == "zz_generated.deepcopy.go" || rel == "apis/registry.go"
}

// syncDir writes files below dir (skipping identical ones) and removes
// files in the owned folders that are not in files, unless keep says so.
func syncDir(dir string, files map[string][]byte, ownedDirs []string, res *Result, keep func(string) bool) error {
	for _, name := range slices.Sorted(maps.Keys(files)) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if old, err := os.ReadFile(p); err == nil && bytes.Equal(old, files[name]) {
			res.Unchanged++
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		tmp := p + ".tmp"
		if err := os.WriteFile(tmp, files[name], 0o644); err != nil {
			return err
		}
		if err := os.Rename(tmp, p); err != nil {
			return err
		}
		res.Written++
	}
	for _, o := range ownedDirs {
		root := filepath.Join(dir, o)
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return nil
				}
				return err
			}
			if d.IsDir() {
				return nil
			}
			rel, _ := filepath.Rel(dir, p)
			rel = filepath.ToSlash(rel)
			if _, ok := files[rel]; ok || (keep != nil && keep(rel)) {
				return nil
			}
			res.Removed = append(res.Removed, rel)
			return os.Remove(p)
		})
		if err != nil {
			return err
		}
		removeEmptyDirs(root)
	}
	return nil
}

func removeEmptyDirs(root string) {
	var dirs []string
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			dirs = append(dirs, p)
		}
		return nil
	})
	for i := len(dirs) - 1; i > 0; i-- {
		_ = os.Remove(dirs[i]) // fails unless empty
	}
}

// goModule finds the Go module that holds dir, or else the one of the
// working directory: its root folder and module path.
func goModule(dir string) (string, string, error) {
	for _, d := range []string{nearestExisting(dir), "."} {
		cmd := exec.Command("go", "env", "GOMOD")
		cmd.Dir = d
		outb, err := cmd.Output()
		if err != nil {
			continue
		}
		gomod := strings.TrimSpace(string(outb))
		if gomod == "" || gomod == os.DevNull {
			continue
		}
		data, err := os.ReadFile(gomod)
		if err != nil {
			return "", "", err
		}
		for _, line := range strings.Split(string(data), "\n") {
			if f := strings.Fields(line); len(f) >= 2 && f[0] == "module" {
				return filepath.Dir(gomod), strings.Trim(f[1], `"`), nil
			}
		}
		return "", "", fmt.Errorf("%s has no module line", gomod)
	}
	return "", "", errors.New("emit: the output folder is not in a Go module, and neither is the working directory; run armature inside a module that requires github.com/armature-dev/armature")
}

func nearestExisting(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			return d
		}
		if filepath.Dir(d) == d {
			return d
		}
	}
}

func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
