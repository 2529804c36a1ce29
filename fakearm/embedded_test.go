package fakearm_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/armature-dev/armature/fakearm"
	"github.com/armature-dev/armature/generated/apis"
	fabrikam "github.com/armature-dev/armature/generator/testdata/embedded/expected/apis/fabrikam/v20240501"
)

const (
	fabAPI = "2024-05-01"
	net    = rg + "/providers/Microsoft.Fabrikam/nets/vnet1"
)

// startFabrikam serves the generated kinds and the embedded golden case's.
func startFabrikam(t *testing.T) *env {
	t.Helper()
	e := startWith(t, append(apis.Descriptors(), fabrikam.Descriptors()...), fakearm.StartOptions{})
	e.resourceGroup()
	return e
}

// subnetNames returns the names in a net's GET properties.subnets.
func subnetNames(t *testing.T, body map[string]any) []string {
	t.Helper()
	props, _ := body["properties"].(map[string]any)
	var out []string
	for _, s := range props["subnets"].([]any) {
		out = append(out, s.(map[string]any)["name"].(string))
	}
	slices.Sort(out)
	return out
}

func subnetBody(prefix string) map[string]any {
	return map[string]any{"properties": map[string]any{"addressPrefix": prefix}}
}

func netBody(tags map[string]any, subnets ...any) map[string]any {
	b := map[string]any{"location": "westeurope", "tags": tags, "properties": map[string]any{"addressPrefix": "10.0.0.0/16"}}
	if subnets != nil {
		b["properties"].(map[string]any)["subnets"] = subnets
	}
	return b
}

// TestEmbeddedChildren: the emulator serves a parent's child collection
// and the child paths as one set of resources, and a parent PUT replaces
// the children as Network does: the ones its body does not name are
// deleted, and journaled as removed by that PUT.
func TestEmbeddedChildren(t *testing.T) {
	e := startFabrikam(t)
	e.wait(e.do(http.MethodPut, net, fabAPI, netBody(map[string]any{"env": "dev"})))
	e.wait(e.do(http.MethodPut, net+"/subnets/a", fabAPI, subnetBody("10.0.1.0/24")))
	e.wait(e.do(http.MethodPut, net+"/subnets/b", fabAPI, subnetBody("10.0.2.0/24")))

	got := decode(t, e.do(http.MethodGet, net, fabAPI, nil))
	if diff := slices.Compare(subnetNames(t, got), []string{"a", "b"}); diff != 0 {
		t.Fatalf("child PUTs show in the parent's GET: %v", subnetNames(t, got))
	}
	first := got["properties"].(map[string]any)["subnets"].([]any)[0].(map[string]any)
	if first["id"] != net+"/subnets/a" || first["type"] != "Microsoft.Fabrikam/nets/subnets" || first["properties"].(map[string]any)["addressPrefix"] != "10.0.1.0/24" {
		t.Errorf("an embedded child is the child's own GET body: %v", first)
	}

	// A tags PATCH does not carry the collection: the children stay.
	e.do(http.MethodPatch, net, fabAPI, map[string]any{"tags": map[string]any{"env": "prod"}}).Body.Close()
	if names := subnetNames(t, decode(t, e.do(http.MethodGet, net, fabAPI, nil))); len(names) != 2 {
		t.Errorf("a PATCH without the collection keeps the children: %v", names)
	}

	// A PUT naming a (changed) and c: b is deleted, c created.
	e.fab().ResetJournal()
	e.wait(e.do(http.MethodPut, net, fabAPI, netBody(map[string]any{"env": "prod"},
		map[string]any{"name": "a", "properties": map[string]any{"addressPrefix": "10.0.5.0/24"}},
		map[string]any{"name": "c", "properties": map[string]any{"addressPrefix": "10.0.3.0/24"}})))
	if names := subnetNames(t, decode(t, e.do(http.MethodGet, net, fabAPI, nil))); slices.Compare(names, []string{"a", "c"}) != 0 {
		t.Errorf("the PUT's collection is the set of children: %v", names)
	}
	if resp := e.do(http.MethodGet, net+"/subnets/b", fabAPI, nil); resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET of the subnet the PUT left out: %d, want 404", resp.StatusCode)
	}
	a := decode(t, e.do(http.MethodGet, net+"/subnets/a", fabAPI, nil))
	if a["properties"].(map[string]any)["addressPrefix"] != "10.0.5.0/24" {
		t.Errorf("the PUT's item updates the child at its own path: %v", a)
	}
	if removed := e.removedBy(http.MethodPut, net); slices.Compare(removed, []string{net + "/subnets/b"}) != 0 {
		t.Errorf("the journal names what the PUT removed: %v", removed)
	}

	// A PUT without the collection deletes every child (Network's
	// behaviour the emulator follows; docs/emulator.md).
	e.wait(e.do(http.MethodPut, net, fabAPI, netBody(map[string]any{"env": "prod"})))
	if names := subnetNames(t, decode(t, e.do(http.MethodGet, net, fabAPI, nil))); len(names) != 0 {
		t.Errorf("a PUT without subnets leaves none: %v", names)
	}
	if resp := e.do(http.MethodGet, net+"/subnets/a", fabAPI, nil); resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET of a subnet after a PUT without subnets: %d, want 404", resp.StatusCode)
	}

	// A child DELETE shows in the parent's GET.
	e.wait(e.do(http.MethodPut, net+"/subnets/d", fabAPI, subnetBody("10.0.4.0/24")))
	e.wait(e.do(http.MethodDelete, net+"/subnets/d", fabAPI, nil))
	if names := subnetNames(t, decode(t, e.do(http.MethodGet, net, fabAPI, nil))); len(names) != 0 {
		t.Errorf("a deleted child leaves the parent's collection: %v", names)
	}
}

// fab returns the running emulator.
func (e *env) fab() *fakearm.Server { return e.arm.Server }

// removedBy returns what the journaled requests of a method on a path
// removed besides their target.
func (e *env) removedBy(method, path string) []string {
	var out []string
	for _, j := range e.fab().Journal() {
		if j.Method == method && strings.EqualFold(j.Path, path) {
			out = append(out, j.Removed...)
		}
	}
	return out
}
