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
// Unless fullStatus, the status schema is shallow (shallowStatus). It
// returns the YAML and, when descriptions were shortened, a note.
func finishCRD(name string, raw []byte, mode Descriptions, fullStatus bool) ([]byte, string, error) {
	var c apiextv1.CustomResourceDefinition
	if err := yaml.UnmarshalStrict(raw, &c); err != nil {
		return nil, "", fmt.Errorf("%s: read CRD from controller-tools: %w", name, err)
	}
	if !fullStatus {
		shallowStatus(&c)
		var err error
		if raw, err = marshalCRD(&c); err != nil {
			return nil, "", err
		}
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
	if len(out) > MaxCRDBytes && mode != DescriptionsNone {
		return fitStatus(name, raw, len(out))
	}
	if len(out) > MaxCRDBytes {
		return nil, "", fmt.Errorf("%s: CRD is %d bytes even without descriptions (limit %d)", name, len(out), MaxCRDBytes)
	}
	return out, note, nil
}

// fitStatus makes a CRD fit that is over MaxCRDBytes even without
// descriptions, without touching its spec: the status — the last GET, which
// nobody sets — keeps its schema to the deepest level that fits, and every
// object below that level becomes `type: object` with
// x-kubernetes-preserve-unknown-fields (the apiserver stores it as ARM sent
// it; the Go type and docs/ still give its ARM shape). Levels count from
// status (status.properties is level 1). With the level found, descriptions
// come back to the longest limit that still fits. The spec is never cut: a
// CRD whose spec alone is over the limit is an error.
func fitStatus(name string, raw []byte, noDesc int) ([]byte, string, error) {
	var c apiextv1.CustomResourceDefinition
	if err := yaml.UnmarshalStrict(raw, &c); err != nil {
		return nil, "", err
	}
	deepest := 0
	for i := range c.Spec.Versions {
		withStatus(&c, i, func(st *apiextv1.JSONSchemaProps) { deepest = max(deepest, depth(st)) })
	}
	try := func(level, desc int) ([]byte, error) {
		cp := c.DeepCopy()
		for i := range cp.Spec.Versions {
			withStatus(cp, i, func(st *apiextv1.JSONSchemaProps) { collapseBelow(st, level, 0) })
		}
		if desc >= 0 {
			limitCRD(cp, desc)
		}
		return marshalCRD(cp)
	}
	fits := func(level int) ([]byte, bool, error) {
		out, err := try(level, 0)
		return out, err == nil && len(out) <= MaxCRDBytes, err
	}
	out, ok, err := fits(0)
	if err != nil {
		return nil, "", err
	}
	if !ok {
		return nil, "", fmt.Errorf("%s: CRD is %d bytes even without descriptions and with its status not expanded (limit %d): its spec alone is too large", name, noDesc, MaxCRDBytes)
	}
	// The size falls as the level does: find the deepest level that fits.
	level, hi := 0, deepest-1
	for level < hi {
		mid := (level + hi + 1) / 2
		more, ok, err := fits(mid)
		if err != nil {
			return nil, "", err
		}
		if ok {
			level, out = mid, more
		} else {
			hi = mid - 1
		}
	}
	desc := 0
	for _, lim := range []int{-1, 400, 160, 60} {
		if more, err := try(level, lim); err == nil && len(more) <= MaxCRDBytes {
			out, desc = more, lim
			break
		}
	}
	descNote := "without descriptions"
	switch {
	case desc < 0:
		descNote = "with full descriptions"
	case desc > 0:
		descNote = fmt.Sprintf("descriptions cut to %d characters", desc)
	}
	return out, fmt.Sprintf("%s: %d bytes even without descriptions; status kept to level %d of %d (deeper objects preserve unknown fields), %s → %d bytes", name, noDesc, level, deepest, descNote, len(out)), nil
}

// shallowStatus keeps the status schema to its first level: the operator's
// own fields (conditions, observedGeneration, lastOperation,
// reconcilePlan) whole, the scalars ARM answers (id, name, location…)
// typed, and every object below status (properties, sku, identity…) an
// object that preserves unknown fields. Only the operator writes status,
// from ARM's answer, so the apiserver has nothing to validate there; a
// kind's status schema is most of its CRD, and kube-apiserver memory
// grows with the schema: 4.0 MiB per CRD with the full status, 2.4 MiB
// with none (docs/crd-cost.md). The full status stays in the Go types and
// generated/docs.
func shallowStatus(c *apiextv1.CustomResourceDefinition) {
	for i := range c.Spec.Versions {
		withStatus(c, i, func(st *apiextv1.JSONSchemaProps) { collapseBelow(st, 0, 0) })
	}
}

// withStatus calls fn with the status schema of version i (when there is
// one) and stores what fn made of it.
func withStatus(c *apiextv1.CustomResourceDefinition, i int, fn func(*apiextv1.JSONSchemaProps)) {
	v := c.Spec.Versions[i].Schema
	if v == nil || v.OpenAPIV3Schema == nil {
		return
	}
	st, ok := v.OpenAPIV3Schema.Properties["status"]
	if !ok {
		return
	}
	fn(&st)
	v.OpenAPIV3Schema.Properties["status"] = st
}

// operatorStatus are the status fields the operator writes: never collapsed
// (conditions is a list map whose keys the schema must name).
var operatorStatus = map[string]bool{"conditions": true, "observedGeneration": true, "lastOperation": true, "reconcilePlan": true}

// depth is the number of object levels below s.
func depth(s *apiextv1.JSONSchemaProps) int {
	d := 0
	each(s, func(c *apiextv1.JSONSchemaProps, object bool) {
		n := depth(c)
		if object {
			n++
		}
		d = max(d, n)
	})
	return d
}

// each calls fn on every child schema of s: properties (object = true),
// items and additionalProperties (object = false: they do not add a level).
func each(s *apiextv1.JSONSchemaProps, fn func(c *apiextv1.JSONSchemaProps, object bool)) {
	for _, k := range sortedKeys(s.Properties) {
		p := s.Properties[k]
		fn(&p, true)
		s.Properties[k] = p
	}
	if s.Items != nil && s.Items.Schema != nil {
		fn(s.Items.Schema, false)
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		fn(s.AdditionalProperties.Schema, false)
	}
}

// collapseBelow replaces every object schema deeper than level (s being at
// at) by an object that preserves unknown fields, keeping its description.
func collapseBelow(s *apiextv1.JSONSchemaProps, level, at int) {
	for _, k := range sortedKeys(s.Properties) {
		if at == 0 && operatorStatus[k] {
			continue
		}
		p := s.Properties[k]
		collapse(&p, level, at+1)
		s.Properties[k] = p
	}
}

func collapse(s *apiextv1.JSONSchemaProps, level, at int) {
	if at > level && len(s.Properties) > 0 {
		*s = apiextv1.JSONSchemaProps{Type: "object", Description: s.Description, XPreserveUnknownFields: ptrTrue()}
		return
	}
	collapseBelow(s, level, at)
	if s.Items != nil && s.Items.Schema != nil {
		collapse(s.Items.Schema, level, at)
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		collapse(s.AdditionalProperties.Schema, level, at)
	}
}

func ptrTrue() *bool { t := true; return &t }

func sortedKeys(m map[string]apiextv1.JSONSchemaProps) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
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

// CRDGroupKind reads "group/Kind" of a CRD file's content (spec.group and
// spec.names.kind).
func CRDGroupKind(raw []byte) (string, error) {
	var head struct {
		Spec struct {
			Group string `json:"group"`
			Names struct {
				Kind string `json:"kind"`
			} `json:"names"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal(raw, &head); err != nil {
		return "", err
	}
	return head.Spec.Group + "/" + head.Spec.Names.Kind, nil
}
