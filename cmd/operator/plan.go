package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/yaml"

	"github.com/armature-dev/armature/generated/apis"
	"github.com/armature-dev/armature/runtime/arm"
	"github.com/armature-dev/armature/runtime/descriptor"
	"github.com/armature-dev/armature/runtime/operator"
	"github.com/armature-dev/armature/runtime/reconciler"
)

// plan prints what a reconcile would send for each custom resource in a
// file, reading ARM but writing nothing:
//
//	operator plan -f cr.yaml [--scope /subscriptions/…/resourceGroups/rg]
//
// It lives in the operator binary, not in the generator CLI, because it
// needs the generated kinds (the generator must build even when generated/
// does not).
func plan(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("plan", flag.ContinueOnError)
	var cfg operator.Config
	cfg.BindFlags(fs)
	file := fs.String("f", "", "YAML file of custom resources (- for standard input)")
	scope := fs.String("scope", "", "ARM id of the owner, for resources whose spec.owner names a custom resource")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *file == "" {
		return fmt.Errorf("plan: -f FILE is required")
	}
	in := io.Reader(os.Stdin)
	if *file != "-" {
		f, err := os.Open(*file)
		if err != nil {
			return err
		}
		defer f.Close()
		in = f
	}
	cred, err := cfg.Credential()
	if err != nil {
		return err
	}
	c, err := arm.NewClient(arm.Options{Endpoint: cfg.ARMEndpoint, CAFile: cfg.ARMCAFile, Credential: cred})
	if err != nil {
		return err
	}
	byGVK := map[string]*descriptor.Descriptor{}
	for _, d := range apis.Descriptors() {
		byGVK[d.Group+"/"+d.Version+"/"+d.Kind] = d
	}
	dec := yaml.NewYAMLOrJSONDecoder(in, 4096)
	for {
		var obj map[string]any
		if err := dec.Decode(&obj); err == io.EOF {
			return nil
		} else if err != nil {
			return fmt.Errorf("%s: %w", *file, err)
		}
		if len(obj) == 0 {
			continue
		}
		u := &unstructured.Unstructured{Object: obj}
		gvk := u.GroupVersionKind()
		d := byGVK[gvk.Group+"/"+gvk.Version+"/"+gvk.Kind]
		if d == nil {
			return fmt.Errorf("%s %s: not a generated kind", u.GetAPIVersion(), u.GetKind())
		}
		p, err := reconciler.PlanFor(context.Background(), c, d, u, *scope)
		if err != nil {
			return fmt.Errorf("%s %s: %w", u.GetKind(), u.GetName(), err)
		}
		fmt.Fprintf(stdout, "%s/%s: %s", u.GetKind(), u.GetName(), p.Action)
		if p.Verb != "" {
			fmt.Fprintf(stdout, " (%s %s)", p.Verb, p.ID)
			b, _ := json.MarshalIndent(p.Body, "  ", "  ")
			fmt.Fprintf(stdout, "\n  %s", strings.TrimSpace(string(b)))
		} else {
			fmt.Fprintf(stdout, " (%s is as the spec says)", p.ID)
		}
		fmt.Fprintln(stdout)
	}
}
