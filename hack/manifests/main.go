package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/armature-dev/armature/generated/apis"
	"github.com/armature-dev/armature/hack/manifests/render"
)

func main() {
	err := run(os.Args[1:], os.Stdout, os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "manifests:", err)
		os.Exit(1)
	}
}

// run renders config/ (or a variant) and writes or checks it.
func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("manifests", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "config", "folder to write config/ into")
	handwritten := fs.String("config", "config", "the committed config/, whose hand-written files are copied into -out when it differs")
	o := render.DefaultOptions(".", apis.Descriptors())
	fs.StringVar(&o.CRDDir, "crds", o.CRDDir, "folder of the generated CRDs")
	fs.StringVar(&o.SamplesDir, "samples", o.SamplesDir, "folder of the generated samples")
	fs.StringVar(&o.Extra[0].Path, "action-crd", o.Extra[0].Path, "the Action CRD, rendered with its RBAC when the file exists")
	fs.StringVar(&o.Kinds, "kinds", "", "comma-separated path.Match patterns over group/Kind, as the operator's --kinds (default: every kind)")
	check := fs.Bool("check", false, "write nothing; fail when -out (or -chart) differs from what would be rendered")
	chart := fs.String("chart", render.ChartDir, "folder to write the Helm chart into, rendered when -kinds is not set (empty: none)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	files, err := render.Render(o)
	if err != nil {
		return err
	}
	targets := []target{{*out, files, *handwritten}}
	if *chart != "" && o.Kinds == "" {
		chartFiles, err := render.Chart(o, files, *handwritten)
		if err != nil {
			return err
		}
		targets = append(targets, target{*chart, chartFiles, ""})
	}
	for _, t := range targets {
		if err := t.writeOrCheck(*check, stdout, stderr); err != nil {
			return err
		}
	}
	return nil
}

// target is a folder and its generated files (config/, the chart).
type target struct {
	dir         string
	files       render.Files
	handwritten string
}

// writeOrCheck writes the files under the folder, or checks it is current.
func (t target) writeOrCheck(check bool, stdout, stderr io.Writer) error {
	if check {
		diffs, err := render.Diff(t.dir, t.files)
		if err != nil {
			return err
		}
		for _, d := range diffs {
			fmt.Fprintln(stderr, d)
		}
		if len(diffs) > 0 {
			return fmt.Errorf("%s is stale: run 'make manifests' and commit the result", t.dir)
		}
		fmt.Fprintf(stdout, "manifests: %s is up to date (%d generated files)\n", t.dir, len(t.files))
		return nil
	}
	if err := render.Write(t.dir, t.files, t.handwritten); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "manifests: wrote %d generated files under %s\n", len(t.files), t.dir)
	return nil
}
