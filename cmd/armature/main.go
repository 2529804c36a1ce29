package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/armature-dev/armature/generator"
	"github.com/armature-dev/armature/generator/config"
	"github.com/armature-dev/armature/generator/emit"
	"github.com/armature-dev/armature/generator/facts"
	"github.com/armature-dev/armature/generator/inspect"
	"github.com/armature-dev/armature/generator/tree"
)

const usage = `armature turns ARM swagger into Kubernetes CRDs.

Usage:
  armature generate [flags] [FILE.json ...]   write Go types, deepcopy, CRD YAML and docs
  armature inspect  [flags] [FILE.json ...]   show the resource tree, property classes and what overrides changed;
                                              --references: the fields that hold ARM resource ids
  armature check-examples [flags] [FILE.json ...]
                                              check every x-ms-examples PUT body against the CRDs, offline
  armature diff [flags] OLD NEW               report the API changes per kind between two api-versions
                                              (OLD, NEW: a swagger file or comma-separated files; docs/api-diff.md)
  armature sweep [flags] DIR                  generate, compile and check the examples of every provider of a spec
                                              tree, one folder at a time; print the coverage (docs/sweep.md)
  armature tier [flags] DIR                   generate the generated tier (every kind the curated tier lacks) into
                                              tier/ and config/crd/generated; check it against tier/kinds.tsv
                                              (make crds, docs/tiers.md)

Without FILE arguments the files come from --config (default specs/armature.yaml), and its
include, exclude, overrides and references apply (docs/overrides.md); an entry that matches or
changes nothing is an error.
Run 'armature <command> -h' for the flags of a command.
`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "generate":
		err = runGenerate(os.Args[2:], os.Stdout, os.Stderr)
	case "inspect":
		err = runInspect(os.Args[2:], os.Stdout, os.Stderr)
	case "check-examples":
		err = runCheckExamples(os.Args[2:], os.Stdout, os.Stderr)
	case "diff":
		err = runDiff(os.Args[2:], os.Stdout, os.Stderr)
	case "sweep":
		err = runSweep(os.Args[2:], os.Stdout, os.Stderr)
	case "tier":
		err = runTier(os.Args[2:], os.Stdout, os.Stderr)
	case "-h", "--help", "help":
		fmt.Fprint(os.Stdout, usage)
		return
	default:
		fmt.Fprintf(os.Stderr, "armature: unknown command %q\n\n%s", os.Args[1], usage)
		os.Exit(2)
	}
	if code := exitCode(err); code != 0 {
		fmt.Fprintln(os.Stderr, "armature:", err)
		os.Exit(code)
	}
}

// exitCode is the exit status for a command's error: 0 for none and for
// -h/--help (the flag package has printed the usage), 2 for a usage error,
// an exitError's own code, else 1.
func exitCode(err error) int {
	var ue usageError
	var ee exitError
	switch {
	case err == nil || errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &ue):
		return 2
	case errors.As(err, &ee):
		return ee.code
	}
	return 1
}

type usageError struct{ error }

func (u usageError) Unwrap() error { return u.error }

// common are the flags both commands take.
type common struct {
	config   string
	specRoot string
	domain   string
	facts    string
}

func (c *common) register(fs *flag.FlagSet) {
	fs.StringVar(&c.config, "config", "", "generator config (default specs/armature.yaml when no FILE is given)")
	fs.StringVar(&c.specRoot, "spec-root", "", "folder swagger paths are relative to (env "+config.EnvSpecRoot+"; default "+config.DefaultSpecRoot+")")
	fs.StringVar(&c.domain, "domain", "", "API group suffix (default from config, else azure.armature.dev)")
	fs.StringVar(&c.facts, "facts", "", "comma-separated facts files classification reads beside the swagger, or none (default: the config's facts; without a config, "+defaultFacts+" when it exists)")
}

// defaultFacts is the facts table of the repository (hack/tffacts).
const defaultFacts = "specs/terraform/azurerm.json"

// factFiles returns the facts files the flags and the config name.
func (c *common) factFiles(cfg *config.Config) []string {
	switch {
	case c.facts == "none":
		if cfg != nil {
			cfg.Facts = nil // Analyze would read them
		}
		return nil
	case c.facts != "":
		return strings.Split(c.facts, ",")
	case cfg != nil:
		return cfg.FactFiles()
	}
	if exists(defaultFacts) {
		return []string{defaultFacts}
	}
	return nil
}

// options turns flags and arguments into generator options.
func (c *common) options(args []string) (generator.Options, *config.Config, error) {
	var opts generator.Options
	var cfg *config.Config
	if c.config != "" || len(args) == 0 {
		file := c.config
		if file == "" {
			file = filepath.Join("specs", "armature.yaml")
		}
		var err error
		if cfg, err = config.Load(file); err != nil {
			return opts, nil, err
		}
		opts.SpecRoot = config.ResolveSpecRoot(c.specRoot, cfg, cfg.Dir)
		opts.Files = cfg.Files
		opts.Config = cfg
		opts.Domain = cfg.Domain
	} else {
		opts.SpecRoot = config.ResolveSpecRoot(c.specRoot, nil, ".")
		if c.specRoot == "" && os.Getenv(config.EnvSpecRoot) == "" {
			// Plain file arguments: read them where they are, relative to
			// their common folder.
			root, files, err := commonRoot(args)
			if err != nil {
				return opts, nil, err
			}
			opts.SpecRoot, opts.Files = root, files
		} else {
			opts.Files = args
		}
	}
	if c.domain != "" {
		opts.Domain = c.domain
	}
	if st, err := os.Stat(opts.SpecRoot); err != nil || !st.IsDir() {
		return opts, nil, fmt.Errorf("spec root %s is not a folder: run hack/sync-specs.sh, or set --spec-root or %s", opts.SpecRoot, config.EnvSpecRoot)
	}
	if files := c.factFiles(cfg); len(files) > 0 {
		t, err := facts.Load(files...)
		if err != nil {
			return opts, nil, err
		}
		opts.Facts = t
	}
	return opts, cfg, nil
}

// progress reports to a terminal, and stays quiet under go generate and CI.
func progress(w io.Writer, quiet bool) func(string) {
	f, ok := w.(*os.File)
	if quiet || !ok || !term.IsTerminal(int(f.Fd())) || os.Getenv("GOFILE") != "" || os.Getenv("CI") != "" {
		return nil
	}
	return func(s string) { fmt.Fprintf(w, "\r\033[K%s", s) }
}

func runGenerate(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("generate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c common
	c.register(fs)
	out := fs.String("out", "", "output folder (default from config, else generated)")
	importPath := fs.String("import-path", "", "Go import path of the output folder (default: from the Go module that holds it)")
	noDesc := fs.Bool("no-descriptions", false, "drop schema descriptions from CRDs (they are otherwise shortened only when a CRD would exceed 256 KiB)")
	fullStatus := fs.Bool("full-status-schema", false, "keep the whole status schema in CRDs (default: objects below status preserve unknown fields; docs/crd-cost.md)")
	quiet := fs.Bool("quiet", false, "no progress and no summary")
	files, err := parse(fs, args)
	if err != nil {
		return usageError{err}
	}
	opts, cfg, err := c.options(files)
	if err != nil {
		return err
	}
	switch {
	case *out != "":
		opts.OutDir = *out
	case cfg != nil && cfg.Output != "":
		opts.OutDir = filepath.Join(cfg.Dir, cfg.Output)
	case cfg != nil:
		opts.OutDir = filepath.Join(cfg.Dir, "generated")
	default:
		opts.OutDir = "generated"
	}
	if *noDesc {
		opts.Descriptions = emit.DescriptionsNone
	}
	opts.FullStatus = *fullStatus
	opts.ImportPath = *importPath
	p := progress(stderr, *quiet)
	opts.Progress = p
	start := time.Now()
	res, err := generator.Generate(opts)
	if p != nil {
		fmt.Fprint(stderr, "\r\033[K")
	}
	if err != nil {
		return err
	}
	if len(res.Model.Kinds) == 0 && len(res.Errors) == 0 {
		return fmt.Errorf("no resource types found in %s (%d paths skipped; 'armature inspect --json' lists them with reasons)", strings.Join(opts.Files, ", "), len(res.Skipped))
	}
	if !*quiet {
		t := res.Timings
		// One CRD per group and kind, whichever api-versions serve it.
		crds := map[string]bool{}
		newest, pkgs := 0, len(res.Model.Packages)
		for _, pk := range res.Model.Packages {
			newest += len(pk.Kinds)
			for _, k := range pk.Kinds {
				crds[pk.Group+"/"+k.Name] = true
			}
		}
		older, olderVersions := 0, 0
		for _, o := range res.Older {
			pkgs += len(o.Model.Packages)
			for _, pk := range o.Model.Packages {
				older += len(pk.Kinds)
				olderVersions++
				for _, k := range pk.Kinds {
					crds[pk.Group+"/"+k.Name] = true
				}
			}
		}
		versions := ""
		if older > 0 {
			versions = fmt.Sprintf(": %d at their newest api-version, %d served at %d older ones too (or only)", newest, older, olderVersions)
		}
		fmt.Fprintf(stderr, "armature: %d kinds, one CRD each%s; %d packages → %s (%d written, %d unchanged, %d removed) in %s\n",
			len(crds), versions, pkgs, opts.OutDir, res.Emit.Written, res.Emit.Unchanged, len(res.Emit.Removed), time.Since(start).Round(time.Millisecond))
		fmt.Fprintf(stderr, "armature: load %s, tree %s, classify %s, model %s, emit go %s, controller-tools %s, crds %s, docs %s, write %s\n",
			ms(t.Load), ms(t.Tree), ms(t.Classify), ms(t.Model), ms(t.Emit.Go), ms(t.Emit.ControllerTools), ms(t.Emit.CRDs), ms(t.Emit.Docs), ms(t.Emit.Write))
		for _, c := range res.Changes {
			fmt.Fprintf(stderr, "armature: API changes %s %s → %s: %d kinds changed, %d breaking (generated/docs/%s_%s_to_%s.md)\n",
				c.Provider, c.Older, c.Newer, c.Report.Summary.Changed, c.Report.Summary.Breaking, strings.ToLower(c.Provider), c.Older, c.Newer)
		}
		for _, n := range res.Emit.Notes {
			fmt.Fprintln(stderr, "armature: note:", n)
		}
		if n := countSkips(res.Skipped, tree.SkipSecretRead); n > 0 {
			fmt.Fprintf(stderr, "armature: %d GETs below resources of the swagger files are no status reads: their answers hold credentials, and status never does ('armature inspect' lists them)\n", n)
		}
	}
	if cfg != nil && len(cfg.References) > 0 {
		// The references entries do not change the output yet (issue 29:
		// detection only), so they are checked after it is written; an
		// entry that does not apply fails the run all the same.
		res.Errors = append(res.Errors, generator.ConfigErrors(inspect.References(res.Analysis, cfg).Errors)...)
	}
	return errorsOf(res.Errors)
}

// countSkips counts the skips of category c.
func countSkips(skipped []tree.Skipped, c tree.SkipCategory) int {
	n := 0
	for _, s := range skipped {
		if s.Category == c {
			n++
		}
	}
	return n
}

func ms(d time.Duration) string { return d.Round(time.Millisecond).String() }

func errorsOf(errs []error) error {
	if len(errs) == 0 {
		return nil
	}
	cfgErrs := generator.ConfigErrors(errs)
	var b strings.Builder
	if n := len(errs) - len(cfgErrs); n > 0 {
		fmt.Fprintf(&b, "%d problems in the swagger (the resources concerned were skipped):", n)
		for _, e := range errs {
			if !slices.Contains(cfgErrs, e) {
				b.WriteString("\n  ")
				b.WriteString(e.Error())
			}
		}
	}
	if len(cfgErrs) > 0 {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "%d entries of the config do not apply (fix or remove them):", len(cfgErrs))
		for _, e := range cfgErrs {
			b.WriteString("\n  ")
			b.WriteString(e.Error())
		}
	}
	return errors.New(b.String())
}

func runInspect(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("inspect", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c common
	c.register(fs)
	asJSON := fs.Bool("json", false, "print JSON")
	props := fs.Bool("properties", false, "also print every property with its class and rule")
	kind := fs.String("kind", "", "show only this kind (e.g. StorageAccount)")
	agree := fs.Bool("agreement", false, "print how the classes agree with the facts table, per provider, and every disagreement")
	agreeOf := fs.String("agreement-of", "", "with --agreement: measure the classes of this `inspect --json` report (another build's) instead")
	override := fs.String("override", "", "with --kind: print the specs/armature.yaml entry that gives this property (as inspect --properties names it) the class of --class")
	class := fs.String("class", "createOnly", "with --override: the class the entry gives")
	references := fs.Bool("references", false, "print, per kind, the fields of the spec that hold an ARM resource id, with the rule, targets and evidence (docs/references.md)")
	files, err := parse(fs, args)
	if err != nil {
		return usageError{err}
	}
	opts, cfg, err := c.options(files)
	if err != nil {
		return err
	}
	a, err := generator.Analyze(opts)
	if err != nil {
		return err
	}
	if *override != "" {
		return inspect.Override(stdout, a, *kind, *override, *class)
	}
	if *references {
		return printReferences(stdout, a, cfg, *kind, *asJSON)
	}
	if *agree {
		rep := inspect.Build(a)
		if *agreeOf != "" {
			b, err := os.ReadFile(*agreeOf)
			if err != nil {
				return err
			}
			rep = &inspect.Report{}
			if err := json.Unmarshal(b, rep); err != nil {
				return fmt.Errorf("%s: %w", *agreeOf, err)
			}
		}
		if a.Facts == nil {
			return usageError{errors.New("--agreement needs a facts table (--facts, or facts: in the config)")}
		}
		return inspect.Agreement(stdout, a.Facts, rep)
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(inspect.Build(a)); err != nil {
			return err
		}
	} else if err := inspect.Table(stdout, a, *props, *kind); err != nil {
		return err
	}
	return errorsOf(a.Errors)
}

// printReferences prints the references of every kind (inspect
// --references), as JSON or a table; the errors of the analysis and the
// references entries that do not apply make it fail, as inspect does.
func printReferences(w io.Writer, a *generator.Analysis, cfg *config.Config, kind string, asJSON bool) error {
	rep := inspect.References(a, cfg)
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if err := enc.Encode(inspect.OnlyKind(rep, kind)); err != nil {
			return err
		}
	} else if err := inspect.ReferencesTable(w, rep, kind); err != nil {
		return err
	}
	return errorsOf(append(append([]error(nil), a.Errors...), rep.Errors...))
}

// commonRoot returns the deepest folder holding every file, and the files
// relative to it.
func commonRoot(args []string) (string, []string, error) {
	var abs []string
	for _, a := range args {
		p, err := filepath.Abs(a)
		if err != nil {
			return "", nil, err
		}
		abs = append(abs, p)
	}
	root := filepath.Dir(abs[0])
	for _, p := range abs[1:] {
		for !strings.HasPrefix(p, root+string(filepath.Separator)) && filepath.Dir(root) != root {
			root = filepath.Dir(root)
		}
	}
	files := make([]string, len(abs))
	for i, p := range abs {
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return "", nil, err
		}
		files[i] = filepath.ToSlash(rel)
	}
	return root, files, nil
}

// parse parses flags that may come before, between or after the file
// arguments.
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var files []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return files, nil
		}
		files = append(files, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

func runCheckExamples(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("check-examples", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c common
	c.register(fs)
	crds := fs.String("crds", "", "folder of CRD YAML to check against (default: generate them into a temporary folder)")
	minRatio := fs.Float64("min-ratio", 0, "fail when fewer than this share of example files are accepted (0 to 1)")
	files, err := parse(fs, args)
	if err != nil {
		return usageError{err}
	}
	opts, _, err := c.options(files)
	if err != nil {
		return err
	}
	var a *generator.Analysis
	dir := *crds
	if dir == "" {
		tmp, err := os.MkdirTemp("", "armature-check-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		opts.OutDir = tmp
		res, err := generator.Generate(opts)
		if err != nil {
			return err
		}
		a, dir = res.Analysis, filepath.Join(tmp, "crds")
	} else if a, err = generator.Analyze(opts); err != nil {
		return err
	}
	rep, err := generator.CheckExamples(a, dir)
	if err != nil {
		return err
	}
	rep.Print(stdout)
	ok, total := rep.Ratio("")
	if total > 0 && float64(ok)/float64(total) < *minRatio {
		return fmt.Errorf("%d of %d example files accepted, under --min-ratio %.2f", ok, total, *minRatio)
	}
	return errorsOf(a.Errors)
}
