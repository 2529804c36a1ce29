package sweep

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
)

// ModulePath is the Go module the generated code imports (runtime/descriptor
// and the API types of the operator).
const ModulePath = "github.com/armature-dev/armature"

// tempModulePath is the module path of the temporary module: the generated
// packages of folder X are tempModulePath/X/apis/….
const tempModulePath = "armature.sweep/out"

// ModuleRoot returns the folder of the armature module that the generated
// code is compiled against. The first of these that holds a go.mod of
// ModulePath wins:
//
//  1. explicit (the --module-root flag), which must be one;
//  2. the module of the working directory (`go env GOMOD`): a checkout, as
//     under `make sweep` and `go run ./cmd/armature`;
//  3. the module this package was compiled from (its source path, recorded
//     in the binary unless it was built with -trimpath);
//  4. the module cache copy of the version in the binary's build info
//     (`go install github.com/armature-dev/armature/cmd/armature@v…`).
func ModuleRoot(explicit string) (string, error) {
	if explicit != "" {
		abs, err := filepath.Abs(explicit)
		if err != nil {
			return "", err
		}
		if err := isArmatureModule(abs); err != nil {
			return "", fmt.Errorf("--module-root %s: %w", explicit, err)
		}
		return abs, nil
	}
	var candidates []string
	if out, err := exec.Command("go", "env", "GOMOD").Output(); err == nil {
		if gomod := strings.TrimSpace(string(out)); gomod != "" && gomod != os.DevNull {
			candidates = append(candidates, filepath.Dir(gomod))
		}
	}
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		candidates = append(candidates, filepath.Join(filepath.Dir(file), "..", ".."))
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Path == ModulePath && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		if out, err := exec.Command("go", "env", "GOMODCACHE").Output(); err == nil {
			candidates = append(candidates, filepath.Join(strings.TrimSpace(string(out)), "github.com", "armature-dev", "armature@"+bi.Main.Version))
		}
	}
	for _, c := range candidates {
		if isArmatureModule(c) == nil {
			return filepath.Clean(c), nil
		}
	}
	return "", errors.New("cannot find the armature module the generated code imports: run in a checkout of " + ModulePath + " or pass --module-root")
}

// isArmatureModule checks that dir holds the go.mod of ModulePath.
func isArmatureModule(dir string) error {
	data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return err
	}
	if p := modulePath(data); p != ModulePath {
		return fmt.Errorf("go.mod is module %q, not %s", p, ModulePath)
	}
	return nil
}

func modulePath(gomod []byte) string {
	for _, line := range strings.Split(string(gomod), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "module" {
			return strings.Trim(f[1], `"`)
		}
	}
	return ""
}

// writeModule makes dir a temporary Go module, modulePath, that requires
// the armature module at root (through a replace directive) with the same
// dependency versions: armature's go.mod minus its module line, relative
// replace paths made absolute, and its go.sum.
func writeModule(dir, root, modulePath string) error {
	return writeGoMod(dir, root, modulePath, "// The generated packages of `armature sweep`; a temporary module.\n", false)
}

// WriteModule makes dir, a lasting folder such as the generated tier's
// tier/, the Go module modulePath that requires the armature module at
// root with the same dependency versions, as the temporary module of a
// sweep does; the replace directives point at root relative to dir when
// dir is below root (`=> ../`), so the files do not name this machine's
// folders. The go.mod and go.sum it writes are armature's, rewritten: run
// it again when armature's change.
func WriteModule(dir, root, modulePath string) error {
	return writeGoMod(dir, root, modulePath, "// The generated tier (docs/tiers.md): written by `armature tier` (make crds) from\n// the go.mod of github.com/armature-dev/armature; edit that one.\n", true)
}

// writeGoMod writes go.mod and go.sum of dir; with relative, root is
// named relative to dir when dir is below it.
func writeGoMod(dir, root, modulePath, header string, relative bool) error {
	src, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return err
	}
	target := root
	if relative {
		if up, ok := upTo(dir, root); ok {
			target = up
		}
	}
	var b bytes.Buffer
	b.WriteString(header)
	fmt.Fprintf(&b, "module %s\n", modulePath)
	sc := bufio.NewScanner(bytes.NewReader(src))
	for sc.Scan() {
		line := sc.Text()
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "module" {
			continue
		}
		if before, after, ok := strings.Cut(line, "=>"); ok {
			t := strings.Fields(after)
			if len(t) == 1 && (strings.HasPrefix(t[0], "./") || strings.HasPrefix(t[0], "../")) {
				if target == root {
					line = before + "=> " + filepath.Join(root, t[0])
				} else {
					line = before + "=> " + path.Join(target, t[0])
				}
			}
		}
		b.WriteString(line + "\n")
	}
	fmt.Fprintf(&b, "\nrequire %s v0.0.0-00010101000000-000000000000\n\nreplace %s => %s\n", ModulePath, ModulePath, target)
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), b.Bytes(), 0o644); err != nil {
		return err
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644)
}

// upTo returns root relative to dir ("../", "../../") when dir is below
// root.
func upTo(dir, root string) (string, bool) {
	rel, err := filepath.Rel(dir, root)
	if err != nil || rel == "." {
		return "", false
	}
	for _, s := range strings.Split(filepath.ToSlash(rel), "/") {
		if s != ".." {
			return "", false
		}
	}
	return filepath.ToSlash(rel) + "/", true
}

// buildFailure is one compile error of the build.
type buildFailure struct {
	pkg  string // package path relative to the module, e.g. f001_beta/apis/beta/v20240201
	line string // file:line:col: message, paths relative to the module
}

// builder builds a module of generated code.
type builder struct {
	dir, modulePath string
	// optimise keeps the go command's default compiler flags (see
	// Options.Optimise).
	optimise bool
}

// build runs `go build ./...` in the module (all the generated packages;
// dependencies come from the build cache). It returns the failures in the
// module's packages, and an error for a failure of the build as a whole
// (the go command itself, or errors in no package of the module).
func (b builder) build(ctx context.Context) ([]buildFailure, error) {
	args := []string{"build"}
	if !b.optimise {
		// Optimisation (-N -l) is off for the generated packages: it
		// decides nothing about whether they compile, and is a third of
		// the time.
		args = append(args, "-gcflags="+b.modulePath+"/...=-N -l")
	}
	cmd := exec.CommandContext(ctx, "go", append(args, "./...")...)
	cmd.Dir = b.dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=readonly")
	out, err := cmd.CombinedOutput()
	if err == nil {
		return nil, nil
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	fails, rest := parseBuildOutput(string(out), b.modulePath)
	if len(fails) == 0 {
		return nil, fmt.Errorf("go build ./... in %s: %v\n%s", b.dir, err, strings.TrimSpace(rest))
	}
	return fails, nil
}

// parseBuildOutput reads the go command's output: `# import/path` headers,
// each followed by compiler errors `rel/file.go:12:3: message`. Errors of
// packages of modulePath are failures; the rest is returned as text.
func parseBuildOutput(out, modulePath string) ([]buildFailure, string) {
	var fails []buildFailure
	var rest strings.Builder
	pkg := ""
	for _, line := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(line, "# "):
			pkg = strings.TrimPrefix(line, "# ")
			continue
		case strings.TrimSpace(line) == "":
			continue
		}
		file := strings.TrimPrefix(strings.TrimSpace(line), "./")
		if p, ok := strings.CutPrefix(pkg, modulePath+"/"); ok && !strings.HasPrefix(line, "\t") {
			fails = append(fails, buildFailure{pkg: p, line: file})
			continue
		}
		if strings.HasPrefix(line, "\t") && len(fails) > 0 && fails[len(fails)-1].pkg == strings.TrimPrefix(pkg, modulePath+"/") {
			fails[len(fails)-1].line += "\n" + strings.TrimSpace(line)
			continue
		}
		rest.WriteString(line + "\n")
	}
	sort.SliceStable(fails, func(i, j int) bool { return fails[i].pkg < fails[j].pkg })
	return fails, rest.String()
}
