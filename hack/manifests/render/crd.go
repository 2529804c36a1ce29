package render

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// crd is one CRD file to render.
type crd struct {
	// source is the file, relative to the repository root.
	source string
	// body is the file without a leading Header line.
	body              []byte
	name, group, kind string
	plural            string
	versions          []string // served versions
	// allVersions are every version, served or not (objects may be
	// stored in any).
	allVersions []string
	extraRules  []Rule
	// samplesDir holds an extra CRD's samples.
	samplesDir string
	// webhook is an extra CRD's validating webhook entry.
	webhook *admissionregistrationv1.ValidatingWebhook
}

func (c *crd) gk() schema.GroupKind { return schema.GroupKind{Group: c.group, Kind: c.kind} }

// readCRDs reads the generated CRDs and the extra ones that exist, sorted
// by group and plural. Two files defining one CRD are an error.
func readCRDs(o Options) ([]*crd, error) {
	entries, err := os.ReadDir(o.CRDDir)
	if err != nil {
		return nil, fmt.Errorf("render: CRD folder: %w", err)
	}
	var out []*crd
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".yaml") {
			continue
		}
		c, err := readCRD(o.Root, filepath.Join(o.CRDDir, e.Name()))
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	for _, x := range o.Extra {
		c, err := readCRD(o.Root, x.Path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		c.extraRules, c.samplesDir, c.webhook = x.Rules, x.SamplesDir, x.Webhook
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].group != out[j].group {
			return out[i].group < out[j].group
		}
		return out[i].plural < out[j].plural
	})
	for i := 1; i < len(out); i++ {
		if out[i].name == out[i-1].name {
			return nil, fmt.Errorf("render: CRD %s is defined by both %s and %s", out[i].name, out[i-1].source, out[i].source)
		}
	}
	return out, nil
}

// readCRD reads a file holding exactly one CRD.
func readCRD(root, path string) (*crd, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	rel, err := filepath.Rel(root, path)
	if err != nil {
		rel = path
	}
	rel = filepath.ToSlash(rel)
	docs, err := documents(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", rel, err)
	}
	if len(docs) != 1 {
		return nil, fmt.Errorf("%s: want one CRD, found %d YAML documents", rel, len(docs))
	}
	var obj apiextensionsv1.CustomResourceDefinition
	if err := yaml.UnmarshalStrict(docs[0], &obj); err != nil {
		return nil, fmt.Errorf("%s: %w", rel, err)
	}
	if obj.Kind != "CustomResourceDefinition" || obj.Spec.Group == "" || obj.Spec.Names.Plural == "" || obj.Spec.Names.Kind == "" {
		return nil, fmt.Errorf("%s: not a CustomResourceDefinition with spec.group, spec.names.plural and spec.names.kind", rel)
	}
	if want := obj.Spec.Names.Plural + "." + obj.Spec.Group; obj.Name != want {
		return nil, fmt.Errorf("%s: metadata.name is %q, want %q", rel, obj.Name, want)
	}
	c := &crd{
		source: rel, body: bytes.TrimPrefix(raw, []byte(Header)),
		name: obj.Name, group: obj.Spec.Group, kind: obj.Spec.Names.Kind, plural: obj.Spec.Names.Plural,
	}
	for _, v := range obj.Spec.Versions {
		c.allVersions = append(c.allVersions, v.Name)
		if v.Served {
			c.versions = append(c.versions, v.Name)
		}
	}
	if len(c.versions) == 0 {
		return nil, fmt.Errorf("%s: spec.versions: no served version", rel)
	}
	return c, nil
}

// documents splits YAML into its non-empty documents.
func documents(raw []byte) ([][]byte, error) {
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(raw)))
	var out [][]byte
	for {
		doc, err := r.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(stripComments(doc))) > 0 {
			out = append(out, doc)
		}
	}
}

// stripComments drops whole-line comments (a document of only comments is
// empty).
func stripComments(doc []byte) []byte {
	var b bytes.Buffer
	for _, line := range bytes.Split(doc, []byte("\n")) {
		t := bytes.TrimSpace(line)
		if bytes.HasPrefix(t, []byte("#")) || bytes.Equal(t, []byte("---")) {
			continue
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// crdFiles renders crd/: one folder per group with the group's CRDs and a
// kustomization, and a kustomization of every group.
func crdFiles(files Files, crds []*crd) {
	byGroup := map[string][]*crd{}
	var groups []string
	for _, c := range crds {
		if byGroup[c.group] == nil {
			groups = append(groups, c.group)
		}
		byGroup[c.group] = append(byGroup[c.group], c)
	}
	sort.Strings(groups)
	top := kustomization(`# Every CRD, one folder (and kustomization) per API group. Install one group
# alone with:
#   kubectl apply --server-side -k config/crd/<group>
`, groups)
	files["crd/kustomization.yaml"] = top
	for _, g := range groups {
		var names []string
		for _, c := range byGroup[g] {
			name := c.plural + ".yaml"
			names = append(names, name)
			var b bytes.Buffer
			b.WriteString(Header)
			fmt.Fprintf(&b, "# Copied from %s by hack/manifests.\n", c.source)
			b.Write(c.body)
			files["crd/"+g+"/"+name] = b.Bytes()
		}
		files["crd/"+g+"/kustomization.yaml"] = kustomization(fmt.Sprintf("# The CRDs of %s.\n", g), names)
	}
}

// kustomization renders a Kustomization of resources.
func kustomization(comment string, resources []string) []byte {
	var b bytes.Buffer
	b.WriteString(Header)
	b.WriteString(comment)
	b.WriteString("apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n")
	for _, r := range resources {
		fmt.Fprintf(&b, "- %s\n", r)
	}
	return b.Bytes()
}

// conversionFiles renders components/conversion: for every CRD with
// more than one version, a patch that sends conversions to the operator's
// ConversionPath (webhook/conversion.Enable's settings) and labels the CRD
// ConversionLabel, so that overlays can give exactly these CRDs their CA.
func conversionFiles(files Files, crds []*crd) {
	var b bytes.Buffer
	b.WriteString(Header)
	b.WriteString(`# CRD conversion through the operator's webhook (` + ConversionPath + `), for the CRDs
# with more than one version. Only for overlays that serve the webhook
# (config/default and config/certmanager include it); the operator
# (components/webhook-certs) or cert-manager gives the CRDs labelled
# ` + ConversionLabel + ` their CA.
apiVersion: kustomize.config.k8s.io/v1alpha1
kind: Component
`)
	var multi []*crd
	for _, c := range crds {
		if len(c.allVersions) > 1 {
			multi = append(multi, c)
		}
	}
	if len(multi) == 0 {
		b.WriteString("# No CRD has more than one version yet.\npatches: []\n")
	} else {
		b.WriteString("patches:\n")
	}
	label, value, _ := strings.Cut(ConversionLabel, "=")
	for _, c := range multi {
		name := c.name + ".yaml"
		fmt.Fprintf(&b, "- path: %s\n", name)
		files["components/conversion/"+name] = []byte(Header + fmt.Sprintf(`# %s has versions %s: conversions go to the operator.
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: %s
  labels:
    %s: %s
spec:
  conversion:
    strategy: Webhook
    webhook:
      conversionReviewVersions:
      - v1
      clientConfig:
        service:
          namespace: %s
          name: armature-webhook
          path: %s
          port: 443
`, c.kind, strings.Join(c.allVersions, ", "), c.name, label, value, Namespace, ConversionPath))
	}
	files["components/conversion/kustomization.yaml"] = b.Bytes()
}

// sampleFiles copies the samples of the selected kinds into samples/: the
// generated ones, and those of the rendered extra CRDs (prefixed with
// their group).
func sampleFiles(files Files, o Options, sel *selector, crds []*crd) error {
	var names []string
	add := func(dir, prefix string) error {
		entries, err := os.ReadDir(dir)
		if errors.Is(err, fs.ErrNotExist) && prefix != "" {
			return nil
		}
		if err != nil {
			return fmt.Errorf("render: samples folder: %w", err)
		}
		for _, e := range entries {
			if e.IsDir() || !strings.HasSuffix(e.Name(), ".yaml") {
				continue
			}
			path := filepath.Join(dir, e.Name())
			raw, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			raw, keep, err := selectedSample(raw, sel, strings.TrimSuffix(e.Name(), ".yaml"))
			if err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
			if !keep {
				continue
			}
			name := prefix + e.Name()
			if _, dup := files["samples/"+name]; dup {
				return fmt.Errorf("render: two samples named %s", name)
			}
			// The Secrets a generated sample set reads go first in its
			// file, so that the file applies as it is.
			secrets, err := os.ReadFile(filepath.Join(dir, "secrets", e.Name()))
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			names = append(names, name)
			out := append([]byte(Header), bytes.TrimPrefix(secrets, []byte(Header))...)
			if len(secrets) > 0 && !bytes.HasSuffix(out, []byte("\n")) {
				out = append(out, '\n')
			}
			files["samples/"+name] = append(out, bytes.TrimPrefix(raw, []byte(Header))...)
		}
		return nil
	}
	if o.SamplesDir != "" {
		if err := add(o.SamplesDir, ""); err != nil {
			return err
		}
	}
	for _, c := range crds {
		if c.samplesDir != "" {
			if err := add(c.samplesDir, c.group+"_"); err != nil {
				return err
			}
		}
	}
	if len(names) == 0 {
		return nil
	}
	sort.Strings(names)
	files["samples/kustomization.yaml"] = kustomization(`# The samples of the installed kinds, one file per API group: a resource
# group, the group's kinds (from the API's own examples) each after its
# owner and what it references, and the Secrets they read. The generated
# ones have no namespace: apply them into one with
#   kubectl apply -k config/samples -n <namespace>
# make samples applies them to a sandbox and counts those Ready
# (docs/samples.md).
`, names)
	return nil
}

// selectedSample keeps, of a sample file, the documents of selected kinds
// and of core kinds (the Secrets a sample set reads); false when no
// selected kind is left — of the group the file is named after, for a
// generated sample set (their resource group alone is no sample). A file
// whose documents are all kept is returned as it is.
func selectedSample(raw []byte, sel *selector, fileGroup string) ([]byte, bool, error) {
	docs, err := documents(raw)
	if err != nil {
		return nil, false, err
	}
	own := bytes.Contains(raw, []byte("apiVersion: "+fileGroup+"/"))
	var kept [][]byte
	selected := false
	for _, d := range docs {
		var tm struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
		}
		if err := yaml.Unmarshal(d, &tm); err != nil {
			return nil, false, err
		}
		gv, err := schema.ParseGroupVersion(tm.APIVersion)
		if err != nil {
			return nil, false, fmt.Errorf("apiVersion: %w", err)
		}
		switch {
		case sel.has(schema.GroupKind{Group: gv.Group, Kind: tm.Kind}):
			selected = selected || gv.Group == fileGroup || !own
		case gv.Group != "":
			continue
		}
		kept = append(kept, d)
	}
	if !selected {
		return nil, false, nil
	}
	if len(kept) == len(docs) {
		return raw, true, nil
	}
	var b bytes.Buffer
	for _, d := range kept {
		b.WriteString("---\n")
		b.Write(d)
		if !bytes.HasSuffix(d, []byte("\n")) {
			b.WriteByte('\n')
		}
	}
	return b.Bytes(), true, nil
}
