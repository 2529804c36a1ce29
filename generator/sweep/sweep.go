package sweep

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/gobuffalo/flect"

	"github.com/armature-dev/armature/generator"
	"github.com/armature-dev/armature/generator/classify"
	"github.com/armature-dev/armature/generator/emit"
	"github.com/armature-dev/armature/generator/facts"
	"github.com/armature-dev/armature/generator/load"
	"github.com/armature-dev/armature/generator/refs"
	"github.com/armature-dev/armature/generator/tree"
)

// Options configure Run.
type Options struct {
	// Root is the spec root, the folder that holds specification/. Required.
	Root string
	// AllVersions sweeps every stable api-version of a provider folder
	// instead of the newest only. Defaults to false.
	AllVersions bool
	// Jobs is how many folders are processed at once. Defaults to
	// runtime.GOMAXPROCS(0).
	Jobs int
	// ModuleRoot is the armature module the generated code is compiled
	// against (see ModuleRoot). Required.
	ModuleRoot string
	// WorkDir is where the temporary module is made. Defaults to
	// os.TempDir(). The module is removed at the end unless Keep is set.
	WorkDir string
	// Keep leaves the temporary module in place (Result.Module names it).
	// Defaults to false.
	Keep bool
	// NoBuild skips the `go build` of the generated code (the folders'
	// Build is then BuildSkipped). Defaults to false: the code is compiled.
	NoBuild bool
	// Domain is the API group suffix. Defaults to the generator's.
	Domain string
	// Events, when set, is told when a folder starts and ends and when the
	// build starts and ends. Calls are serialised.
	Events func(Event)
	// Facts are the facts tables classification reads (nil for none).
	Facts *facts.Table

	// Module, when set, is the folder of a lasting Go module to generate
	// into instead of a temporary one (the generated tier, tier/): its
	// go.mod is written (WriteModule) with ModulePath, each folder goes to
	// Module/providers/<folder> (FolderDir), provider folders of no
	// swept folder are removed, and nothing is removed at the end. Keep
	// and WorkDir are then unused. Defaults to "": a temporary module.
	Module string
	// ModulePath is the module path of Module. Required with Module.
	ModulePath string
	// Optimise compiles the generated code with the go command's default
	// flags, so that a later `go build` of a command over it (the tier's
	// operator) finds its packages in the build cache. Defaults to false:
	// optimisation off (-N -l), which decides nothing about whether the
	// code compiles and saves a third of the time.
	Optimise bool
	// Curated are the kinds of the curated tier (ReadCurated). When set,
	// Result.Tiers places every kind of the sweep in a tier (AssignTiers).
	// Defaults to none: no placement.
	Curated []CuratedKind
	// Recorded are the ARM types, in lower case, that recorded real ARM
	// traffic answered (RecordedTypes): evidence of the kinds of Result.Tiers.
	// Defaults to none.
	Recorded map[string]bool
	// BeforeBuild, when set, is called once every folder is done, before
	// the build, with the result so far (records and tiers, no summary):
	// what it writes into the module is compiled with the rest. Its error
	// ends the run.
	BeforeBuild func(*Result) error
}

// EventKind says what an Event reports.
type EventKind int

// Event kinds.
const (
	FolderStarted EventKind = iota
	FolderDone
	BuildStarted
	BuildDone
)

// Event is a step of the sweep.
type Event struct {
	Kind EventKind
	// Folder is the folder concerned (FolderStarted, FolderDone).
	Folder Folder
	// Record is the folder's record (FolderDone).
	Record *Record
	// Done and Total count folders.
	Done, Total int
}

// Result is a finished sweep.
type Result struct {
	// Records are sorted by folder.
	Records []Record
	Summary Summary
	// Module is the module the code was generated into: the temporary
	// one (removed unless Options.Keep) or Options.Module.
	Module string
	// Tiers places every kind in a tier, when Options.Curated is set.
	Tiers *Tiers
}

// buildPending marks a folder whose output waits for the build.
const buildPending = "pending"

// Run sweeps every folder below Options.Root. A folder's problems, panics
// included, go into its record; Run itself fails only when the sweep
// cannot run (no folders, no temporary module, the go command unusable).
func Run(ctx context.Context, opts Options) (*Result, error) {
	start := time.Now()
	if opts.Root == "" || opts.ModuleRoot == "" {
		return nil, errors.New("sweep: Root and ModuleRoot are required")
	}
	folders, err := Discover(opts.Root, opts.AllVersions)
	if err != nil {
		return nil, err
	}
	if len(folders) == 0 {
		return nil, fmt.Errorf("sweep: no stable api-version folder below %s", filepath.Join(opts.Root, "specification"))
	}
	root, err := filepath.Abs(opts.Root)
	if err != nil {
		return nil, err
	}
	module, modulePath, outs, err := prepareModule(opts, folders)
	if err != nil {
		return nil, err
	}
	if opts.Module == "" && !opts.Keep {
		defer os.RemoveAll(module)
	}
	jobs := opts.Jobs
	if jobs <= 0 {
		jobs = runtime.GOMAXPROCS(0)
	}
	jobs = min(jobs, len(folders))

	emit := serialEvents(opts.Events)
	records := processFolders(ctx, folders, root, outs, jobs, opts, emit)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	res := &Result{Module: module, Records: records}
	if opts.Curated != nil {
		res.Tiers = AssignTiers(records, opts.Curated, opts.Recorded)
	}
	if opts.BeforeBuild != nil {
		if err := opts.BeforeBuild(res); err != nil {
			return nil, err
		}
	}
	b := builder{dir: module, modulePath: modulePath, optimise: opts.Optimise}
	buildTime, buildErr := buildRecords(ctx, b, records, opts.NoBuild, emit)

	if res.Tiers != nil {
		res.Tiers.Settle(records, opts.Recorded)
	}
	res.Summary = Summarise(records)
	res.Summary.Stages.Build = buildTime
	if buildErr != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		res.Summary.Build = "FAILED"
		res.Summary.BuildError = buildErr.Error()
	}
	res.Summary.Jobs = jobs
	res.Summary.Wall = time.Since(start)
	res.Summary.PeakRSS = peakRSS()
	return res, nil
}

// serialEvents calls events, when set, one event at a time.
func serialEvents(events func(Event)) func(Event) {
	var mu sync.Mutex
	return func(e Event) {
		if events != nil {
			mu.Lock()
			defer mu.Unlock()
			events(e)
		}
	}
}

// prepareModule makes the module the folders are generated into: a
// temporary one, or Options.Module (its go.mod written, provider folders
// of no swept folder removed). It returns the module's folder and path and
// each folder's output folder.
func prepareModule(opts Options, folders []Folder) (module, modulePath string, outs []string, err error) {
	if opts.Module == "" {
		module, err = os.MkdirTemp(opts.WorkDir, "armature-sweep-")
		if err != nil {
			return "", "", nil, err
		}
		if err := writeModule(module, opts.ModuleRoot, tempModulePath); err != nil {
			_ = os.RemoveAll(module)
			return "", "", nil, fmt.Errorf("sweep: temporary module: %w", err)
		}
		for i, f := range folders {
			outs = append(outs, filepath.Join(module, outName(i, f)))
		}
		return module, tempModulePath, outs, nil
	}
	if opts.ModulePath == "" {
		return "", "", nil, errors.New("sweep: Module needs ModulePath")
	}
	if module, err = filepath.Abs(opts.Module); err != nil {
		return "", "", nil, err
	}
	if err := os.MkdirAll(module, 0o755); err != nil {
		return "", "", nil, err
	}
	if err := WriteModule(module, opts.ModuleRoot, opts.ModulePath); err != nil {
		return "", "", nil, fmt.Errorf("sweep: module %s: %w", module, err)
	}
	keep := map[string]bool{}
	for _, f := range folders {
		rel := FolderDir(f)
		if keep[rel] {
			return "", "", nil, fmt.Errorf("sweep: two folders would be generated into %s: sweep one api-version per provider folder", rel)
		}
		keep[rel] = true
		outs = append(outs, filepath.Join(module, filepath.FromSlash(rel)))
	}
	if err := removeStale(filepath.Join(module, providersDir), keep); err != nil {
		return "", "", nil, err
	}
	return module, opts.ModulePath, outs, nil
}

// providersDir is the folder of a lasting module (Options.Module) that
// holds one folder per swept provider folder.
const providersDir = "providers"

// FolderDir is the folder, relative to a lasting module (Options.Module)
// and slash-separated, that folder f is generated into:
// providers/<provider folder in lower case, other characters as _>, e.g.
// providers/compute_microsoft_compute_computerp. It does not name the
// api-version, so that a newer corpus changes no import path but the
// version's.
func FolderDir(f Folder) string {
	return providersDir + "/" + strings.Trim(unsafeChars.ReplaceAllString(strings.ToLower(f.Name), "_"), "_")
}

// removeStale removes the folders below dir whose module-relative path
// (providers/<name>) keep does not hold.
func removeStale(dir string, keep map[string]bool) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !keep[providersDir+"/"+e.Name()] {
			if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}

// processFolders generates each folder into its output folder, on jobs
// workers, and returns the folders' records in their order. Once ctx ends
// no folder is started; the caller checks ctx.
func processFolders(ctx context.Context, folders []Folder, root string, outs []string, jobs int, opts Options, emit func(Event)) []Record {
	records := make([]Record, len(folders))
	next := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	for range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				f := folders[i]
				emit(Event{Kind: FolderStarted, Folder: f, Total: len(folders)})
				records[i] = processFolder(f, root, outs[i], opts.Domain, opts.Facts)
				mu.Lock()
				done++
				n := done
				mu.Unlock()
				emit(Event{Kind: FolderDone, Folder: f, Record: &records[i], Done: n, Total: len(folders)})
			}
		}()
	}
feed:
	for i := range folders {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	return records
}

// buildRecords builds the module and attributes its failures to the
// records; with noBuild, records waiting for the build are BuildSkipped.
// It returns the build's duration and the error of the go command, or of
// the failures no folder's code holds (the tier's registry).
func buildRecords(ctx context.Context, b builder, records []Record, noBuild bool, emit func(Event)) (time.Duration, error) {
	if noBuild {
		for i := range records {
			if records[i].Build == buildPending {
				records[i].Build = BuildSkipped
			}
		}
		return 0, nil
	}
	emit(Event{Kind: BuildStarted, Total: len(records)})
	t0 := time.Now()
	fails, buildErr := b.build(ctx)
	buildTime := time.Since(t0)
	if rest := attribute(records, b.dir, fails); len(rest) > 0 && buildErr == nil {
		lines := make([]string, len(rest))
		for i, f := range rest {
			lines[i] = f.line
		}
		buildErr = fmt.Errorf("go build ./... in %s:\n%s", b.dir, strings.Join(lines, "\n"))
	}
	emit(Event{Kind: BuildDone, Total: len(records)})
	return buildTime, buildErr
}

// maxBuildProblems caps the compile errors kept per folder.
const maxBuildProblems = 20

// attribute marks the folders the build failures belong to (by their
// output folder below module), and the others that were built as ok. It
// returns the failures of no folder.
func attribute(records []Record, module string, fails []buildFailure) []buildFailure {
	byOut := map[string]*Record{}
	for i := range records {
		if rel, err := filepath.Rel(module, records[i].Out); err == nil {
			byOut[filepath.ToSlash(rel)] = &records[i]
		}
	}
	var rest []buildFailure
	for _, f := range fails {
		var r *Record
		out := f.pkg
		for ; out != "." && out != "/" && out != ""; out = path.Dir(out) {
			if r = byOut[out]; r != nil {
				break
			}
		}
		if r == nil {
			rest = append(rest, f)
			continue
		}
		r.Build = BuildFailed
		if len(r.Problems) >= maxBuildProblems {
			continue
		}
		where, msg := strings.TrimPrefix(f.line, out+"/"), ""
		if i := strings.Index(where, ": "); i >= 0 {
			where, msg = where[:i], where[i+2:]
		}
		r.Problems = append(r.Problems, Problem{Stage: StageBuild, Where: where, Message: msg, Cause: Cause(msg)})
	}
	for i := range records {
		if records[i].Build == buildPending {
			records[i].Build = BuildOK
		}
	}
	return rest
}

var unsafeChars = regexp.MustCompile(`[^a-z0-9]+`)

// outName is the folder of the temporary module for folder i: a valid,
// unique import path element.
func outName(i int, f Folder) string {
	s := unsafeChars.ReplaceAllString(strings.ToLower(f.Name+"_"+f.APIVersion), "_")
	if len(s) > 60 {
		s = s[len(s)-60:]
	}
	return fmt.Sprintf("f%03d_%s", i, strings.Trim(s, "_"))
}

// generate is generator.Generate; tests replace it to make a folder panic.
var generate = generator.Generate

// processFolder runs the generator over one folder, writing into out, and
// checks the examples. Everything it loads is dropped when it returns; a
// panic becomes a problem of the folder.
func processFolder(f Folder, root, out, domain string, ft *facts.Table) (rec Record) {
	start := time.Now()
	rec = Record{Folder: f, Out: out, Build: BuildNone}
	defer func() { rec.Duration = time.Since(start) }()
	defer func() {
		if v := recover(); v != nil {
			rec.Problems = append(rec.Problems, panicProblem(v))
			rec.Build = BuildNone
			_ = os.RemoveAll(out)
		}
	}()
	if len(f.Files) == 0 {
		rec.Problems = append(rec.Problems, Problem{Stage: StageFolder, Where: f.Dir, Message: "no swagger document in the folder", Cause: "no swagger document in the folder"})
		return rec
	}
	opts := generator.Options{SpecRoot: root, Files: f.Files, Domain: domain, OutDir: out, Facts: ft}
	res, err := generate(opts)
	if err != nil {
		_ = os.RemoveAll(out)
		// Analyse again to tell a file that cannot be read (nothing to
		// generate) from a failure of emit, and to count what was found.
		a, aerr := analyzeSafely(opts)
		if aerr != nil {
			rec.Problems = append(rec.Problems, problemOf(StageLoad, aerr))
			return rec
		}
		p := problemOf(StageEmit, err)
		if p.Where == "" {
			p.Where = locate(a, p.Message)
		}
		rec.Problems = append(rec.Problems, p)
		rec.fromAnalysis(a)
		rec.Kinds = 0 // modelled, but nothing was written
		return rec
	}
	rec.fromAnalysis(res.Analysis)
	t := res.Timings
	rec.Stages.ControllerTools = t.Emit.ControllerTools
	rec.Stages.Emit = max(0, time.Since(start)-t.Load-t.Tree-t.Classify-t.Model-t.Emit.ControllerTools)
	if res.Emit.Written > 0 || rec.Kinds > 0 {
		rec.Build = buildPending
	}
	rec.LargestCRD, rec.LargestCRDFile = largestFile(filepath.Join(out, "crds"))
	if err := rec.listKinds(res.Analysis, filepath.Join(out, "crds")); err != nil {
		rec.Problems = append(rec.Problems, problemOf(StageEmit, err))
	}

	t0 := time.Now()
	rec.checkCRDs(res.Analysis, filepath.Join(out, "crds"))
	rep, err := generator.CheckExamples(res.Analysis, filepath.Join(out, "crds"))
	if err != nil {
		rec.Problems = append(rec.Problems, problemOf(StageExamples, err))
	} else {
		for _, x := range rep.Results {
			rec.Examples++
			k := rec.kindOf(x.ARMType, x.Kind)
			if k != nil {
				k.Examples++
			}
			if x.OK() {
				rec.Accepted++
				if k != nil {
					k.Accepted++
				}
				continue
			}
			why := x.Err
			if why == "" {
				why = x.Result.String()
			}
			rec.Rejected = append(rec.Rejected, Rejected{Kind: x.Kind, Title: x.Title, File: x.File, Why: why})
		}
	}
	rec.Stages.Examples = time.Since(t0)
	return rec
}

// fromAnalysis fills kinds, skips, analysis problems and the analysis
// timings.
func (rec *Record) fromAnalysis(a *generator.Analysis) {
	for _, p := range a.Packages() {
		rec.Kinds += len(p.Kinds)
	}
	failed := map[string]bool{}
	for _, err := range a.Errors {
		msg := err.Error()
		failed[msg] = true
		if _, rest, ok := strings.Cut(msg, ": "); ok {
			failed[rest] = true
		}
		stage := StageAnalysis
		if ce := (*emit.CRDError)(nil); errors.As(err, &ce) {
			stage = StageEmit
		}
		p := problemOf(stage, err)
		if p.Where == "" {
			p.Where = locate(a, p.Message)
		}
		rec.Problems = append(rec.Problems, p)
	}
	for _, s := range a.Skipped {
		rec.Skipped = append(rec.Skipped, skipOf(s, failed))
	}
	for _, r := range a.Tree.Resources {
		tb := a.Tables[strings.ToLower(r.ARMType)]
		if tb == nil {
			continue
		}
		for _, e := range tb.Entries {
			rec.Classes.add(e, e.Facts != "" || e.Source == classify.SourceTerraform)
		}
	}
	rec.references(a)
	for _, o := range append([]*generator.Analysis{a}, a.Older...) {
		rec.Stages.Load += o.Timings.Load
		rec.Stages.Tree += o.Timings.Tree
		rec.Stages.Classify += o.Timings.Classify
		rec.Stages.Model += o.Timings.Model
	}
}

// listKinds fills KindList from the analysis' packages and the CRD files
// in crdDir (found by their group and kind, as the examples check finds
// them).
func (rec *Record) listKinds(a *generator.Analysis, crdDir string) error {
	files, err := filepath.Glob(filepath.Join(crdDir, "*.yaml"))
	if err != nil {
		return err
	}
	byKind := map[string]string{}
	for _, f := range files {
		gk, err := crdGroupKind(f)
		if err != nil {
			return err
		}
		byKind[gk] = filepath.Base(f)
	}
	for _, p := range a.Packages() {
		for _, k := range p.Kinds {
			kr := KindRecord{
				Group: p.Group, Version: p.Version, Kind: k.Name, ARMType: k.Resource.ARMType, APIVersion: p.APIVersion,
				Package: path.Join("apis", p.Short, p.Version), CRD: byKind[p.Group+"/"+k.Name], OwnerARMType: k.Resource.Owner,
			}
			if k.Owner != nil {
				kr.OwnerKind = k.Owner.Package.Group + "/" + k.Owner.Name
			}
			rec.KindList = append(rec.KindList, kr)
		}
	}
	return nil
}

// checkCRDs validates every CRD written as the apiserver would when it is
// created: a CRD it would refuse is a problem of the folder, and its kind's
// Refused says why.
func (rec *Record) checkCRDs(a *generator.Analysis, crdDir string) {
	for i := range rec.KindList {
		k := &rec.KindList[i]
		if k.CRD == "" || (i > 0 && rec.KindList[i-1].CRD == k.CRD) {
			continue
		}
		if err := checkCRD(filepath.Join(crdDir, k.CRD)); err != nil {
			k.Refused = err.Error()
			msg := k.CRD + ": " + err.Error()
			rec.Problems = append(rec.Problems, Problem{Stage: StageCRD, Where: locate(a, msg), Message: msg, Cause: Cause(msg)})
		}
	}
}

// kindOf returns the newest version's record of a kind, by ARM type and
// kind name, or nil.
func (rec *Record) kindOf(armType, kind string) *KindRecord {
	for i := range rec.KindList {
		k := &rec.KindList[i]
		if k.Kind == kind && strings.EqualFold(k.ARMType, armType) {
			return k
		}
	}
	return nil
}

// crdGroupKind reads "group/Kind" of a CRD file.
func crdGroupKind(file string) (string, error) {
	raw, err := os.ReadFile(file)
	if err != nil {
		return "", err
	}
	gk, err := emit.CRDGroupKind(raw)
	if err != nil {
		return "", fmt.Errorf("%s: %w", file, err)
	}
	return gk, nil
}

// references counts the reference fields of the newest api-version's
// kinds by rule; a problem of the detection is a problem of the folder.
func (rec *Record) references(a *generator.Analysis) {
	if a.Model == nil {
		return
	}
	rep := refs.Find(a.Loader, a.Model.Packages, nil)
	if _, by := rep.Count(); len(by) > 0 {
		rec.References = by
	}
	for _, err := range rep.Errors {
		rec.Problems = append(rec.Problems, problemOf(StageReferences, err))
	}
}

var crdFile = regexp.MustCompile(`\b[a-z0-9.-]+_[a-z0-9]+\.yaml\b`)

// locate finds the swagger location of a message without one: the PUT of
// the resource whose ARM type starts the message, or of the kind whose CRD
// file it names.
func locate(a *generator.Analysis, msg string) string {
	at := func(r *tree.Resource) string {
		return load.Origin{File: r.File}.Child("paths", r.Path, "put").String()
	}
	if armType, _, ok := strings.Cut(msg, ": "); ok && a.Tree != nil {
		if r := a.Tree.Resource(armType); r != nil {
			return at(r)
		}
	}
	if name := crdFile.FindString(msg); name != "" {
		for _, p := range a.Packages() {
			for _, k := range p.Kinds {
				if name == p.Group+"_"+strings.ToLower(flect.Pluralize(k.Name))+".yaml" {
					return at(k.Resource)
				}
			}
		}
	}
	return ""
}

// analyzeSafely is generator.Analyze with a panic turned into an error.
func analyzeSafely(opts generator.Options) (a *generator.Analysis, err error) {
	defer func() {
		if v := recover(); v != nil {
			a, err = nil, fmt.Errorf("panic: %v", v)
		}
	}()
	return generator.Analyze(opts)
}

// largestFile returns the size and name of the largest file in dir.
func largestFile(dir string) (int, string) {
	best, name := 0, ""
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if info, err := d.Info(); err == nil && int(info.Size()) > best {
			best, name = int(info.Size()), d.Name()
		}
		return nil
	})
	return best, name
}
