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
                      [--all-versions] [-j N] [--module-root DIR] [--keep] [--no-build]
                      [--curated DIR] [--recordings DIRS] DIR

DIR is a spec root holding specification/… (hack/corpus.sh prints one). Every
newest stable api-version folder of a provider (every one with --all-versions)
is generated into a temporary Go module, the Go is compiled, and every
x-ms-examples PUT body is checked against the CRDs. One line per folder, then
the totals; docs/sweep.md explains the figures and the skip categories. Each
kind gets its tier (curated: generated/apis has its group and kind; else the
generated tier) and its evidence (docs/tiers.md).
`

// sweepFlags are the flags `armature sweep` and `armature tier` share.
type sweepFlags struct {
	jsonOut, mdOut   string
	jobs             int
	moduleRoot       string
	domain           string
	memLimit         int
	curated          string
	recordings       string
	minClean, minExs float64
}

func (f *sweepFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.jsonOut, "json", "", "write every folder's record to this JSON file")
	fs.StringVar(&f.mdOut, "markdown", "", "write the scoreboard (docs/coverage.md) to this file")
	fs.Float64Var(&f.minClean, "min-clean", 0, "exit 1 when fewer than this share of folders are clean (0 to 1)")
	fs.Float64Var(&f.minExs, "min-examples", 0, "exit 1 when fewer than this share of examples are accepted (0 to 1)")
	fs.IntVar(&f.jobs, "j", runtime.GOMAXPROCS(0), "folders processed at once")
	fs.StringVar(&f.moduleRoot, "module-root", "", "the armature module the generated code compiles against (default: the module of the working directory, else the one this binary was built from)")
	fs.StringVar(&f.domain, "domain", "", "API group suffix (default azure.armature.dev)")
	fs.IntVar(&f.memLimit, "memory-limit", 768, "soft limit of the Go heap in MiB, as GOMEMLIMIT (0: none; GOMEMLIMIT, when set, wins)")
	fs.StringVar(&f.curated, "curated", "", "the curated tier's generated/apis: every kind gets its tier (default <module root>/generated/apis when it exists)")
	fs.StringVar(&f.recordings, "recordings", "", "comma-separated folders of recorded real ARM traffic, the evidence of kinds (default <module root>/test/recordings and ../shared/recordings)")
}

// check checks the values of the flags.
func (f *sweepFlags) check() error {
	for name, r := range map[string]float64{"--min-clean": f.minClean, "--min-examples": f.minExs} {
		if r < 0 || r > 1 {
			return usageError{fmt.Errorf("%s %v: want a share from 0 to 1", name, r)}
		}
	}
	if f.jobs < 1 {
		return usageError{fmt.Errorf("-j %d: want at least 1", f.jobs)}
	}
	return nil
}

// options are the sweep's options of the flags for the spec root root,
// with the module root, the repository's facts table, the curated tier and
// the recordings read. It sets the heap limit.
func (f *sweepFlags) options(root string, events func(sweep.Event)) (sweep.Options, error) {
	mod, err := sweep.ModuleRoot(f.moduleRoot)
	if err != nil {
		return sweep.Options{}, err
	}
	if f.memLimit > 0 && os.Getenv("GOMEMLIMIT") == "" {
		// The GC works harder near the limit instead of letting the heap
		// double over what the two largest folders in flight hold.
		debug.SetMemoryLimit(int64(f.memLimit) << 20)
	}
	opts := sweep.Options{Root: root, Jobs: f.jobs, ModuleRoot: mod, Domain: f.domain, Events: events}
	// The repository's facts table, as generate reads it.
	if file := filepath.Join(mod, defaultFacts); exists(file) {
		if opts.Facts, err = facts.Load(file); err != nil {
			return opts, err
		}
	}
	curated := f.curated
	if curated == "" && exists(filepath.Join(mod, "generated", "apis")) {
		curated = filepath.Join(mod, "generated", "apis")
	}
	if curated != "" {
		if opts.Curated, err = sweep.ReadCurated(curated); err != nil {
			return opts, err
		}
		dirs := []string{filepath.Join(mod, "test", "recordings"), filepath.Join(mod, "..", "shared", "recordings")}
		if f.recordings != "" {
			dirs = strings.Split(f.recordings, ",")
		}
		if opts.Recorded, err = sweep.RecordedTypes(dirs...); err != nil {
			return opts, err
		}
	}
	return opts, nil
}

// report prints the end of a sweep and writes its JSON and Markdown.
func (f *sweepFlags) report(stdout io.Writer, res *sweep.Result, root string) error {
	s := res.Summary
	printBuild(stdout, res)
	fmt.Fprintf(stdout, "time %s with -j %d; stages summed over folders: %s\n", s.Wall.Round(time.Second), s.Jobs, s.Stages)
	fmt.Fprintf(stdout, "peak RSS %s (VmHWM of the sweep process; go list and the compiler run as child processes)\n", mib(s.PeakRSS))
	if res.Tiers != nil {
		fmt.Fprintln(stdout, res.Tiers.Accounting(s.Kinds))
	}
	fmt.Fprintln(stdout, s.Line())
	if f.jsonOut != "" {
		if err := writeFileWith(f.jsonOut, func(w io.Writer) error { return sweep.WriteJSON(w, res) }); err != nil {
			return err
		}
	}
	if f.mdOut != "" {
		if err := writeFileWith(f.mdOut, func(w io.Writer) error { return sweep.WriteMarkdown(w, res, filepath.Base(filepath.Clean(root))) }); err != nil {
			return err
		}
	}
	return nil
}

func runSweep(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("sweep", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, sweepUsage); fs.PrintDefaults() }
	var f sweepFlags
	f.register(fs)
	all := fs.Bool("all-versions", false, "sweep every stable api-version, not only the newest per provider folder")
	keep := fs.Bool("keep", false, "keep the temporary module with the generated code (its folder is printed)")
	noBuild := fs.Bool("no-build", false, "do not compile the generated Go (the last line then says build: skipped)")
	rest, err := parse(fs, args)
	if err != nil {
		return usageError{err}
	}
	if len(rest) != 1 {
		fs.Usage()
		return usageError{fmt.Errorf("sweep takes one DIR, got %d arguments", len(rest))}
	}
	if err := f.check(); err != nil {
		return err
	}
	bar := newSweepBar(stdout, stderr)
	opts, err := f.options(rest[0], bar.event)
	if err != nil {
		return err
	}
	opts.AllVersions, opts.Keep, opts.NoBuild = *all, *keep, *noBuild
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	res, err := sweep.Run(ctx, opts)
	bar.clear()
	if err != nil {
		return err
	}
	if *keep {
		fmt.Fprintf(stdout, "generated code kept in %s\n", res.Module)
	}
	if err := f.report(stdout, res, rest[0]); err != nil {
		return err
	}
	if res.Summary.BuildError != "" {
		return fmt.Errorf("the build failed outside any folder's code:\n%s", res.Summary.BuildError)
	}
	return res.Summary.Check(f.minClean, f.minExs)
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
