package helm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/armature-dev/armature/hack/manifests/render"
	"github.com/armature-dev/armature/test/envtestutil"
)

var (
	// helmBin is the helm CLI hack/setup-helm.sh built, helmErr why it
	// could not.
	helmBin string
	helmErr error
	// home holds helm's cache, configuration and data folders and the
	// kubeconfig of the envtest apiserver.
	home string
)

func TestMain(m *testing.M) {
	var err error
	if home, err = os.MkdirTemp("", "armature-helm-"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	helmBin, helmErr = setupHelm()
	code := m.Run()
	stopCluster()
	_ = os.RemoveAll(home)
	os.Exit(code)
}

// setupHelm runs hack/setup-helm.sh, which builds helm once (minutes) and
// prints its path.
func setupHelm() (string, error) {
	cmd := exec.Command(filepath.Join(envtestutil.RepoRoot(), "hack", "setup-helm.sh"))
	var stderr bytes.Buffer
	cmd.Stderr = io.MultiWriter(&stderr, os.Stderr)
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("hack/setup-helm.sh: %w: %s", err, lastLines(stderr.String(), 5))
	}
	return strings.TrimSpace(string(out)), nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// needHelm skips the test when helm could not be built.
func needHelm(t *testing.T) {
	t.Helper()
	if helmErr != nil {
		t.Skipf("skipped: no helm CLI (%v)", helmErr)
	}
}

// chartDir is the chart.
func chartDir() string {
	return filepath.Join(envtestutil.RepoRoot(), filepath.FromSlash(render.ChartDir))
}

// helm runs the helm CLI with its folders under home and the envtest
// kubeconfig, and returns its standard output; err carries its standard
// error.
func helm(args ...string) ([]byte, error) {
	cmd := exec.Command(helmBin, args...)
	cmd.Env = append(os.Environ(),
		"HELM_CACHE_HOME="+filepath.Join(home, "cache"),
		"HELM_CONFIG_HOME="+filepath.Join(home, "config"),
		"HELM_DATA_HOME="+filepath.Join(home, "data"),
		"KUBECONFIG="+filepath.Join(home, "kubeconfig"),
	)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.Bytes(), fmt.Errorf("helm %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return stdout.Bytes(), nil
}

// releaseName and releaseNamespace are those of every render and install.
const (
	releaseName      = "armature"
	releaseNamespace = render.Namespace
)

// valuesFile writes values (JSON is YAML) to a file for helm's -f.
func valuesFile(t *testing.T, values map[string]any) string {
	t.Helper()
	raw, err := json.Marshal(values)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "values.yaml")
	if err := os.WriteFile(p, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// template runs helm template over the chart with values and returns the
// output, or helm's error.
func template(t *testing.T, values map[string]any) ([]byte, error) {
	t.Helper()
	needHelm(t)
	return helm("template", releaseName, chartDir(), "--namespace", releaseNamespace, "-f", valuesFile(t, values))
}

// rendered runs helm template and decodes the objects.
func rendered(t *testing.T, values map[string]any) []*unstructured.Unstructured {
	t.Helper()
	out, err := template(t, values)
	if err != nil {
		t.Fatal(err)
	}
	return decode(t, out)
}

// decode splits a YAML stream into objects; empty documents are left out.
func decode(t *testing.T, stream []byte) []*unstructured.Unstructured {
	t.Helper()
	d := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(stream), 4096)
	var out []*unstructured.Unstructured
	for {
		var m map[string]any
		err := d.Decode(&m)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("decode the render: %v", err)
		}
		if len(m) == 0 {
			continue
		}
		// Through JSON, so that numbers are int64 and float64 as in
		// kustomize's objects and those read from the apiserver.
		raw, err := json.Marshal(m)
		u := &unstructured.Unstructured{}
		if err == nil {
			err = u.UnmarshalJSON(raw)
		}
		if err != nil {
			t.Fatalf("decode the render: %v", err)
		}
		out = append(out, u)
	}
}

// kustomize builds dir with kustomize's Go API (what kubectl -k runs),
// through JSON so that numbers are as helm's objects have them.
func kustomize(t *testing.T, dir string) []*unstructured.Unstructured {
	t.Helper()
	m, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		t.Fatalf("kustomize build %s: %v", dir, err)
	}
	var out []*unstructured.Unstructured
	for _, r := range m.Resources() {
		raw, err := r.MarshalJSON()
		u := &unstructured.Unstructured{}
		if err == nil {
			err = u.UnmarshalJSON(raw)
		}
		if err != nil {
			t.Fatalf("kustomize build %s: %s: %v", dir, r.CurId(), err)
		}
		out = append(out, u)
	}
	return out
}

// configDir is the committed config/.
func configDir() string { return filepath.Join(envtestutil.RepoRoot(), "config") }

// The envtest apiserver, started by the first test that needs it.
var (
	clusterOnce sync.Once
	clusterEnv  *envtest.Environment
	clusterK8s  client.Client
	clusterErr  error
)

// cluster returns a client of the envtest apiserver, whose kubeconfig is
// helm's.
func cluster(t *testing.T) client.Client {
	t.Helper()
	clusterOnce.Do(func() {
		scheme := runtime.NewScheme()
		_ = clientgoscheme.AddToScheme(scheme)
		_ = apiextensionsv1.AddToScheme(scheme)
		env, cfg, err := envtestutil.Start()
		if err != nil {
			clusterErr = err
			return
		}
		clusterEnv = env
		if clusterK8s, err = envtestutil.Client(cfg, client.Options{Scheme: scheme}); err != nil {
			clusterErr = err
			return
		}
		clusterErr = os.WriteFile(filepath.Join(home, "kubeconfig"), env.KubeConfig, 0o600)
	})
	if clusterErr != nil {
		t.Fatalf("envtest: %v", clusterErr)
	}
	return clusterK8s
}

func stopCluster() {
	if clusterEnv != nil {
		_ = clusterEnv.Stop()
	}
}

// waitEstablished waits until the CRD is served.
func waitEstablished(ctx context.Context, k8s client.Client, name string) error {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	for {
		var crd apiextensionsv1.CustomResourceDefinition
		if err := k8s.Get(ctx, client.ObjectKey{Name: name}, &crd); err == nil {
			for _, c := range crd.Status.Conditions {
				if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
					return nil
				}
			}
		} else if client.IgnoreNotFound(err) != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("CRD %s not established: %w", name, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// toJSON marshals v, for looking for a fragment in it.
func toJSON(t *testing.T, v any) string {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}
