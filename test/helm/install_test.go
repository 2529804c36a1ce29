package helm

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/armature-dev/armature/hack/manifests/render"
)

// maxSecret is the most data a Secret holds (the apiserver refuses more):
// Helm's release Secret must fit.
const maxSecret = 1 << 20

// TestInstall installs the chart with its default values (every CRD) into
// envtest with helm install, checks the release Secret fits in a Secret
// and that the subchart's CRD files are not stored in it, upgrades to one
// group (the other CRDs stay: crds.keep; the ClusterRole and the operator's
// kinds no longer name them), then applies the default render by
// server-side apply over it, as helm template | kubectl apply
// --server-side would (last: helm 4 applies server-side too, and would
// meet the test's field manager as a conflict).
func TestInstall(t *testing.T) {
	needHelm(t)
	k8s := cluster(t)
	ctx := context.Background()

	start := time.Now()
	if out, err := helm("install", releaseName, chartDir(), "--namespace", releaseNamespace, "--create-namespace", "--timeout", "5m"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	t.Logf("helm install (every CRD of the chart): %v", time.Since(start).Round(time.Millisecond))
	objs := rendered(t, nil)
	var crds int
	for _, o := range objs {
		if o.GetKind() == "CustomResourceDefinition" {
			crds++
			if err := waitEstablished(ctx, k8s, o.GetName()); err != nil {
				t.Error(err)
			}
		}
	}

	rel, stored := release(t, k8s, 1)
	if stored >= maxSecret {
		t.Fatalf("the release Secret holds %d bytes, more than a Secret can (%d)", stored, maxSecret)
	}
	figures := releaseFigures(t, rel)
	t.Logf("release Secret with %d CRDs: %d bytes (%.0f%% of 1 MiB); manifest %d bytes", crds, stored, 100*float64(stored)/maxSecret, figures.manifest)
	t.Logf("the same release were the CRDs files of the chart itself: %d bytes (%.0f%% of 1 MiB)", figures.crdsInChart, 100*float64(figures.crdsInChart)/maxSecret)
	t.Logf("without CRDs: %d bytes; each MiB of CRD YAML selected adds %d bytes: about %.1f MiB of CRD YAML fit",
		figures.noCRDs, figures.perMiB, float64(maxSecret-figures.noCRDs)/float64(figures.perMiB))
	// Helm marshals a struct, the test a map (keys in another order): the
	// compressed sizes differ by a few bytes.
	if d := figures.encoded - stored; d*100 > stored || -d*100 > stored {
		t.Errorf("re-encoding the release as Helm does gives %d bytes, the Secret holds %d: the figures above do not model Helm", figures.encoded, stored)
	}

	t.Run("UpgradeToOneGroup", func(t *testing.T) {
		if out, err := helm("upgrade", releaseName, chartDir(), "--namespace", releaseNamespace, "--set", "groups={storage}", "--timeout", "5m"); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		var rg apiextensionsv1.CustomResourceDefinition
		if err := k8s.Get(ctx, client.ObjectKey{Name: "resourcegroups.resources.azure.armature.dev"}, &rg); err != nil {
			t.Errorf("the ResourceGroup CRD, no longer chosen, is gone (crds.keep): %v", err)
		}
		var role rbacv1.ClusterRole
		if err := k8s.Get(ctx, client.ObjectKey{Name: render.RoleName}, &role); err != nil {
			t.Fatal(err)
		}
		for _, r := range role.Rules {
			for _, g := range r.APIGroups {
				if g != "" && g != "storage.azure.armature.dev" {
					t.Errorf("after the upgrade the ClusterRole still has a rule on %s", g)
				}
			}
		}
		var cm corev1.ConfigMap
		if err := k8s.Get(ctx, client.ObjectKey{Namespace: releaseNamespace, Name: "armature-operator-config"}, &cm); err != nil {
			t.Fatal(err)
		}
		if got := cm.Data["ARMATURE_KINDS"]; got != "storage.azure.armature.dev/*" {
			t.Errorf("ARMATURE_KINDS = %q after the upgrade", got)
		}
		_, stored := release(t, k8s, 2)
		t.Logf("release Secret with the storage group's CRDs: %d bytes", stored)
	})
	t.Run("ServerSideApply", func(t *testing.T) {
		applied := 0
		for _, o := range objs {
			if err := k8s.Apply(ctx, client.ApplyConfigurationFromUnstructured(o.DeepCopy()), client.FieldOwner("armature-helm-test"), client.ForceOwnership); err != nil {
				t.Errorf("server-side apply %s %s: %v", o.GetKind(), o.GetName(), err)
				continue
			}
			applied++
		}
		if applied != len(objs) || applied < crds+20 {
			t.Errorf("applied %d of %d objects", applied, len(objs))
		}
	})
}

// release reads revision v of the release from its Secret and returns it
// decoded (Helm's encoding: JSON, gzip, base64) and its stored size.
func release(t *testing.T, k8s client.Client, v int) (map[string]any, int) {
	t.Helper()
	var s corev1.Secret
	name := fmt.Sprintf("sh.helm.release.v1.%s.v%d", releaseName, v)
	if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: releaseNamespace, Name: name}, &s); err != nil {
		t.Fatalf("the release Secret: %v", err)
	}
	data := s.Data["release"]
	gz, err := base64.StdEncoding.DecodeString(string(data))
	if err != nil {
		t.Fatal(err)
	}
	r, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	var rel map[string]any
	if err := json.Unmarshal(raw, &rel); err != nil {
		t.Fatal(err)
	}
	return rel, len(data)
}

// encode is Helm's release encoding (pkg/storage/driver encodeRelease):
// JSON, gzip at best compression, base64; it returns the length.
func encode(t *testing.T, rel map[string]any) int {
	t.Helper()
	raw, err := json.Marshal(rel)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	w, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	_, _ = w.Write(raw)
	_ = w.Close()
	return base64.StdEncoding.EncodedLen(b.Len())
}

// sizes are figures of a release with every CRD of the chart.
type sizes struct {
	// encoded is the release re-encoded as Helm does (the Secret's size,
	// within a few bytes, when the model holds).
	encoded int
	// crdsInChart is the release had the CRD files been files of the
	// chart itself (Helm stores a chart's files, not its subcharts').
	crdsInChart int
	// noCRDs is the release with no CRD in its manifest.
	noCRDs int
	// perMiB is what each MiB of CRD YAML in the manifest adds.
	perMiB int
	// manifest is the rendered manifest's size.
	manifest int
}

// releaseFigures checks that the stored chart holds none of the subchart's
// CRD files, and works out the figures of sizes from the release.
func releaseFigures(t *testing.T, rel map[string]any) sizes {
	t.Helper()
	chart, _ := rel["chart"].(map[string]any)
	files, _ := chart["files"].([]any)
	for _, f := range files {
		if name := fmt.Sprint(f.(map[string]any)["name"]); strings.HasPrefix(name, "files/") || strings.Contains(name, "CustomResourceDefinition") {
			t.Errorf("the stored chart holds %s: the CRD files count twice", name)
		}
	}
	manifest, _ := rel["manifest"].(string)
	if n := strings.Count(manifest, "\nkind: CustomResourceDefinition\n"); n < 50 {
		t.Fatalf("the release manifest holds %d CRDs", n)
	}
	var fig sizes
	fig.manifest = len(manifest)
	fig.encoded = encode(t, rel)

	// The CRD files as files of the chart: what a chart without the
	// subchart would store.
	var crdFiles []any
	err := filepath.WalkDir(filepath.Join(chartDir(), "charts", render.CRDChart, "files"), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(filepath.Join(chartDir(), "charts", render.CRDChart), p)
		crdFiles = append(crdFiles, map[string]any{"name": filepath.ToSlash(rel), "data": data})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	with := deepCopy(t, rel)
	wc := with["chart"].(map[string]any)
	wc["files"] = append(append([]any{}, files...), crdFiles...)
	fig.crdsInChart = encode(t, with)

	// The manifest without its CRDs.
	var kept []string
	var crdYAML int
	for _, doc := range strings.Split(manifest, "\n---\n") {
		if strings.Contains(doc, "\nkind: CustomResourceDefinition\n") {
			crdYAML += len(doc)
			continue
		}
		kept = append(kept, doc)
	}
	without := deepCopy(t, rel)
	without["manifest"] = strings.Join(kept, "\n---\n")
	fig.noCRDs = encode(t, without)
	fig.perMiB = int(float64(fig.encoded-fig.noCRDs) / (float64(crdYAML) / (1 << 20)))
	return fig
}

func deepCopy(t *testing.T, v map[string]any) map[string]any {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	return out
}
