package samples

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/armature-dev/armature/test/envtestutil"
)

// generatedSuffix ends the API group of every generated kind; the Action
// samples (actions.azure.armature.dev) are no generated kind.
const (
	generatedSuffix = ".azure.armature.dev"
	actionsGroup    = "actions.azure.armature.dev"
)

// object is what the tests read of a sample.
type object struct {
	group, kind, name string
	obj               map[string]any
}

// sampleFiles reads the generated sample files of config/samples: file →
// objects in order.
func sampleFiles(t *testing.T) map[string][]object {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(envtestutil.RepoRoot(), "config", "samples", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no samples in config/samples: %v", err)
	}
	out := map[string][]object{}
	for _, f := range files {
		if filepath.Base(f) == "kustomization.yaml" || strings.HasPrefix(filepath.Base(f), actionsGroup) {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(b), 4096)
		for {
			var m map[string]any
			if err := dec.Decode(&m); err == io.EOF {
				break
			} else if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if m == nil {
				continue
			}
			group, _, _ := strings.Cut(m["apiVersion"].(string), "/")
			if !strings.Contains(m["apiVersion"].(string), "/") {
				group = ""
			}
			meta, _ := m["metadata"].(map[string]any)
			name, _ := meta["name"].(string)
			out[filepath.Base(f)] = append(out[filepath.Base(f)], object{group: group, kind: m["kind"].(string), name: name, obj: m})
		}
	}
	return out
}

// armID matches what the examples' ids look like.
var armID = regexp.MustCompile(`(?i)(^|[^a-z])(/?subscriptions/|/providers/[a-z]+\.[a-z]+/|/resourcegroups/)`)

// TestSamplesAreSets checks each file: every spec.owner and every …Ref,
// …Refs and Secret reference names an object written before it in the
// same file (an owner without a kind is the owner kind the operator
// knows: only its name is checked), and no value or key holds an ARM id.
func TestSamplesAreSets(t *testing.T) {
	files := sampleFiles(t)
	crs := 0
	for file, objs := range files {
		t.Run(file, func(t *testing.T) {
			seen := map[string]bool{} // kind/name, and name alone
			for _, o := range objs {
				where := fmt.Sprintf("%s %s", o.kind, o.name)
				if strings.HasSuffix(o.group, generatedSuffix) {
					crs++
					spec, _ := o.obj["spec"].(map[string]any)
					if owner, ok := spec["owner"].(map[string]any); ok {
						if owner["armId"] != nil {
							t.Errorf("%s: owner by ARM id %v", where, owner["armId"])
						}
						if !seen[key(owner)] {
							t.Errorf("%s: owner %v is not an object before it in the file", where, owner)
						}
					}
					walk(spec, "spec", func(path string, v any) {
						switch x := v.(type) {
						case string:
							if armID.MatchString(x) {
								t.Errorf("%s: %s holds an ARM id: %s", where, path, x)
							}
						case map[string]any:
							for k := range x {
								if armID.MatchString(k) {
									t.Errorf("%s: %s has an ARM id as a key: %s", where, path, k)
								}
							}
							if strings.HasSuffix(path, "Ref") && !seen[key(x)] {
								t.Errorf("%s: %s names %v, no object before it in the file", where, path, x)
							}
							if n, ok := x["name"].(string); ok && len(x) == 2 && x["key"] != nil && !seen["Secret/"+n] {
								t.Errorf("%s: %s reads Secret %s, not in the file before it", where, path, n)
							}
						}
					})
				}
				seen[o.kind+"/"+o.name] = true
				seen[o.name] = true
			}
		})
	}
	if crs == 0 {
		t.Fatal("no custom resource in config/samples")
	}
}

// key is how an owner or a reference is found in seen.
func key(ref map[string]any) string {
	name, _ := ref["name"].(string)
	if kind, ok := ref["kind"].(string); ok {
		return kind + "/" + name
	}
	return name
}

// walk calls f on every value below v; the items of a …Refs list are
// walked as …Ref values.
func walk(v any, path string, f func(string, any)) {
	f(path, v)
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			walk(e, path+"."+k, f)
		}
	case []any:
		p := path + "[*]"
		if strings.HasSuffix(path, "Refs") {
			p = strings.TrimSuffix(path, "s")
		}
		for _, e := range x {
			walk(e, p, f)
		}
	}
}

// readyLine is the summary line of make samples.
var readyLine = regexp.MustCompile(`(?m)^samples Ready: (\d+)/(\d+)`)

// TestMakeSamples builds hack/samples, runs it over config/samples and
// checks that it passes its threshold and counted every custom resource
// of the files.
func TestMakeSamples(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a sandbox: not in -short")
	}
	assets, err := envtestutil.Assets()
	if err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, objs := range sampleFiles(t) {
		for _, o := range objs {
			if strings.HasSuffix(o.group, generatedSuffix) {
				want++
			}
		}
	}
	bin := filepath.Join(t.TempDir(), "samples")
	build := exec.Command("go", "build", "-o", bin, "./hack/samples")
	build.Dir = envtestutil.RepoRoot()
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./hack/samples: %v\n%s", err, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	logs := t.TempDir()
	// Other packages share the cores under make test: a longer settle.
	cmd := exec.CommandContext(ctx, bin, "-logs", logs, "-settle", "25s", "-timeout", "150s")
	cmd.Dir = envtestutil.RepoRoot()
	cmd.Env = append(os.Environ(), "KUBEBUILDER_ASSETS="+assets, "TMPDIR="+t.TempDir())
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err = cmd.Run()
	t.Logf("make samples took %s:\n%s", time.Since(start).Round(time.Second), stdout.String())
	if err != nil {
		t.Fatalf("hack/samples: %v\nstderr:\n%s", err, stderr.String())
	}
	m := readyLine.FindStringSubmatch(stdout.String())
	if m == nil {
		t.Fatalf("no 'samples Ready: N/M' line in:\n%s", stdout.String())
	}
	ready, _ := strconv.Atoi(m[1])
	total, _ := strconv.Atoi(m[2])
	if total != want {
		t.Errorf("counted %d samples, config/samples has %d custom resources", total, want)
	}
	if ready == 0 || ready > total {
		t.Errorf("samples Ready: %d/%d", ready, total)
	}
}
