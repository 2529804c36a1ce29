package generator

import (
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/armature-dev/armature/generator/classify"
	"github.com/armature-dev/armature/generator/config"
	"github.com/armature-dev/armature/generator/emit"
	"github.com/armature-dev/armature/generator/facts"
	"github.com/armature-dev/armature/generator/load"
	"github.com/armature-dev/armature/generator/model"
	"github.com/armature-dev/armature/generator/override"
	"github.com/armature-dev/armature/generator/tree"
)

// Options configure a run.
type Options struct {
	// SpecRoot is the folder swagger paths are relative to. Required.
	SpecRoot string
	// Files are the swagger files whose resources are generated. Required.
	Files []string
	// Exclude returns why an ARM type is left out, or "" to keep it.
	// Defaults to keeping every type.
	Exclude func(armType string) string
	// Config is specs/armature.yaml: its include and exclude lists choose
	// the ARM types (as Exclude does, in addition to it) and its overrides
	// correct them; entries that match nothing are errors. Files, Domain
	// and SpecRoot are not taken from it. Defaults to none.
	Config *config.Config
	// Domain is the API group suffix. Defaults to model.DefaultDomain.
	Domain string
	// OutDir is where Generate writes. Required for Generate.
	OutDir string
	// ImportPath is the Go import path of OutDir (see emit.Options).
	ImportPath string
	// Descriptions is the CRD description mode. Defaults to emit.DescriptionsFit.
	Descriptions emit.Descriptions
	// FullStatus keeps the whole status schema in CRDs (emit.Options).
	FullStatus bool
	// Progress, when set, receives a line per step.
	Progress func(string)
	// Facts are the facts tables classification reads beside the swagger
	// (specs/terraform). Defaults to the files Config.Facts names, else
	// none.
	Facts *facts.Table
}

// Timings are the wall times of the stages.
type Timings struct {
	Load, Tree, Classify, Model time.Duration
	Emit                        emit.Timings
}

// Analysis is what the generator understood, before anything is written.
type Analysis struct {
	Loader  *load.Loader
	Tree    *tree.Tree
	Tables  map[string]*classify.Table // by ARM type, lower case
	Model   *model.Model
	Skipped []tree.Skipped
	// Errors are located problems; resources they concern were skipped.
	Errors  []error
	Timings Timings
	// Facts are the facts tables classification read (nil for none).
	Facts *facts.Table
	// Older are the analyses of older api-versions named by the files
	// (Storage 2023-01-01 beside 2023-05-01), newest first: each is served
	// as a further version of the same kinds. The fields above are the
	// newest api-version of every provider. Errors of the older analyses
	// are in Errors too.
	Older []*Analysis
}

// Packages returns the packages of every analysed api-version: the
// newest first, then those of Older.
func (a *Analysis) Packages() []*model.Package {
	out := append([]*model.Package(nil), a.Model.Packages...)
	for _, o := range a.Older {
		out = append(out, o.Model.Packages...)
	}
	return out
}

// Analyze loads, builds the tree, classifies and models. When the files
// hold several api-versions of a provider, each older api-version is
// analysed on its own (Analysis.Older).
func Analyze(opts Options) (*Analysis, error) {
	if opts.SpecRoot == "" || len(opts.Files) == 0 {
		return nil, fmt.Errorf("generator: a spec root and at least one file are required")
	}
	if opts.Facts == nil && opts.Config != nil && len(opts.Config.Facts) > 0 {
		t, err := facts.Load(opts.Config.FactFiles()...)
		if err != nil {
			return nil, fmt.Errorf("%s: facts: %w", opts.Config.ConfigFile(), err)
		}
		opts.Facts = t
	}
	var fixes *override.Set
	if opts.Config != nil && len(opts.Config.Overrides) > 0 {
		fixes = override.New(opts.Config.ConfigFile(), opts.Config.Overrides)
	}
	ranks, err := versionRanks(opts.SpecRoot, opts.Files)
	if err != nil {
		return nil, err
	}
	a, err := analyze(opts, ranks[0], fixes)
	if err != nil {
		return nil, err
	}
	a.Facts = opts.Facts
	trees := []*tree.Tree{a.Tree}
	for _, files := range ranks[1:] {
		o, err := analyze(opts, files, fixes)
		if err != nil {
			return nil, err
		}
		linkOwners(o.Model, a.Model)
		a.Older = append(a.Older, o)
		a.Errors = append(a.Errors, o.Errors...)
		trees = append(trees, o.Tree)
	}
	// Config entries are stale only when no api-version uses them.
	a.Errors = append(a.Errors, staleSelections(opts.Config, trees)...)
	a.Errors = append(a.Errors, fixes.Errors()...)
	return a, nil
}

// analyze is Analyze for the files of one api-version per provider.
func analyze(opts Options, files []string, fixes *override.Set) (*Analysis, error) {
	progress := opts.Progress
	if progress == nil {
		progress = func(string) {}
	}
	a := &Analysis{Tables: map[string]*classify.Table{}}
	t0 := time.Now()
	a.Loader = load.New(opts.SpecRoot)
	var docs []*load.Document
	for i, f := range files {
		progress(fmt.Sprintf("load [%d/%d] %s", i+1, len(files), f))
		d, err := a.Loader.Load(f)
		if err != nil {
			return nil, err
		}
		docs = append(docs, d)
	}
	a.Timings.Load = time.Since(t0)

	t0 = time.Now()
	progress("building the resource tree")
	t, errs := tree.Build(a.Loader, docs)
	a.Tree = t
	a.Errors = append(a.Errors, errs...)
	a.Skipped = append(a.Skipped, t.Skipped...)
	a.Timings.Tree = time.Since(t0)

	t0 = time.Now()
	var inputs []model.Input
	domain := opts.Domain
	if domain == "" {
		domain = model.DefaultDomain
	}
	for i, r := range t.Resources {
		why := opts.Config.Excluded(r.ARMType)
		if why == "" && opts.Exclude != nil {
			why = opts.Exclude(r.ARMType)
		}
		if why != "" {
			a.Skipped = append(a.Skipped, tree.Skipped{Path: r.Path, File: r.File, Reason: "excluded by config: " + why})
			continue
		}
		progress(fmt.Sprintf("classify [%d/%d] %s", i+1, len(t.Resources), r.ARMType))
		short := model.GroupShort(r.Provider)
		k := fixes.For(override.Target{
			Group: short + "." + domain, Short: short, Version: model.Version(r.APIVersion), APIVersion: r.APIVersion,
			Kind: model.KindNameOf(r), ARMType: r.ARMType,
		})
		tb, err := classify.ClassifyWith(a.Loader, r, classify.Inputs{Fixes: k, Facts: opts.Facts})
		if err != nil {
			a.Errors = append(a.Errors, fmt.Errorf("%s: %w", r.ARMType, err))
			a.Skipped = append(a.Skipped, tree.Skipped{Path: r.Path, File: r.File, Reason: err.Error()})
			continue
		}
		a.Tables[strings.ToLower(r.ARMType)] = tb
		inputs = append(inputs, model.Input{Resource: r, Table: tb, Fixes: k})
	}
	a.Timings.Classify = time.Since(t0)

	t0 = time.Now()
	progress(fmt.Sprintf("modelling %d resource types", len(inputs)))
	m, errs := model.Build(a.Loader, inputs, model.Config{Domain: opts.Domain})
	a.Model = m
	a.Errors = append(a.Errors, errs...)
	a.Timings.Model = time.Since(t0)
	sort.SliceStable(a.Skipped, func(i, j int) bool {
		if a.Skipped[i].File != a.Skipped[j].File {
			return a.Skipped[i].File < a.Skipped[j].File
		}
		return a.Skipped[i].Path < a.Skipped[j].Path
	})
	return a, nil
}

// Result is a finished Generate.
type Result struct {
	*Analysis
	Emit *emit.Result
	// Changes are the API change reports between the api-versions of each
	// provider (also written to docs/ of the output).
	Changes []ChangeReport
}

// Generate analyses and writes the output. It returns the result even when
// some resources had errors; the caller decides the exit status from
// Result.Errors.
func Generate(opts Options) (*Result, error) {
	a, err := Analyze(opts)
	if err != nil {
		return nil, err
	}
	if opts.OutDir == "" {
		return nil, fmt.Errorf("generator: OutDir is required")
	}
	if errs := ConfigErrors(a.Errors); len(errs) > 0 {
		return nil, fmt.Errorf("nothing written: %d entries of %s do not apply:\n  %w", len(errs), opts.Config.ConfigFile(), joinIndented(errs))
	}
	var refSet *override.Refs
	if opts.Config != nil && len(opts.Config.References) > 0 {
		refSet = override.NewRefs(opts.Config.ConfigFile(), opts.Config.References)
	}
	rs, rerrs := emitReferences(a, refSet)
	if len(rerrs) > 0 {
		return nil, fmt.Errorf("nothing written: references: %w", joinIndented(rerrs))
	}
	if opts.Progress != nil {
		opts.Progress(fmt.Sprintf("references: %d ref fields (left out: %d to a part of the resource itself, %d lists of ids, %d to no generated kind, %d name clashes)", rs.Emitted, rs.Self, rs.List, rs.NoTarget, rs.Clash))
	}
	models := []*model.Model{a.Model}
	for _, o := range a.Older {
		models = append(models, o.Model)
	}
	all, errs := merge(opts.Config, models...)
	if len(errs) > 0 {
		return nil, fmt.Errorf("nothing written: %d entries of %s do not apply:\n  %w", len(errs), opts.Config.ConfigFile(), joinIndented(errs))
	}
	extra, notes := learnFromExamples(all, opts.SpecRoot)
	profiles, pnotes, err := learnProfiles(all, opts)
	if err != nil {
		return nil, err
	}
	maps.Copy(extra, profiles)
	notes = append(notes, pnotes...)
	reports := changeReports(a.Model, a.Older)
	for _, cr := range reports {
		var buf strings.Builder
		fmt.Fprintf(&buf, "# %s: API changes from %s to %s\n\n", cr.Provider, cr.Older, cr.Newer)
		fmt.Fprintf(&buf, "Generated by armature from the swagger files of specs/armature.yaml; `armature diff` prints the same report for any pair.\n\n```\n")
		if err := cr.Report.Write(&buf); err != nil {
			return nil, err
		}
		buf.WriteString("```\n")
		name := fmt.Sprintf("docs/%s_%s_to_%s.md", strings.ToLower(cr.Provider), cr.Older, cr.Newer)
		extra[name] = []byte(buf.String())
		if opts.Progress != nil {
			opts.Progress(fmt.Sprintf("API changes %s %s → %s: %d kinds changed, %d breaking (%s)", cr.Provider, cr.Older, cr.Newer, cr.Report.Summary.Changed, cr.Report.Summary.Breaking, filepath.Join(opts.OutDir, filepath.FromSlash(name))))
		}
	}
	er, err := emit.Emit(all, emit.Options{OutDir: opts.OutDir, Descriptions: opts.Descriptions, FullStatus: opts.FullStatus, Progress: opts.Progress, Extra: extra, ImportPath: opts.ImportPath})
	if err != nil {
		return nil, err
	}
	a.Timings.Emit = er.Timings
	a.Errors = append(a.Errors, er.Problems...)
	er.Notes = append(er.Notes, notes...)
	return &Result{Analysis: a, Emit: er, Changes: reports}, nil
}

// ConfigErrors returns the errors that concern the config file rather than
// the swagger.
func ConfigErrors(errs []error) []error {
	var out []error
	for _, err := range errs {
		var ce *config.Error
		if errors.As(err, &ce) {
			out = append(out, err)
		}
	}
	return out
}

// joinIndented joins errors one per line, indented like the first.
func joinIndented(errs []error) error {
	msgs := make([]string, len(errs))
	for i, err := range errs {
		msgs[i] = err.Error()
	}
	return errors.New(strings.Join(msgs, "\n  "))
}

// staleSelections reports include and exclude entries that match no
// resource type of the files.
func staleSelections(c *config.Config, trees []*tree.Tree) []error {
	if c == nil {
		return nil
	}
	var out []error
	for _, list := range []struct {
		name string
		sel  []config.Select
	}{{"include", c.Include}, {"exclude", c.Exclude}} {
		for i, e := range list.sel {
			found := false
			for _, t := range trees {
				for _, r := range t.Resources {
					found = found || config.MatchARMType(e.ARMType, r.ARMType)
				}
			}
			if !found {
				out = append(out, &config.Error{File: c.ConfigFile(), Entry: fmt.Sprintf("%s[%d] (%s)", list.name, i, e.ARMType), Msg: "matches no resource type of the files (`armature inspect --json` lists them, and the paths it skipped)"})
			}
		}
	}
	return out
}
