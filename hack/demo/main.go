package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/armature-dev/armature/hack/internal/stack"
	"github.com/armature-dev/armature/operator"
	"github.com/armature-dev/armature/runtime/reconciler"
)

const subscription = "00000000-0000-0000-0000-00000000d3e0"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx); err != nil {
		if ctx.Err() != nil {
			fmt.Fprintln(os.Stderr, "\ndemo: interrupted; the operator, the emulator and the control plane are stopped")
			os.Exit(130)
		}
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

func step(format string, args ...any) {
	fmt.Printf("\n\033[1m== "+format+"\033[0m\n", args...)
}

func run(ctx context.Context) error {
	ctrl.SetLogger(zap.New(zap.WriteTo(discard{})))
	started := time.Now()

	step("Starting a real kube-apiserver and etcd (envtest) with the %d generated CRDs, the Action CRD and the webhooks", len(stack.CRDFiles()))
	cp, err := stack.StartControlPlane(stack.ControlPlaneOptions{})
	if err != nil {
		return err
	}
	defer cp.Stop()
	restCfg := cp.Config
	fmt.Printf("  apiserver at %s (%s)\n", restCfg.Host, time.Since(started).Round(time.Millisecond))

	step("Starting the local ARM emulator (fakearm)")
	fa, err := startARM()
	if err != nil {
		return err
	}
	defer fa.Stop()
	fmt.Printf("  ARM at %s\n", fa.URL)

	step("Starting the operator (one generic reconciler per kind, the Action reconciler, admission and conversion webhooks)")
	op, err := stack.StartOperator(ctx, cp, fa, operator.Config{
		Reconciler: reconciler.Config{SubscriptionID: subscription, PollInterval: 300 * time.Millisecond},
		ARMToken:   "demo",
		// The demo's namespaces have no credential Secret: the emulator
		// accepts the operator's own token everywhere.
		DefaultCredentialNamespaces: []string{"*"},
	})
	defer op.Stop()
	if err != nil {
		return err
	}

	ns := "demo"
	k8s, err := newClient(ctx, restCfg, ns)
	if err != nil {
		return err
	}
	objs := demoObjects(ns)
	readyAt, err := applyAll(ctx, k8s, objs)
	if err != nil {
		return err
	}
	sa := objs[1]
	if err := editWritable(ctx, k8s, fa.Running, sa); err != nil {
		return err
	}
	refuseCreateOnly(ctx, k8s, sa, objs[5])
	if err := showVersions(ctx, k8s, sa); err != nil {
		return err
	}
	if err := runAction(ctx, k8s, fa.Running, ns); err != nil {
		return err
	}
	if err := runStack(ctx, k8s, fa.Running, ns); err != nil {
		return err
	}
	if err := deleteAll(ctx, k8s, fa.Running, objs); err != nil {
		return err
	}
	if err := runComposition(ctx, k8s, ns); err != nil {
		return err
	}
	summary(fa.Running, objs, readyAt, started)
	return nil
}

func obj(apiVersion, kind, ns, name string, spec map[string]any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{"apiVersion": apiVersion, "kind": kind, "metadata": map[string]any{"name": name, "namespace": ns}, "spec": spec}}
}

// refuseEdit sets a create-only field of o to value and prints how the
// apiserver refuses it.
func refuseEdit(ctx context.Context, k client.Client, o *unstructured.Unstructured, value string, fields ...string) {
	cur := get(ctx, k, o)
	_ = unstructured.SetNestedField(cur.Object, value, fields...)
	if err := k.Update(ctx, cur); err != nil {
		fmt.Printf("  refused by the apiserver before anything reached Azure:\n    %v\n", err)
	} else {
		fmt.Printf("  %s %s: unexpectedly accepted\n", o.GetKind(), strings.Join(fields, "."))
	}
}

func get(ctx context.Context, k client.Client, o *unstructured.Unstructured) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(o.GroupVersionKind())
	_ = k.Get(ctx, client.ObjectKeyFromObject(o), u)
	return u
}

func ready(u *unstructured.Unstructured) (string, string) {
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] == "Ready" {
			s, _ := m["status"].(string)
			r, _ := m["reason"].(string)
			return s, r
		}
	}
	return "", ""
}

// watchTable prints a table of the objects whenever it changes, until all
// are Ready; it returns when each became Ready.
func watchTable(ctx context.Context, k client.Client, objs []*unstructured.Unstructured, timeout time.Duration) (map[string]time.Duration, error) {
	start := time.Now()
	at := map[string]time.Duration{}
	last := ""
	for {
		var b strings.Builder
		tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "  KIND\tNAME\tREADY\tREASON\tAZURE ID")
		all := true
		for _, o := range objs {
			u := get(ctx, k, o)
			s, r := ready(u)
			id, _, _ := unstructured.NestedString(u.Object, "status", "id")
			if s == "True" {
				if _, ok := at[o.GetName()]; !ok {
					at[o.GetName()] = time.Since(start)
				}
			} else {
				all = false
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", o.GetKind(), o.GetName(), dash(s), dash(r), dash(short(id)))
		}
		_ = tw.Flush()
		if b.String() != last {
			fmt.Printf("  t=%-5s\n%s", time.Since(start).Round(100*time.Millisecond), b.String())
			last = b.String()
		}
		if all {
			return at, nil
		}
		if time.Since(start) > timeout {
			return at, fmt.Errorf("not all Ready within %s", timeout)
		}
		select {
		case <-ctx.Done():
			return at, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func waitFor(ctx context.Context, timeout time.Duration, cond func() bool) error {
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			return fmt.Errorf("timed out after %s", timeout)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	return nil
}

func short(id string) string {
	if i := strings.Index(id, "/resourceGroups/"); i >= 0 {
		return "…" + id[i:]
	}
	return id
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
