package configurator

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// OperatorSpec is spec.operatorSpec of a kind: which of its values to
// write into ConfigMaps and Secrets that other workloads read.
type OperatorSpec struct {
	// ConfigMaps are values written into ConfigMaps.
	ConfigMaps []OutputRef `json:"configMaps,omitempty"`
	// Secrets are values written into Secrets.
	Secrets []OutputRef `json:"secrets,omitempty"`
}

// OutputRef is one value to write.
type OutputRef struct {
	// Name of the ConfigMap or Secret, in the resource's namespace.
	Name string `json:"name"`
	// Key in its data.
	Key string `json:"key"`
	// Value is a path (Lookup syntax) into the resource, e.g.
	// status.properties.primaryEndpoints.blob, or into an extra source
	// named by its first field, e.g. listKeys.keys[0].value.
	Value string `json:"value"`
}

// ReadOperatorSpec reads spec.operatorSpec from a spec map; a spec without
// one gives an empty OperatorSpec.
func ReadOperatorSpec(spec map[string]any) (OperatorSpec, error) {
	var os OperatorSpec
	raw, ok := spec["operatorSpec"]
	if !ok || raw == nil {
		return os, nil
	}
	m, ok := raw.(map[string]any)
	if !ok {
		return os, fmt.Errorf("spec.operatorSpec: want an object, got %T", raw)
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, &os); err != nil {
		return os, fmt.Errorf("spec.operatorSpec: %w", err)
	}
	return os, nil
}

// SecretValue is a value bound for a Secret. It prints and serialises as
// a short digest, so Select outputs, records, logs and the debug endpoint
// never show it; compare it with ==.
type SecretValue string

// String is the redacted form.
func (s SecretValue) String() string {
	sum := sha256.Sum256([]byte(s))
	return fmt.Sprintf("<redacted sha256:%x>", sum[:4])
}

// MarshalJSON writes the redacted form.
func (s SecretValue) MarshalJSON() ([]byte, error) { return json.Marshal(s.String()) }

// Outputs are the values an OperatorSpec selects, grouped by target.
type Outputs struct {
	// ConfigMaps is ConfigMap name → key → value.
	ConfigMaps map[string]map[string]string `json:"configMaps,omitempty"`
	// Secrets is Secret name → key → value.
	Secrets map[string]map[string]SecretValue `json:"secrets,omitempty"`
	// Missing lists the outputs whose value is not there yet, as
	// "configMaps/<name>/<key>: <path>".
	Missing []string `json:"missing,omitempty"`
}

// Values looks up every output of os in the resource's object, or in
// extra when the path's first field names an extra source (for values
// that are not on the resource, such as an ARM listKeys answer). Strings
// are written as they are; other values as JSON. A value that is not there
// yet is listed in Missing and left out; a ConfigMap or Secret with no
// value at all is not declared. Two outputs to the same key are an error.
func (os OperatorSpec) Values(in *Resource, extra map[string]any) (Outputs, error) {
	out := Outputs{}
	seen := map[string]bool{}
	get := func(kind string, o OutputRef) (string, bool, error) {
		id := kind + "/" + o.Name + "/" + o.Key
		if o.Name == "" || o.Key == "" || o.Value == "" {
			return "", false, fmt.Errorf("%s: name, key and value are required", id)
		}
		if seen[id] {
			return "", false, fmt.Errorf("%s: written twice", id)
		}
		seen[id] = true
		steps, err := parsePath(o.Value)
		if err != nil {
			return "", false, fmt.Errorf("%s: %w", id, err)
		}
		root := in.Object.Object
		if _, ok := extra[steps[0].field]; ok && steps[0].kind == 'f' {
			root = extra
		}
		v, ok, _ := Lookup(root, o.Value)
		if !ok || v == nil {
			out.Missing = append(out.Missing, id+": "+o.Value)
			return "", false, nil
		}
		if s, isString := v.(string); isString {
			return s, true, nil
		}
		b, err := json.Marshal(v)
		return string(b), err == nil, err
	}
	for _, o := range os.ConfigMaps {
		v, ok, err := get("configMaps", o)
		if err != nil {
			return Outputs{}, err
		}
		if ok {
			if out.ConfigMaps == nil {
				out.ConfigMaps = map[string]map[string]string{}
			}
			if out.ConfigMaps[o.Name] == nil {
				out.ConfigMaps[o.Name] = map[string]string{}
			}
			out.ConfigMaps[o.Name][o.Key] = v
		}
	}
	for _, o := range os.Secrets {
		v, ok, err := get("secrets", o)
		if err != nil {
			return Outputs{}, err
		}
		if ok {
			if out.Secrets == nil {
				out.Secrets = map[string]map[string]SecretValue{}
			}
			if out.Secrets[o.Name] == nil {
				out.Secrets[o.Name] = map[string]SecretValue{}
			}
			out.Secrets[o.Name][o.Key] = SecretValue(v)
		}
	}
	return out, nil
}

// Declare declares the ConfigMaps and Secrets holding the values.
func (o Outputs) Declare(ix *Renderer) {
	for _, name := range slices.Sorted(maps.Keys(o.ConfigMaps)) {
		data := map[string]any{}
		for k, v := range o.ConfigMaps[name] {
			data[k] = v
		}
		ix.Resource(&unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": name},
			"data":     data,
		}})
	}
	for _, name := range slices.Sorted(maps.Keys(o.Secrets)) {
		data := map[string]any{}
		for k, v := range o.Secrets[name] {
			data[k] = base64.StdEncoding.EncodeToString([]byte(v))
		}
		ix.Resource(&unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "v1", "kind": "Secret", "type": "Opaque",
			"metadata": map[string]any{"name": name},
			"data":     data,
		}})
	}
}

// OutputsKind is a ready-made Kind for gvk that writes spec.operatorSpec's
// values and nothing else (no status). extra, when not nil, provides the
// extra sources of Values; it is called on every Select.
func OutputsKind(gvk schema.GroupVersionKind, extra func(in *Resource) (map[string]any, error)) Kind {
	return Kind{
		GVK: gvk,
		Select: func(_ *Tracker, in *Resource) (Selected, error) {
			os, err := ReadOperatorSpec(in.Spec)
			if err != nil {
				return nil, err
			}
			var src map[string]any
			if extra != nil {
				if src, err = extra(in); err != nil {
					return nil, err
				}
			}
			vals, err := os.Values(in, src)
			if err != nil {
				return nil, err
			}
			return Selected{"outputs": vals}, nil
		},
		Render: func(ix *Renderer, sel Selected) (Status, error) {
			vals, _ := sel["outputs"].(Outputs)
			vals.Declare(ix)
			return nil, nil
		},
	}
}
