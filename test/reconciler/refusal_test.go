package reconciler_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/armature-dev/armature/fakearm"
	"github.com/armature-dev/armature/generated/apis"
	"github.com/armature-dev/armature/runtime/descriptor"
	"github.com/armature-dev/armature/runtime/reconciler"
)

// createOnlyInAzure returns the generated descriptors with one property of
// a kind classed createOnly: an emulator given them refuses to change it
// on an existing resource (400 PropertyChangeNotAllowed with its target),
// as Azure does with a property armature's classes miss.
func createOnlyInAzure(kind string, path descriptor.Path) []*descriptor.Descriptor {
	var out []*descriptor.Descriptor
	for _, d := range apis.Descriptors() {
		if d.Kind != kind {
			out = append(out, d)
			continue
		}
		c := *d
		c.Properties = slices.Clone(d.Properties)
		for i := range c.Properties {
			if c.Properties[i].Path.Equal(path) {
				c.Properties[i].Class = descriptor.CreateOnly
			}
		}
		out = append(out, &c)
	}
	return out
}

// refusalsMetric is armature_create_only_refusals_total{kind,path}.
func refusalsMetric(t *testing.T, kind, path string) float64 {
	t.Helper()
	fams, err := ctrlmetrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fams {
		if f.GetName() != "armature_create_only_refusals_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["kind"] == kind && labels["path"] == path {
				return m.GetCounter().GetValue()
			}
		}
	}
	return 0
}

// TestCreateOnlyRefusal: the emulator, like Azure, refuses a change of a
// property it sets only at create that armature classes writable (so
// neither CEL nor the webhook stopped the edit). The condition names the
// spec property, says it is create-only in Azure and how to recover,
// armature_create_only_refusals_total counts it, and the refused write is
// not sent again; restoring the value makes the object Ready.
func TestCreateOnlyRefusal(t *testing.T) {
	fa, err := fakearm.Start(createOnlyInAzure("StorageAccount", descriptor.P("properties", "accessTier")), fakearm.StartOptions{Options: fakearm.Options{LROPolls: 1, RetryAfter: -1}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = fa.Close() })
	ns := namespace(t)
	startOperator(t, fa, ns, reconciler.Config{})
	rg := resourceGroup(ns, "refusal")
	sa := storageAccount(ns, "tiered01", "refusal")
	create(t, rg, sa)
	waitReady(t, rg, sa)

	before := refusalsMetric(t, "StorageAccount", "properties.accessTier")
	cur := get(t, sa)
	_ = unstructured.SetNestedField(cur.Object, "Cool", "spec", "properties", "accessTier")
	if err := k8s.Update(context.Background(), cur); err != nil {
		t.Fatal(err)
	}
	waitReason(t, sa, "PropertyChangeNotAllowed")
	_, _, msg := readyReason(get(t, sa))
	t.Logf("condition: %s", msg)
	for _, want := range []string{
		"Azure refuses to change spec.properties.accessTier of an existing StorageAccount: it is create-only in Azure.",
		"Restore the previous value, or delete and recreate the object",
		"{kind: StorageAccount, path: properties.accessTier, class: createOnly, because: …}",
		"ARM: Changing property 'properties.accessTier' is not allowed.",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("condition message %q lacks %q", msg, want)
		}
	}
	checkCondition(t, sa, "PropertyChangeNotAllowed", "Azure refuses to change", "True")
	if got := refusalsMetric(t, "StorageAccount", "properties.accessTier") - before; got != 1 {
		t.Errorf("armature_create_only_refusals_total{StorageAccount,properties.accessTier} rose by %v, want 1", got)
	}
	id := armID("refusal", "Microsoft.Storage/storageAccounts/tiered01")
	watchWindow(time.Now(), time.Second)
	if n := calls(fa, http.MethodPatch, id); n != 1 {
		t.Errorf("%d PATCHes, want 1: the refused write waits for a change of the object", n)
	}
	// Restoring the value is the recovery the message names.
	cur = get(t, sa)
	_ = unstructured.SetNestedField(cur.Object, "Hot", "spec", "properties", "accessTier")
	if err := k8s.Update(context.Background(), cur); err != nil {
		t.Fatal(err)
	}
	waitReady(t, sa)
}
