package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/armature-dev/armature/generator"
	"github.com/armature-dev/armature/generator/apidiff"
	"github.com/armature-dev/armature/generator/config"
)

// exitBreaking is the exit status of `diff --fail-on-breaking` when a change
// is breaking (1 is an error, 2 a usage error).
const exitBreaking = 3

// exitError is an error with its own exit status.
type exitError struct {
	code int
	error
}

const diffUsage = `usage: armature diff [--json] [--fail-on-breaking] [--spec-root DIR] OLD NEW

OLD and NEW are each a swagger file or a comma-separated list of files (one
api-version of a resource provider), found as given or else below the spec root.
Kinds are matched by ARM resource type. Exit status: 0, or 3 with
--fail-on-breaking when a change is breaking; 1 on an error, 2 on a usage error.
docs/api-diff.md explains the report.

`

func runDiff(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("diff", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, diffUsage)
		fs.PrintDefaults()
	}
	specRoot := fs.String("spec-root", "", "folder swagger paths are relative to when not found as given (env "+config.EnvSpecRoot+"; default "+config.DefaultSpecRoot+")")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	failOnBreaking := fs.Bool("fail-on-breaking", false, fmt.Sprintf("exit with status %d when a change is breaking", exitBreaking))
	domain := fs.String("domain", "", "API group suffix (default azure.armature.dev)")
	sides, err := parse(fs, args)
	if err != nil {
		return usageError{err}
	}
	if len(sides) != 2 {
		return usageError{fmt.Errorf("diff takes two arguments, OLD and NEW (got %d); 'armature diff -h' shows the usage", len(sides))}
	}
	root := config.ResolveSpecRoot(*specRoot, nil, ".")
	var analyses [2]*generator.Analysis
	for i, side := range sides {
		name := [2]string{"OLD", "NEW"}[i]
		opts, err := sideOptions(name, side, root)
		if err != nil {
			return err
		}
		opts.Domain = *domain
		a, err := generator.Analyze(opts)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if len(a.Errors) > 0 {
			// A resource skipped for an error would show as removed or
			// added: refuse rather than report a false change.
			return fmt.Errorf("%s: %w", name, errorsOf(a.Errors))
		}
		analyses[i] = a
	}
	rep := apidiff.Compare(analyses[0].Model, analyses[1].Model)
	if *asJSON {
		err = rep.WriteJSON(stdout)
	} else {
		err = rep.Write(stdout)
	}
	if err != nil {
		return err
	}
	if *failOnBreaking && rep.HasBreaking() {
		return exitError{exitBreaking, fmt.Errorf("breaking changes from %s to %s: %d (--fail-on-breaking)", rep.Old, rep.New, rep.Summary.Breaking)}
	}
	return nil
}

// sideOptions resolves the files of one side: each as given when it exists,
// else below the spec root. The analysis reads them relative to the spec
// root when they are all inside it (errors then name root-relative files),
// else relative to their common folder.
func sideOptions(name, list, root string) (generator.Options, error) {
	var abs []string
	for _, f := range strings.Split(list, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		p, err := locate(f, root)
		if err != nil {
			return generator.Options{}, fmt.Errorf("%s: %w", name, err)
		}
		abs = append(abs, p)
	}
	if len(abs) == 0 {
		return generator.Options{}, usageError{fmt.Errorf("%s names no file", name)}
	}
	if rootAbs, err := filepath.Abs(root); err == nil {
		var rel []string
		for _, p := range abs {
			r, err := filepath.Rel(rootAbs, p)
			if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
				break
			}
			rel = append(rel, filepath.ToSlash(r))
		}
		if len(rel) == len(abs) {
			return generator.Options{SpecRoot: rootAbs, Files: rel}, nil
		}
	}
	dir, files, err := commonRoot(abs)
	if err != nil {
		return generator.Options{}, err
	}
	return generator.Options{SpecRoot: dir, Files: files}, nil
}

// locate returns the absolute path of a swagger file named as given or
// relative to the spec root.
func locate(f, root string) (string, error) {
	for _, p := range []string{f, filepath.Join(root, f)} {
		st, err := os.Stat(p)
		if err == nil && !st.IsDir() {
			return filepath.Abs(p)
		}
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return "", err
		}
	}
	return "", fmt.Errorf("%s: no such file, as given or below the spec root %s (set --spec-root or %s)", f, root, config.EnvSpecRoot)
}
