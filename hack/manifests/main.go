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
	check := fs.Bool("check", false, "write nothing; fail when -out differs from what would be rendered")
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
	if *check {
		diffs, err := render.Diff(*out, files)
		if err != nil {
			return err
		}
		for _, d := range diffs {
			fmt.Fprintln(stderr, d)
		}
		if len(diffs) > 0 {
			return fmt.Errorf("%s is stale: run 'make manifests' and commit the result", *out)
		}
		fmt.Fprintf(stdout, "manifests: %s is up to date (%d generated files)\n", *out, len(files))
		return nil
	}
	if err := render.Write(*out, files, *handwritten); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "manifests: wrote %d generated files under %s\n", len(files), *out)
	return nil
}
