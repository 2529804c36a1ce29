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
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/yaml"

	actionsv1alpha1 "github.com/armature-dev/armature/api/actions/v1alpha1"
	"github.com/armature-dev/armature/generated/apis"
	"github.com/armature-dev/armature/operator"
	"github.com/armature-dev/armature/runtime/action"
	"github.com/armature-dev/armature/runtime/arm"
	"github.com/armature-dev/armature/runtime/descriptor"
	"github.com/armature-dev/armature/runtime/reconciler"
)

// plan prints what a reconcile would send for each custom resource in a
// file, reading ARM but writing nothing:
//
//	operator plan -f cr.yaml [--scope /subscriptions/…/resourceGroups/rg]
//
// With --delete it prints, reading nothing, the order in which the
// operator would send the DELETEs of the file's objects deleted together.
//
// For an Action (actions.azure.armature.dev) it prints the POST the Action
// would send — path, api-version, query and body, secret parameters shown
// by their Secret — after the webhook's checks, without reading ARM
// (--target-id gives the id of a target named by kind and name).
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
	targetID := fs.String("target-id", "", "ARM id of the target of Actions whose spec.target names a custom resource (its status.id); default: a placeholder")
	deleting := fs.Bool("delete", false, "print the order in which the operator sends the DELETEs of the file's objects deleted together (kubectl delete -f), reading nothing")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *file == "" {
		return fmt.Errorf("plan: -f FILE is required")
	}
	if *deleting {
		return planDelete(*file, stdout)
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
	conf, err := cfg.CloudConfiguration()
	if err != nil {
		return err
	}
	c, err := arm.NewClient(arm.Options{Cloud: conf, CAFile: cfg.ARMCAFile, Credential: cred})
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
		if gvk.Group == actionsv1alpha1.GroupVersion.Group {
			if err := planAction(stdout, u, *targetID); err != nil {
				return err
			}
			continue
		}
		d := byGVK[gvk.Group+"/"+gvk.Version+"/"+gvk.Kind]
		if d == nil {
			return fmt.Errorf("%s %s: not a generated kind", u.GetAPIVersion(), u.GetKind())
		}
		p, err := reconciler.PlanFor(context.Background(), c, d, u, *scope, cfg.Reconciler.SubscriptionID)
		if err != nil {
			return fmt.Errorf("%s %s: %w", u.GetKind(), u.GetName(), err)
		}
		fmt.Fprintf(stdout, "%s/%s: %s", u.GetKind(), u.GetName(), p.Action)
		if p.Verb != "" {
			fmt.Fprintf(stdout, " (%s %s)", p.Verb, p.ID)
			if p.Action == "update" {
				fmt.Fprintf(stdout, ": %s", p.Reason)
			}
			b, _ := json.MarshalIndent(p.Body, "  ", "  ")
			fmt.Fprintf(stdout, "\n  %s", strings.TrimSpace(string(b)))
		} else {
			fmt.Fprintf(stdout, " (%s is as the spec says)", p.ID)
		}
		fmt.Fprintln(stdout)
	}
}

// planAction prints the POST an Action would send.
func planAction(w io.Writer, u *unstructured.Unstructured, targetID string) error {
	if u.GetKind() != "Action" {
		return fmt.Errorf("%s %s: not a kind of %s", u.GetAPIVersion(), u.GetKind(), actionsv1alpha1.GroupVersion.Group)
	}
	var a actionsv1alpha1.Action
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &a); err != nil {
		return fmt.Errorf("Action %s: %w", u.GetName(), err)
	}
	p, errs := action.NewRegistry(apis.Descriptors()).PlanFor(&a, targetID)
	if len(errs) > 0 {
		return fmt.Errorf("Action %s: %w", u.GetName(), errs.ToAggregate())
	}
	fmt.Fprintf(w, "Action/%s: %s %s", u.GetName(), p.Method, p.URL())
	if p.LongRunning {
		fmt.Fprint(w, " (long-running: polled to its end)")
	}
	if p.Body != nil {
		b, _ := json.MarshalIndent(p.Body, "  ", "  ")
		fmt.Fprintf(w, "\n  %s", strings.TrimSpace(string(b)))
	} else {
		fmt.Fprint(w, "\n  (no body)")
	}
	fmt.Fprintln(w)
	return nil
}

// planDelete prints the DELETE order of the objects of a file deleted
// together (reconciler.DeleteOrder), one wave per line.
func planDelete(file string, stdout io.Writer) error {
	in := io.Reader(os.Stdin)
	if file != "-" {
		f, err := os.Open(file)
		if err != nil {
			return err
		}
		defer f.Close()
		in = f
	}
	byGVK := map[schema.GroupVersionKind]*descriptor.Descriptor{}
	for _, d := range apis.Descriptors() {
		byGVK[d.GroupVersionKind()] = d
	}
	var objs []*unstructured.Unstructured
	dec := yaml.NewYAMLOrJSONDecoder(in, 4096)
	for {
		var obj map[string]any
		if err := dec.Decode(&obj); err == io.EOF {
			break
		} else if err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		if len(obj) > 0 {
			objs = append(objs, &unstructured.Unstructured{Object: obj})
		}
	}
	waves, err := reconciler.DeleteOrder(objs, func(gvk schema.GroupVersionKind) *descriptor.Descriptor { return byGVK[gvk] })
	for i, w := range waves {
		fmt.Fprintf(stdout, "%d.", i+1)
		for _, s := range w {
			fmt.Fprintf(stdout, " %s/%s", s.Kind, s.Name)
			if len(s.WaitsFor) > 0 {
				fmt.Fprintf(stdout, " (after %s)", strings.Join(s.WaitsFor, ", "))
			}
		}
		fmt.Fprintln(stdout)
	}
	return err
}
