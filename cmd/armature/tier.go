package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/armature-dev/armature/generator/sweep"
	"github.com/armature-dev/armature/generator/sweep/tier"
)

const tierUsage = `usage: armature tier [--out DIR] [--crds DIR] [--manifest FILE] [--update] [--check-only]
                     [--curated DIR] [--recordings DIRS] [--json FILE] [--markdown FILE]
                     [-j N] [--module-root DIR] DIR

Generates the generated tier (docs/tiers.md) from the spec root DIR (hack/corpus.sh
prints the pinned corpus): a sweep of every newest stable provider folder into
the Go module --out (tier/providers/<folder>/), then every kind whose API group
and kind the curated tier (--curated, generated/apis) does not have gets its CRD
under --crds (config/crd/generated/<group>/, a kustomization per group) and its
place in --out/apis/registry.go; then the module is compiled (go build ./...).
Last, the kinds and CRD checksums (written to <out>/.kinds.tsv) are compared
with the manifest (--manifest, tier/kinds.tsv): a difference is listed and is
exit 3, unless --update rewrites the manifest.

--check-only generates nothing: it checks that the CRDs under --crds are those of
the last generation (<out>/.kinds.tsv), then compares that with the manifest
as above (--update rewrites it).
`

func runTier(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("tier", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, tierUsage); fs.PrintDefaults() }
	var f sweepFlags
	f.register(fs)
	out := fs.String("out", "", "the tier's Go module (default <module root>/tier)")
	crds := fs.String("crds", "", "where the tier's CRDs go, one folder per API group (default <module root>/config/crd/generated)")
	manifest := fs.String("manifest", "", "the committed list of the tier's kinds and CRD checksums (default <out>/kinds.tsv)")
	update := fs.Bool("update", false, "rewrite the manifest with what was generated")
	checkOnly := fs.Bool("check-only", false, "generate nothing: compare the CRDs under --crds with the manifest")
	rest, err := parse(fs, args)
	if err != nil {
		return usageError{err}
	}
	if err := f.check(); err != nil {
		return err
	}
	mod, err := sweep.ModuleRoot(f.moduleRoot)
	if err != nil {
		return err
	}
	if *out == "" {
		*out = filepath.Join(mod, "tier")
	}
	if *crds == "" {
		*crds = filepath.Join(mod, "config", "crd", "generated")
	}
	if *manifest == "" {
		*manifest = filepath.Join(*out, "kinds.tsv")
	}
	want, err := tier.ReadManifestFile(*manifest)
	if err != nil {
		return err
	}
	produced := filepath.Join(*out, producedManifest)
	if *checkOnly {
		if len(rest) != 0 {
			return usageError{errors.New("tier --check-only takes no DIR")}
		}
		got, err := tier.ReadManifestFile(produced)
		if err != nil {
			return err
		}
		if got.Rows == nil || !exists(filepath.Join(*out, "apis", "registry.go")) {
			return fmt.Errorf("no generated tier in %s: run armature tier (make crds) first", *out)
		}
		diffs, err := tier.CheckInstalled(*crds, got.Rows)
		if err != nil {
			return err
		}
		if len(diffs) > 0 {
			return fmt.Errorf("the CRDs under %s are not those the last generation wrote (%s):\n  %s\nregenerate: make crds FORCE=1", *crds, produced, strings.Join(diffs, "\n  "))
		}
		fmt.Fprintf(stdout, "%s: the %d CRDs are those of the last generation\n", *crds, len(got.Rows))
		return verdict(stdout, want, got, *manifest, *update)
	}
	if len(rest) != 1 {
		fs.Usage()
		return usageError{fmt.Errorf("tier takes one DIR, got %d arguments", len(rest))}
	}
	bar := newSweepBar(stdout, stderr)
	opts, err := f.options(rest[0], bar.event)
	if err != nil {
		return err
	}
	if opts.Curated == nil {
		return fmt.Errorf("no curated tier: give --curated (generated/apis)")
	}
	corpus := filepath.Base(filepath.Clean(rest[0]))
	opts.Module, opts.ModulePath, opts.Optimise = *out, sweep.ModulePath+"/tier", true
	var written *tier.Output
	opts.BeforeBuild = func(res *sweep.Result) error {
		bar.clear()
		fmt.Fprintf(stdout, "writing the tier: %d kinds' CRDs to %s, the registry to %s\n", res.Tiers.Count(sweep.TierGenerated), *crds, filepath.Join(*out, "apis", "registry.go"))
		var err error
		written, err = tier.Write(res, tier.Options{Module: opts.Module, ModulePath: opts.ModulePath, CRDs: *crds, Corpus: corpus})
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	t0 := time.Now()
	res, err := sweep.Run(ctx, opts)
	bar.clear()
	if err != nil {
		return err
	}
	if err := f.report(stdout, res, rest[0]); err != nil {
		return err
	}
	printTiers(stdout, res, written)
	sizes, err := tier.Measure(opts.Module, *crds)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "full regeneration: Go %s, CRD YAML %s (every kind of the sweep), docs, samples and profiles %s; total %s\n", sizes.Go, sizes.CRDs, sizes.Other, sizes.Total())
	fmt.Fprintf(stdout, "installed under %s: %s (%d groups)\n", *crds, sizes.Installed, len(written.Groups))
	fmt.Fprintf(stdout, "make crds took %s\n", time.Since(t0).Round(time.Second))
	if res.Summary.BuildError != "" {
		return fmt.Errorf("the tier does not compile outside any folder's code:\n%s", res.Summary.BuildError)
	}
	if res.Summary.Build == "FAILED" {
		return errors.New("the tier does not compile: see the folders above")
	}
	got := tier.Manifest{Corpus: corpus, Rows: written.Rows}
	if err := writeFileWith(produced, func(w io.Writer) error { return tier.WriteManifest(w, got) }); err != nil {
		return err
	}
	return verdict(stdout, want, got, *manifest, *update)
}

// producedManifest is the manifest of the last generation, in the tier's
// module (not committed).
const producedManifest = ".kinds.tsv"

// exitManifest is the exit status of a tier that differs from its
// manifest.
const exitManifest = 3

// verdict compares the generated rows with the manifest's: it prints the
// kinds that differ and returns an exitManifest error, or with update
// rewrites the manifest.
func verdict(w io.Writer, want, got tier.Manifest, manifest string, update bool) error {
	diffs := tier.Diff(want.Rows, got.Rows)
	if want.Corpus != got.Corpus {
		diffs = append([]string{fmt.Sprintf("! corpus %q → %q", want.Corpus, got.Corpus)}, diffs...)
	}
	if update {
		if err := writeFileWith(manifest, func(wr io.Writer) error { return tier.WriteManifest(wr, got) }); err != nil {
			return err
		}
		fmt.Fprintf(w, "%s rewritten: %d kinds, %d lines changed\n", manifest, len(got.Rows), len(diffs))
		return nil
	}
	if len(diffs) == 0 {
		fmt.Fprintf(w, "%s: the %d kinds generated match\n", manifest, len(got.Rows))
		return nil
	}
	fmt.Fprintf(w, "%s: %d kinds differ from what was generated:\n  %s\n", manifest, len(diffs), strings.Join(diffs, "\n  "))
	return exitError{exitManifest, fmt.Errorf("the tier differs from %s in %d kinds: check the changes above, then make crds UPDATE=1 and commit the manifest", manifest, len(diffs))}
}

// printTiers prints the kinds left out of the generated tier and the ARM
// types two kinds serve.
func printTiers(w io.Writer, res *sweep.Result, written *tier.Output) {
	var dup, overlap []string
	for _, p := range res.Tiers.Kinds {
		if p.Tier == sweep.TierNone {
			dup = append(dup, fmt.Sprintf("  %s (%s %s): %s", p.GroupKind(), p.Folder, p.APIVersion, p.Why))
		}
		if p.ARMOverlap != "" {
			overlap = append(overlap, fmt.Sprintf("  %s %s: also %s", p.GroupKind(), p.ARMType, p.ARMOverlap))
		}
	}
	sort.Strings(dup)
	sort.Strings(overlap)
	if len(dup) > 0 {
		fmt.Fprintf(w, "not shipped (%d):\n%s\n", len(dup), strings.Join(dup, "\n"))
	}
	if len(overlap) > 0 {
		fmt.Fprintf(w, "ARM types served by another kind too (%d):\n%s\n", len(overlap), strings.Join(overlap, "\n"))
	}
	fmt.Fprintf(w, "generated tier: %d kinds in %d API groups; curated tier: %d kinds, %d of them from no swept folder\n",
		len(written.Rows), len(written.Groups), len(res.Tiers.Curated), len(res.Tiers.CuratedOnly))
}
