package sweep

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
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

// writeModule makes dir a Go module that requires the armature module at
// root (through a replace directive) with the same dependency versions:
// armature's go.mod minus its module line, relative replace paths made
// absolute, and its go.sum.
func writeModule(dir, root string) error {
	src, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return err
	}
	var b bytes.Buffer
	b.WriteString("// The generated packages of `armature sweep`; a temporary module.\n")
	fmt.Fprintf(&b, "module %s\n", tempModulePath)
	sc := bufio.NewScanner(bytes.NewReader(src))
	for sc.Scan() {
		line := sc.Text()
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "module" {
			continue
		}
		if before, after, ok := strings.Cut(line, "=>"); ok {
			target := strings.Fields(after)
			if len(target) == 1 && (strings.HasPrefix(target[0], "./") || strings.HasPrefix(target[0], "../")) {
				line = before + "=> " + filepath.Join(root, target[0])
			}
		}
		b.WriteString(line + "\n")
	}
	fmt.Fprintf(&b, "\nrequire %s v0.0.0-00010101000000-000000000000\n\nreplace %s => %s\n", ModulePath, ModulePath, root)
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), b.Bytes(), 0o644); err != nil {
		return err
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644)
}

// buildFailure is one compile error of the build, attributed to the
// output folder (of one swept folder) it belongs to.
type buildFailure struct {
	out  string // first path element below the module: the folder's output
	pkg  string // import path
	line string // file:line:col: message, paths relative to the module
}

// build runs `go build ./...` in the module dir (all the generated
// packages; dependencies come from the build cache). It returns the failures
// it could attribute to an output folder, and an error for a failure of the
// build as a whole (the go command itself, or errors in no package).
func build(ctx context.Context, dir string) ([]buildFailure, error) {
	// Optimisation (-N -l) is off for the generated packages: it decides
	// nothing about whether they compile, and is a third of the time.
	cmd := exec.CommandContext(ctx, "go", "build", "-gcflags="+tempModulePath+"/...=-N -l", "./...")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=readonly")
	out, err := cmd.CombinedOutput()
	if err == nil {
		return nil, nil
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	fails, rest := parseBuildOutput(string(out))
	if len(fails) == 0 {
		return nil, fmt.Errorf("go build ./... in %s: %v\n%s", dir, err, strings.TrimSpace(rest))
	}
	return fails, nil
}

// parseBuildOutput reads the go command's output: `# import/path` headers,
// each followed by compiler errors `rel/file.go:12:3: message`.
func parseBuildOutput(out string) ([]buildFailure, string) {
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
		if p, ok := strings.CutPrefix(pkg, tempModulePath+"/"); ok && !strings.HasPrefix(line, "\t") {
			first, _, _ := strings.Cut(p, "/")
			fails = append(fails, buildFailure{out: first, pkg: pkg, line: file})
			continue
		}
		if strings.HasPrefix(line, "\t") && len(fails) > 0 && fails[len(fails)-1].pkg == pkg {
			fails[len(fails)-1].line += "\n" + strings.TrimSpace(line)
			continue
		}
		rest.WriteString(line + "\n")
	}
	sort.SliceStable(fails, func(i, j int) bool { return fails[i].out < fails[j].out })
	return fails, rest.String()
}
