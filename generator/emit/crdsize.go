package emit

import (
	"fmt"
	"sort"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

// MaxCRDBytes is the largest CRD we write: the limit of the
// kubectl.kubernetes.io/last-applied-configuration annotation that
// client-side apply writes (256 KiB).
const MaxCRDBytes = 256 * 1024

// Descriptions says what happens to schema descriptions in CRDs.
type Descriptions string

// Description modes.
const (
	// DescriptionsFit keeps descriptions, shortening them only for a CRD
	// that would be larger than MaxCRDBytes. The default.
	DescriptionsFit Descriptions = "fit"
	// DescriptionsNone drops every schema description.
	DescriptionsNone Descriptions = "none"
)

// descLimits are the description lengths tried, in order, for a CRD that is
// too large.
var descLimits = []int{400, 160, 60, 0}

// finishCRD normalises a CRD from controller-tools and makes it fit.
// It returns the YAML and, when descriptions were shortened, a note.
func finishCRD(name string, raw []byte, mode Descriptions) ([]byte, string, error) {
	var c apiextv1.CustomResourceDefinition
	if err := yaml.UnmarshalStrict(raw, &c); err != nil {
		return nil, "", fmt.Errorf("%s: read CRD from controller-tools: %w", name, err)
	}
	if mode == DescriptionsNone {
		limitCRD(&c, 0)
	}
	out, err := marshalCRD(&c)
	if err != nil {
		return nil, "", err
	}
	note := ""
	for _, lim := range descLimits {
		if len(out) <= MaxCRDBytes || mode == DescriptionsNone {
			break
		}
		before := len(out)
		limitCRD(&c, lim)
		if out, err = marshalCRD(&c); err != nil {
			return nil, "", err
		}
		note = fmt.Sprintf("%s: %d bytes with full descriptions; descriptions cut to %d characters → %d bytes", name, before, lim, len(out))
	}
	if len(out) > MaxCRDBytes {
		return nil, "", fmt.Errorf("%s: CRD is %d bytes even without descriptions (limit %d)", name, len(out), MaxCRDBytes)
	}
	return out, note, nil
}

func marshalCRD(c *apiextv1.CustomResourceDefinition) ([]byte, error) {
	b, err := yaml.Marshal(c)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := yaml.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	delete(m, "status")
	if md, ok := m["metadata"].(map[string]any); ok {
		delete(md, "creationTimestamp")
		// controller-gen stamps its own build version, which differs
		// between `go run` and `go test` builds: drop it.
		if an, ok := md["annotations"].(map[string]any); ok {
			delete(an, "controller-gen.kubebuilder.io/version")
			if len(an) == 0 {
				delete(md, "annotations")
			}
		}
	}
	b, err = yaml.Marshal(m)
	if err != nil {
		return nil, err
	}
	return append([]byte("# "+Header+"\n---\n"), b...), nil
}

func limitCRD(c *apiextv1.CustomResourceDefinition, n int) {
	for i := range c.Spec.Versions {
		if v := c.Spec.Versions[i].Schema; v != nil && v.OpenAPIV3Schema != nil {
			limitSchema(v.OpenAPIV3Schema, n, true)
		}
	}
}

// limitSchema cuts descriptions below the root to n characters (0 drops
// them). The root description is kept.
func limitSchema(s *apiextv1.JSONSchemaProps, n int, root bool) {
	if !root {
		s.Description = cut(s.Description, n)
	}
	keys := make([]string, 0, len(s.Properties))
	for k := range s.Properties {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		p := s.Properties[k]
		limitSchema(&p, n, false)
		s.Properties[k] = p
	}
	if s.Items != nil && s.Items.Schema != nil {
		limitSchema(s.Items.Schema, n, false)
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		limitSchema(s.AdditionalProperties.Schema, n, false)
	}
}

func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	if n == 0 {
		return ""
	}
	return string(r[:n-1]) + "…"
}
