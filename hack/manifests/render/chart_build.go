package render

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"
)

// originAnnotation is where kustomize's buildMetadata originAnnotations
// says which file (or generator) an object comes from.
const originAnnotation = "config.kubernetes.io/origin"

// built is one object of a kustomize build of config/ and the file of
// config/ it comes from.
type built struct {
	obj *unstructured.Unstructured
	// origin is the file under config/ ("manager/manager.yaml"), or the
	// kustomization of the generator that made it.
	origin string
	// generator names the ConfigMap or Secret generator that made the
	// object (its name without kustomize's hash suffix); empty for a file.
	generator string
}

func (b built) id() objectID { return objectID{b.obj.GetKind(), b.obj.GetName()} }

// objectID is a kind and a name.
type objectID struct{ kind, name string }

func (id objectID) String() string { return id.kind + " " + id.name }

// buildConfig builds config/default and its base — config/default without
// the webhook (its ../webhook folder and its components: what the chart
// renders with webhook.enabled=false) and without the CRDs — from the
// hand-written files of configDir and the rendered files, in memory, as
// kubectl -k does.
func buildConfig(configDir string, files Files) (def, base []built, err error) {
	mem := filesys.MakeFsInMemory()
	if err := copyTree(mem, configDir, files); err != nil {
		return nil, nil, err
	}
	raw, err := mem.ReadFile("/config/default/kustomization.yaml")
	if err != nil {
		return nil, nil, fmt.Errorf("chart: %w", err)
	}
	var k types.Kustomization
	if err := yaml.Unmarshal(raw, &k); err != nil {
		return nil, nil, fmt.Errorf("chart: config/default/kustomization.yaml: %w", err)
	}
	// The base is written beside default, so that its relative paths hold.
	var resources []string
	for _, r := range k.Resources {
		if r != "../webhook" && r != "../crd" {
			resources = append(resources, r)
		}
	}
	if len(resources) != len(k.Resources)-2 {
		return nil, nil, fmt.Errorf("chart: config/default's resources %q lack ../crd or ../webhook: update the chart's base (hack/manifests/render/chart_build.go)", k.Resources)
	}
	k.Resources, k.Components = resources, nil
	k.BuildMetadata = []string{types.OriginAnnotations}
	if raw, err = yaml.Marshal(k); err != nil {
		return nil, nil, err
	}
	if err := mem.WriteFile("/config/chart-base/kustomization.yaml", raw); err != nil {
		return nil, nil, err
	}
	def, err = build(mem, "/config/default")
	if err != nil {
		return nil, nil, err
	}
	base, err = build(mem, "/config/chart-base")
	return def, base, err
}

// copyTree writes the hand-written files of configDir and the rendered
// files under /config of mem, and adds originAnnotations to
// config/default's kustomization.
func copyTree(mem filesys.FileSystem, configDir string, files Files) error {
	err := filepath.WalkDir(configDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		content, err := os.ReadFile(p)
		if err != nil || IsGenerated(content) {
			return err
		}
		rel, err := filepath.Rel(configDir, p)
		if err != nil {
			return err
		}
		return mem.WriteFile(path.Join("/config", filepath.ToSlash(rel)), content)
	})
	if err != nil {
		return fmt.Errorf("chart: read %s: %w", configDir, err)
	}
	for p, content := range files {
		if strings.HasPrefix(p, "crd/") && path.Base(p) != "kustomization.yaml" {
			var err error
			if content, err = stubCRD(content); err != nil {
				return fmt.Errorf("chart: config/%s: %w", p, err)
			}
		}
		if err := mem.WriteFile(path.Join("/config", p), content); err != nil {
			return err
		}
	}
	raw, err := mem.ReadFile("/config/default/kustomization.yaml")
	if err != nil {
		return fmt.Errorf("chart: %w", err)
	}
	return mem.WriteFile("/config/default/kustomization.yaml", append(raw, []byte("\nbuildMetadata: ["+types.OriginAnnotations+"]\n")...))
}

// stubCRD returns a CRD without its schemas: the chart takes from the
// build only what config/default changes in a CRD (labels, conversion),
// and kustomize takes seconds over 6 MiB of schemas.
func stubCRD(content []byte) ([]byte, error) {
	var crd map[string]any
	if err := yaml.Unmarshal(content, &crd); err != nil {
		return nil, err
	}
	versions, _, _ := unstructured.NestedSlice(crd, "spec", "versions")
	for _, v := range versions {
		if m, ok := v.(map[string]any); ok {
			delete(m, "schema")
		}
	}
	if err := unstructured.SetNestedSlice(crd, versions, "spec", "versions"); err != nil {
		return nil, err
	}
	return yaml.Marshal(crd)
}

// build runs kustomize over dir of mem and returns the objects with their
// origin, in kustomize's order.
func build(mem filesys.FileSystem, dir string) ([]built, error) {
	m, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(mem, dir)
	if err != nil {
		return nil, fmt.Errorf("chart: kustomize build config/%s: %w", path.Base(dir), err)
	}
	var out []built
	for _, r := range m.Resources() {
		raw, err := r.MarshalJSON()
		if err != nil {
			return nil, err
		}
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(raw); err != nil {
			return nil, fmt.Errorf("chart: %s: %w", r.CurId(), err)
		}
		b, err := withOrigin(u)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

// hashSuffix is the content hash kustomize appends to a generated name.
var hashSuffix = regexp.MustCompile(`-[a-z0-9]{10}$`)

// withOrigin reads and removes the origin annotation of an object.
func withOrigin(u *unstructured.Unstructured) (built, error) {
	ann := u.GetAnnotations()
	var origin struct {
		Path         string `json:"path"`
		ConfiguredIn string `json:"configuredIn"`
	}
	if err := yaml.Unmarshal([]byte(ann[originAnnotation]), &origin); err != nil {
		return built{}, fmt.Errorf("chart: %s %s: origin: %w", u.GetKind(), u.GetName(), err)
	}
	delete(ann, originAnnotation)
	if len(ann) == 0 {
		unstructured.RemoveNestedField(u.Object, "metadata", "annotations")
	} else {
		u.SetAnnotations(ann)
	}
	b := built{obj: u, origin: origin.Path}
	if origin.ConfiguredIn != "" {
		b.origin, b.generator = origin.ConfiguredIn, hashSuffix.ReplaceAllString(u.GetName(), "")
	}
	if b.origin == "" {
		return built{}, fmt.Errorf("chart: %s %s has no origin in the build", u.GetKind(), u.GetName())
	}
	// Relative to config/default (or chart-base): "../rbac/role.yaml".
	b.origin = strings.TrimPrefix(path.Clean(path.Join("default", b.origin)), "config/")
	if strings.HasPrefix(b.origin, "../") || path.IsAbs(b.origin) {
		return built{}, fmt.Errorf("chart: %s %s comes from %s, outside config/", u.GetKind(), u.GetName(), b.origin)
	}
	return b, nil
}

// find returns the object of the build with that id.
func find(objs []built, id objectID) (built, bool) {
	i := slices.IndexFunc(objs, func(b built) bool { return b.id() == id })
	if i < 0 {
		return built{}, false
	}
	return objs[i], true
}

// errNoObject says that config/ lacks an object the chart expects.
var errNoObject = errors.New("config/default's build has no such object: update the chart's rules (hack/manifests/render/chart*.go)")
