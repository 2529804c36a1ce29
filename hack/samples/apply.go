package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/armature-dev/armature/generated/apis"
	"github.com/armature-dev/armature/hack/internal/stack"
)

// reasonRefused is the reason printed for a sample the apiserver (or the
// webhook) refused: it never reached the operator.
const reasonRefused = "AdmissionRefused"

// generatedKinds are the group/kinds of the generated Descriptors.
func generatedKinds() map[schema.GroupKind]bool {
	out := map[schema.GroupKind]bool{}
	for _, d := range apis.Descriptors() {
		out[d.GroupVersionKind().GroupKind()] = true
	}
	return out
}

// sample is one object of a sample file.
type sample struct {
	file string
	obj  *unstructured.Unstructured
	// counted is set for a custom resource of a generated kind.
	counted bool
}

// readSamples reads the YAML files of dir in name order (kustomization.yaml
// aside): Secrets, ConfigMaps and the custom resources of generated kinds.
// Documents of other kinds (the Action samples) are left out.
func readSamples(dir string) ([]sample, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	kinds := generatedKinds()
	var out []sample
	for _, f := range files {
		if filepath.Base(f) == "kustomization.yaml" {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(b), 4096)
		for {
			var m map[string]any
			if err := dec.Decode(&m); err == io.EOF {
				break
			} else if err != nil {
				return nil, fmt.Errorf("%s: %w", f, err)
			}
			if m == nil {
				continue
			}
			u := &unstructured.Unstructured{Object: m}
			gk := u.GroupVersionKind().GroupKind()
			core := gk.Group == "" && (gk.Kind == "Secret" || gk.Kind == "ConfigMap")
			if !core && !kinds[gk] {
				continue
			}
			u.SetNamespace(namespace)
			out = append(out, sample{file: filepath.Base(f), obj: u, counted: !core})
		}
	}
	return out, nil
}

// state is what the wait reads of a custom resource.
type state struct {
	kind, name, file string
	ready            bool
	reason, message  string
}

// result is the states at the end of the wait.
type result struct {
	states  []state
	ready   int
	elapsed time.Duration
}

func (r result) total() int { return len(r.states) }

// print writes the summary line and the samples that are not Ready.
func (r result) print(w io.Writer) {
	fmt.Fprintf(w, "samples Ready: %d/%d (%s after the first apply)\n", r.ready, r.total(), r.elapsed.Round(100*time.Millisecond))
	if r.ready == r.total() {
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KIND\tNAME\tREASON\tMESSAGE")
	for _, s := range r.states {
		if !s.ready {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", s.kind, s.name, s.reason, oneLine(s.message))
		}
	}
	_ = tw.Flush()
}

// oneLine shortens a message to one line of at most 300 characters.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 300 {
		s = s[:297] + "..."
	}
	return s
}

// applyAndWait creates the objects in order, then polls the custom
// resources until all are Ready, none has changed for o.settle, or
// o.timeout has passed.
func applyAndWait(ctx context.Context, cp *stack.ControlPlane, objs []sample, o options) (result, error) {
	k8s, err := client.New(cp.Config, client.Options{})
	if err != nil {
		return result{}, err
	}
	start := time.Now()
	refused := map[int]string{}
	for i, s := range objs {
		if err := k8s.Create(ctx, s.obj.DeepCopy()); err != nil {
			if !s.counted {
				return result{}, fmt.Errorf("%s: %s %s: %w", s.file, s.obj.GetKind(), s.obj.GetName(), err)
			}
			refused[i] = err.Error()
		}
	}
	deadline := start.Add(o.timeout)
	var last string
	lastChange := time.Now()
	for {
		res := result{elapsed: time.Since(start)}
		var sig strings.Builder
		for i, s := range objs {
			if !s.counted {
				continue
			}
			st := state{kind: s.obj.GetKind(), name: s.obj.GetName(), file: s.file}
			if msg, ok := refused[i]; ok {
				st.reason, st.message = reasonRefused, msg
			} else {
				st = observe(ctx, k8s, s, st)
			}
			if st.ready {
				res.ready++
			}
			res.states = append(res.states, st)
			fmt.Fprintf(&sig, "%s/%s=%t/%s;", st.kind, st.name, st.ready, st.reason)
		}
		if sig.String() != last {
			last, lastChange = sig.String(), time.Now()
			progress("%d/%d Ready", res.ready, res.total())
		}
		switch {
		case res.ready == res.total():
			return res, nil
		case time.Since(lastChange) >= o.settle:
			progress("nothing changed for %s: stop waiting", o.settle)
			return res, nil
		case time.Now().After(deadline):
			progress("timed out after %s", o.timeout)
			return res, nil
		}
		select {
		case <-ctx.Done():
			return res, ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// observe reads the Ready condition of a custom resource: Ready when it
// is True for the current generation.
func observe(ctx context.Context, k8s client.Client, s sample, st state) state {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(s.obj.GroupVersionKind())
	if err := k8s.Get(ctx, client.ObjectKeyFromObject(s.obj), u); err != nil {
		st.reason, st.message = "GetFailed", err.Error()
		return st
	}
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	st.reason = "NoCondition"
	st.message = "no Ready condition yet (a new object whose owner exists but is not Ready writes none for its first 2 minutes)"
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] != "Ready" {
			continue
		}
		st.reason, _ = m["reason"].(string)
		st.message, _ = m["message"].(string)
		gen, _ := m["observedGeneration"].(int64)
		st.ready = m["status"] == "True" && (gen == 0 || gen == u.GetGeneration())
	}
	return st
}
