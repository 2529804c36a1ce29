package fakearm_test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"

	"github.com/armature-dev/armature/fakearm"
	"github.com/armature-dev/armature/generator"
	"github.com/armature-dev/armature/generator/config"
	"github.com/armature-dev/armature/generator/examples"
	"github.com/armature-dev/armature/generator/model"
)

// TestReplayExamples sends every x-ms-examples PUT request of the shared
// corpus to the emulator (after creating what it needs above it) and checks
// that the resource it then returns carries the keys of the example's
// 200/201 response body — top level and under properties. An emulator that
// is too strict fails the PUT; one that is too loose misses keys.
func TestReplayExamples(t *testing.T) {
	root, _ := filepath.Abs("..")
	c, err := config.Load(filepath.Join(root, "specs", "armature.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	specs := config.ResolveSpecRoot("", c, c.Dir)
	if _, err := os.Stat(filepath.Join(specs, "specification")); err != nil {
		t.Skipf("the Azure specs are not at %s: run hack/sync-specs.sh (CI always has ../shared/specs)", specs)
	}
	a, err := generator.Analyze(generator.Options{SpecRoot: specs, Files: c.Files, Config: c, Domain: c.Domain})
	if err != nil {
		t.Fatal(err)
	}
	e := start(t, fakearm.StartOptions{})
	type tally struct{ ok, total int }
	byRP := map[string]*tally{}
	var failures []string
	n := 0
	for _, p := range a.Packages() { // older api-versions too
		for _, k := range p.Kinds {
			exs, _ := examples.Load(a.Loader.Root(), k.Resource)
			for _, ex := range exs {
				n++
				rp := byRP[k.Resource.Provider]
				if rp == nil {
					rp = &tally{}
					byRP[k.Resource.Provider] = rp
				}
				rp.total++
				if why := replay(e, k, ex, n); why != "" {
					failures = append(failures, fmt.Sprintf("%s %q (%s): %s", k.Name, ex.Title, ex.File, why))
					continue
				}
				rp.ok++
			}
		}
	}
	var rps []string
	for rp := range byRP {
		rps = append(rps, rp)
	}
	sort.Strings(rps)
	var all tally
	var b strings.Builder
	fmt.Fprintln(&b, "x-ms-examples PUT requests replayed against fakearm (accepted, and the GET carries the example response's keys):")
	for _, rp := range rps {
		x := byRP[rp]
		all.ok += x.ok
		all.total += x.total
		fmt.Fprintf(&b, "  %-28s %4d/%-4d\n", rp, x.ok, x.total)
	}
	fmt.Fprintf(&b, "  %-28s %4d/%-4d (%.1f%%)", "all", all.ok, all.total, 100*float64(all.ok)/float64(max(all.total, 1)))
	t.Log(b.String())
	for _, f := range failures {
		t.Log(f)
	}
	if all.total == 0 || float64(all.ok)/float64(all.total) < 0.95 {
		t.Errorf("%d of %d examples replayed; want at least 95%%", all.ok, all.total)
	}
}

// replay sends one example; it returns why it failed, or "".
func replay(e *env, k *model.Kind, ex examples.Example, n int) string {
	r := k.Resource
	// Each example gets its own subscription, so examples never collide.
	params := map[string]any{}
	for key, v := range ex.Params {
		params[key] = v
	}
	params["subscriptionId"] = fmt.Sprintf("00000000-0000-0000-0000-%012d", n)
	id := fill(r.Path, params)
	// Create the resource group and every ancestor with an empty body.
	segs := strings.Split(strings.Trim(id, "/"), "/")
	if len(segs) >= 4 && strings.EqualFold(segs[2], "resourceGroups") && !strings.EqualFold(r.ARMType, "Microsoft.Resources/resourceGroups") {
		rg := "/" + strings.Join(segs[:4], "/")
		if resp := e.do(http.MethodPut, rg, rgAPI, map[string]any{"location": "westus"}); resp.StatusCode >= 300 {
			return fmt.Sprintf("resource group: %d", resp.StatusCode)
		}
	}
	nTypes := len(r.Types)
	for i := nTypes - 1; i >= 1; i-- {
		parent := "/" + strings.Join(segs[:len(segs)-2*i], "/")
		resp := e.do(http.MethodPut, parent, r.APIVersion, map[string]any{})
		if resp.StatusCode >= 300 {
			return fmt.Sprintf("ancestor %s: %d", parent, resp.StatusCode)
		}
		if resp.StatusCode == http.StatusAccepted || resp.Header.Get("Azure-AsyncOperation") != "" {
			e.wait(resp)
		}
	}
	resp := e.do(http.MethodPut, id, r.APIVersion, ex.Body)
	if resp.StatusCode >= 300 {
		code, target := armCode(e.t, resp)
		return fmt.Sprintf("PUT answered %d %s %s", resp.StatusCode, code, target)
	}
	if resp.StatusCode == http.StatusAccepted || resp.Header.Get("Azure-AsyncOperation") != "" {
		p, err := runtime.NewPoller[payload](resp, e.cl.Pipeline(), nil)
		if err != nil {
			return err.Error()
		}
		if _, err := p.PollUntilDone(context.Background(), &runtime.PollUntilDoneOptions{Frequency: time.Millisecond}); err != nil {
			return "LRO: " + err.Error()
		}
	}
	got := decode(e.t, e.do(http.MethodGet, id, r.APIVersion, nil))
	want, _ := ex.Responses["200"].(map[string]any)
	if want == nil {
		want, _ = ex.Responses["201"].(map[string]any)
	}
	if want == nil {
		return ""
	}
	var missing []string
	for key := range want {
		if _, ok := got[key]; !ok {
			missing = append(missing, key)
		}
	}
	wp, _ := want["properties"].(map[string]any)
	gp, _ := got["properties"].(map[string]any)
	for key := range wp {
		if _, ok := gp[key]; !ok {
			missing = append(missing, "properties."+key)
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		return "GET lacks " + strings.Join(missing, ", ")
	}
	return ""
}

// fill puts parameter values into a path template.
func fill(template string, params map[string]any) string {
	segs := strings.Split(template, "/")
	for i, s := range segs {
		if strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}") {
			segs[i] = fmt.Sprint(params[strings.Trim(s, "{}")])
		}
	}
	return strings.Join(segs, "/")
}
