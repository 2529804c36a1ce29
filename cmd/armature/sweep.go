package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/armature-dev/armature/generator/facts"
	"github.com/armature-dev/armature/generator/sweep"
)

const sweepUsage = `usage: armature sweep [--json FILE] [--markdown FILE] [--min-clean R] [--min-examples R]
                      [--all-versions] [-j N] [--module-root DIR] [--keep] [--no-build] DIR

DIR is a spec root holding specification/… (hack/corpus.sh prints one). Every
newest stable api-version folder of a provider (every one with --all-versions)
is generated into a temporary Go module, the Go is compiled, and every
x-ms-examples PUT body is checked against the CRDs. One line per folder, then
the totals; docs/sweep.md explains the figures and the skip categories.
`

func runSweep(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("sweep", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, sweepUsage); fs.PrintDefaults() }
	jsonOut := fs.String("json", "", "write every folder's record to this JSON file")
	mdOut := fs.String("markdown", "", "write the scoreboard (docs/coverage.md) to this file")
	minClean := fs.Float64("min-clean", 0, "exit 1 when fewer than this share of folders are clean (0 to 1)")
	minExamples := fs.Float64("min-examples", 0, "exit 1 when fewer than this share of examples are accepted (0 to 1)")
	all := fs.Bool("all-versions", false, "sweep every stable api-version, not only the newest per provider folder")
	jobs := fs.Int("j", runtime.GOMAXPROCS(0), "folders processed at once")
	moduleRoot := fs.String("module-root", "", "the armature module the generated code compiles against (default: the module of the working directory, else the one this binary was built from)")
	keep := fs.Bool("keep", false, "keep the temporary module with the generated code (its folder is printed)")
	domain := fs.String("domain", "", "API group suffix (default azure.armature.dev)")
	noBuild := fs.Bool("no-build", false, "do not compile the generated Go (the last line then says build: skipped)")
	memLimit := fs.Int("memory-limit", 768, "soft limit of the Go heap in MiB, as GOMEMLIMIT (0: none; GOMEMLIMIT, when set, wins)")
	rest, err := parse(fs, args)
	if err != nil {
		return usageError{err}
	}
	if len(rest) != 1 {
		fs.Usage()
		return usageError{fmt.Errorf("sweep takes one DIR, got %d arguments", len(rest))}
	}
	for name, r := range map[string]float64{"--min-clean": *minClean, "--min-examples": *minExamples} {
		if r < 0 || r > 1 {
			return usageError{fmt.Errorf("%s %v: want a share from 0 to 1", name, r)}
		}
	}
	if *jobs < 1 {
		return usageError{fmt.Errorf("-j %d: want at least 1", *jobs)}
	}
	mod, err := sweep.ModuleRoot(*moduleRoot)
	if err != nil {
		return err
	}
	if *memLimit > 0 && os.Getenv("GOMEMLIMIT") == "" {
		// The GC works harder near the limit instead of letting the heap
		// double over what the two largest folders in flight hold.
		debug.SetMemoryLimit(int64(*memLimit) << 20)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()

	bar := newSweepBar(stdout, stderr)
	opts := sweep.Options{Root: rest[0], AllVersions: *all, Jobs: *jobs, ModuleRoot: mod, Keep: *keep, NoBuild: *noBuild, Domain: *domain, Events: bar.event}
	// The repository's facts table, as generate reads it.
	if f := filepath.Join(mod, defaultFacts); exists(f) {
		if opts.Facts, err = facts.Load(f); err != nil {
			return err
		}
	}
	res, err := sweep.Run(ctx, opts)
	bar.clear()
	if err != nil {
		return err
	}
	s := res.Summary
	if *keep {
		fmt.Fprintf(stdout, "generated code kept in %s\n", res.Module)
	}
	printBuild(stdout, res)
	fmt.Fprintf(stdout, "time %s with -j %d; stages summed over folders: %s\n", s.Wall.Round(time.Second), s.Jobs, s.Stages)
	fmt.Fprintf(stdout, "peak RSS %s (VmHWM of the sweep process; go list and the compiler run as child processes)\n", mib(s.PeakRSS))
	fmt.Fprintln(stdout, s.Line())
	if *jsonOut != "" {
		if err := writeFileWith(*jsonOut, func(w io.Writer) error { return sweep.WriteJSON(w, res) }); err != nil {
			return err
		}
	}
	if *mdOut != "" {
		if err := writeFileWith(*mdOut, func(w io.Writer) error { return sweep.WriteMarkdown(w, res, filepath.Base(filepath.Clean(rest[0]))) }); err != nil {
			return err
		}
	}
	if s.BuildError != "" {
		return fmt.Errorf("the build failed outside any folder's code:\n%s", s.BuildError)
	}
	return s.Check(*minClean, *minExamples)
}

// printBuild says how the build went, with the first error of every folder
// it failed for.
func printBuild(w io.Writer, res *sweep.Result) {
	var failed []string
	for _, r := range res.Records {
		if r.Build != sweep.BuildFailed {
			continue
		}
		first := ""
		for _, p := range r.Problems {
			if p.Stage == sweep.StageBuild {
				first = p.Where + ": " + p.Message
				break
			}
		}
		failed = append(failed, fmt.Sprintf("  %s %s: %s", r.Name, r.APIVersion, first))
	}
	s := res.Summary
	switch {
	case s.Build == "skipped":
	case len(failed) > 0:
		sort.Strings(failed)
		fmt.Fprintf(w, "build: FAILED for %d folders (%s):\n%s\n", len(failed), s.Stages.Build.Round(time.Second), strings.Join(failed, "\n"))
	case s.BuildError != "":
		fmt.Fprintf(w, "build: FAILED (%s), outside any folder's code\n", s.Stages.Build.Round(time.Second))
	default:
		fmt.Fprintf(w, "build: ok (%s)\n", s.Stages.Build.Round(time.Second))
	}
}

func mib(n int64) string {
	if n == 0 {
		return "unknown"
	}
	return fmt.Sprintf("%d MiB", n>>20)
}

// writeFileWith writes a file through a temporary one and a rename.
func writeFileWith(name string, write func(io.Writer) error) error {
	if dir := filepath.Dir(name); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	f, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Chmod(f.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(f.Name(), name)
}

// sweepBar prints a folder's line when it is done and, on a terminal, keeps
// a progress bar under the lines.
type sweepBar struct {
	out, tty io.Writer // tty is nil when stderr is not a terminal
	running  map[string]time.Time
	done     int
	total    int
	start    time.Time
	building bool
}

func newSweepBar(stdout, stderr io.Writer) *sweepBar {
	b := &sweepBar{out: stdout, running: map[string]time.Time{}, start: time.Now()}
	if f, ok := stderr.(*os.File); ok && term.IsTerminal(int(f.Fd())) && os.Getenv("CI") == "" {
		b.tty = stderr
	}
	return b
}

func (b *sweepBar) event(e sweep.Event) {
	b.total = e.Total
	switch e.Kind {
	case sweep.FolderStarted:
		b.running[e.Folder.Name+" "+e.Folder.APIVersion] = time.Now()
	case sweep.FolderDone:
		delete(b.running, e.Folder.Name+" "+e.Folder.APIVersion)
		b.done = e.Done
		b.clear()
		fmt.Fprintf(b.out, "[%*d/%d] %s\n", len(fmt.Sprint(e.Total)), e.Done, e.Total, e.Record.Line())
	case sweep.BuildStarted:
		b.building = true
		if b.tty == nil {
			fmt.Fprintf(b.out, "compiling the generated Go of %d folders (go build ./...)\n", e.Total)
		}
	case sweep.BuildDone:
		b.building = false
	}
	b.draw()
}

func (b *sweepBar) clear() {
	if b.tty != nil {
		fmt.Fprint(b.tty, "\r\033[K")
	}
}

func (b *sweepBar) draw() {
	if b.tty == nil || b.total == 0 {
		return
	}
	const width = 30
	n := width * b.done / b.total
	elapsed := time.Since(b.start).Round(time.Second)
	if b.building {
		fmt.Fprintf(b.tty, "\r\033[K[%s] %d/%d folders, compiling the generated Go… %s", strings.Repeat("=", width), b.done, b.total, elapsed)
		return
	}
	names := make([]string, 0, len(b.running))
	for name := range b.running {
		names = append(names, name)
	}
	sort.Strings(names)
	line := fmt.Sprintf("\r\033[K[%s%s] %d/%d folders %s  %s", strings.Repeat("=", n), strings.Repeat(" ", width-n), b.done, b.total, elapsed, strings.Join(names, ", "))
	if w, _, err := term.GetSize(int(b.tty.(*os.File).Fd())); err == nil && w > 10 && len(line) > w+4 {
		line = line[:w+4-1] + "…"
	}
	fmt.Fprint(b.tty, line)
}

// exists reports whether a file exists.
func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
