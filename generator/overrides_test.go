package generator_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/armature-dev/armature/generator"
	"github.com/armature-dev/armature/generator/config"
)

const gizmo = "testdata/overrides/input"

// gizmoOptions generates testdata/overrides/input/gizmo.json with the given
// overrides and nothing else from its armature.yaml.
func gizmoOptions(list ...config.Override) generator.Options {
	for i := range list {
		list[i].Index = i
	}
	return generator.Options{SpecRoot: gizmo, Files: []string{"gizmo.json"}, Config: &config.Config{File: "armature.yaml", Overrides: list}}
}

// schemaAt walks a CRD's openAPIV3Schema along a dotted path of property
// names (`[*]` for array items); nil when a step is missing.
func schemaAt(t *testing.T, crd []byte, path string) map[string]any {
	t.Helper()
	var doc map[string]any
	if err := yaml.Unmarshal(crd, &doc); err != nil {
		t.Fatal(err)
	}
	versions, _ := doc["spec"].(map[string]any)["versions"].([]any)
	s := versions[0].(map[string]any)["schema"].(map[string]any)["openAPIV3Schema"].(map[string]any)
	for _, seg := range strings.Split(path, ".") {
		items := strings.HasSuffix(seg, "[*]")
		props, _ := s["properties"].(map[string]any)
		s, _ = props[strings.TrimSuffix(seg, "[*]")].(map[string]any)
		if s == nil {
			return nil
		}
		if items {
			s, _ = s["items"].(map[string]any)
		}
	}
	return s
}

const gadgetCRD = "crds/gizmo.azure.armature.dev_gadgets.yaml"

// TestOverrideKinds applies one override at a time to the gizmo swagger and
// checks that it changes the output as docs/overrides.md says.
func TestOverrideKinds(t *testing.T) {
	cases := map[string]struct {
		reason   string
		override config.Override
		check    func(t *testing.T, got map[string][]byte)
	}{
		"ClassReadOnly": {
			reason:   "a readOnly property is status only, and the Descriptor says why",
			override: config.Override{Kind: "Gadget", Path: "properties.endpoint", Class: "readOnly", Because: "computed"},
			check: func(t *testing.T, got map[string][]byte) {
				if schemaAt(t, got[gadgetCRD], "spec.properties.endpoint") != nil {
					t.Error("spec still has endpoint")
				}
				// The CRD's status is shallow (docs/crd-cost.md): the Go
				// type holds the whole status.
				if schemaAt(t, got[gadgetCRD], "status.properties") == nil {
					t.Error("status lost properties")
				}
				statusEndpoint := regexp.MustCompile(`(?s)GadgetProperties_STATUS struct \{[^}]*json:"endpoint,omitempty"`)
				found := false
				for name, b := range got {
					found = found || strings.HasPrefix(name, "apis/gizmo/") && statusEndpoint.Match(b)
				}
				if !found {
					t.Error("GadgetProperties_STATUS lost endpoint")
				}
				mustContain(t, got, "apis/gizmo/v20240501/descriptors.go", `Class: descriptor.ReadOnly,
			Path:  descriptor.Path{"properties", "endpoint"},
			Rule:  "override: computed",`)
				mustContain(t, got, "inspect.json", `"properties.endpoint": "class readOnly (swagger: createOnly): computed"`)
			},
		},
		"ClassSecret": {
			reason:   "a secret is a Secret key reference in spec and absent from status",
			override: config.Override{Kind: "Gadget", Path: "properties.adminKey", Class: "secret", Because: "a credential"},
			check: func(t *testing.T, got map[string][]byte) {
				if s := schemaAt(t, got[gadgetCRD], "spec.properties.adminKey.name"); s == nil {
					t.Error("spec.properties.adminKey is not a Secret key reference")
				}
				if schemaAt(t, got[gadgetCRD], "status.properties.adminKey") != nil {
					t.Error("status must not hold the secret")
				}
				mustContain(t, got, "apis/gizmo/v20240501/descriptors.go", `SecretPaths: []descriptor.Path{descriptor.Path{"properties", "adminKey"}}`)
			},
		},
		"ClassWritable": {
			reason:   "a property wrongly declared readOnly becomes settable",
			override: config.Override{Kind: "Gadget", Path: "properties.retentionDays", Class: "writable", Because: "settable"},
			check: func(t *testing.T, got map[string][]byte) {
				if s := schemaAt(t, got[gadgetCRD], "spec.properties.retentionDays"); s == nil || s["type"] != "integer" {
					t.Errorf("spec.properties.retentionDays = %v", s)
				}
			},
		},
		"ClassCreateOnly": {
			reason:   "a createOnly property gets a CEL transition rule",
			override: config.Override{Kind: "Gadget", Path: "properties.settings.color", Class: "createOnly", Because: "painted once"},
			check: func(t *testing.T, got map[string][]byte) {
				mustContain(t, got, gadgetCRD, "spec.properties.settings.color is create-only")
			},
		},
		"EnumOpen": {
			reason:   "an open enum has no enum in the CRD",
			override: config.Override{ARMType: "Microsoft.Gizmo/gadgets", Path: "properties.mode", Enum: "open", Because: "Turbo"},
			check: func(t *testing.T, got map[string][]byte) {
				if s := schemaAt(t, got[gadgetCRD], "spec.properties.mode"); s == nil || s["enum"] != nil {
					t.Errorf("spec.properties.mode = %v, want a string without enum", s)
				}
				if s := schemaAt(t, got[gadgetCRD], "spec.properties.tier"); s == nil || s["enum"] == nil {
					t.Error("other enums stay closed")
				}
			},
		},
		"Type": {
			reason:   "tags declared with one property become a map of strings",
			override: config.Override{Kind: "Gadget", Path: "tags", Type: "map[string]string", Because: "tags"},
			check: func(t *testing.T, got map[string][]byte) {
				s := schemaAt(t, got[gadgetCRD], "spec.tags")
				if ap, _ := s["additionalProperties"].(map[string]any); ap["type"] != "string" || s["properties"] != nil {
					t.Errorf("spec.tags = %v, want a map of strings", s)
				}
				mustNotContain(t, got, "inspect.json", `"tags.env"`)
			},
		},
		"Hide": {
			reason:   "a hidden property is in neither spec nor status, and examples drop it",
			override: config.Override{Kind: "Gadget", Path: "properties.legacyMode", Hide: true, Because: "deprecated"},
			check: func(t *testing.T, got map[string][]byte) {
				for _, p := range []string{"spec.properties.legacyMode", "status.properties.legacyMode"} {
					if schemaAt(t, got[gadgetCRD], p) != nil {
						t.Errorf("%s is in the CRD", p)
					}
				}
				mustContain(t, got, "apis/gizmo/v20240501/descriptors.go", "hidden by override: deprecated")
				mustContain(t, got, "samples/gizmo.azure.armature.dev.yaml", "hides: properties.legacyMode.")
			},
		},
		"Default": {
			reason:   "a default is documented in the CRD and handed to the webhook",
			override: config.Override{Group: "gizmo", Version: "2024-05-01", Kind: "Gadget", Path: "properties.tier", Default: []byte(`"Standard"`), Because: "policy"},
			check: func(t *testing.T, got map[string][]byte) {
				if s := schemaAt(t, got[gadgetCRD], "spec.properties.tier"); !strings.Contains(s["description"].(string), `Defaults to "Standard"`) || s["default"] != nil {
					t.Errorf("spec.properties.tier = %v: the description says the default, the schema sets none", s)
				}
				mustContain(t, got, "apis/gizmo/v20240501/descriptors.go", `return map[string]string{"properties.tier": "\"Standard\""}`)
				mustContain(t, got, "apis/registry.go", `map[string]any{"properties.tier": json.RawMessage("\"Standard\"")}`)
			},
		},
		"SharedStruct": {
			reason: "an override below a struct other kinds share gives this kind its own variant; the shared one keeps its name " +
				"although Doohickey, built first, made the variant first",
			override: config.Override{Kind: "Doohickey", Path: "properties.settings.serial", Class: "readOnly", Because: "factory"},
			check: func(t *testing.T, got map[string][]byte) {
				mustContain(t, got, "apis/gizmo/v20240501/structs.go", "type Settings struct {\n\t// The color.\n\t// +optional\n\tColor *string `json:\"color,omitempty\"`\n\n\t// The serial number")
				mustContain(t, got, "apis/gizmo/v20240501/structs.go", "type Settings2 struct {\n\t// The color.\n\t// +optional\n\tColor *string `json:\"color,omitempty\"`\n}")
				if schemaAt(t, got["crds/gizmo.azure.armature.dev_gadgetssprockets.yaml"], "spec.properties.settings.serial") == nil {
					t.Error("the sprocket's settings lost serial")
				}
				if schemaAt(t, got["crds/gizmo.azure.armature.dev_doohickeys.yaml"], "spec.properties.settings.serial") != nil {
					t.Error("the doohickey's settings still have serial")
				}
			},
		},
		"Rename": {
			reason:   "a rename names the Go field, not the JSON one",
			override: config.Override{Kind: "Gadget", Path: "properties.display_name", Rename: "LegacyDisplayName", Because: "collides"},
			check: func(t *testing.T, got map[string][]byte) {
				mustContain(t, got, "apis/gizmo/v20240501/structs.go", "LegacyDisplayName *string `json:\"display_name,omitempty\"`")
				mustNotContain(t, got, "apis/gizmo/v20240501/structs.go", "DisplayName2")
			},
		},
	}
	base := generate(t, gizmoOptions())
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := generate(t, gizmoOptions(tc.override))
			if string(got[gadgetCRD]) == string(base[gadgetCRD]) && string(got["apis/registry.go"]) == string(base["apis/registry.go"]) && string(got["apis/gizmo/v20240501/structs.go"]) == string(base["apis/gizmo/v20240501/structs.go"]) {
				t.Fatalf("%s: the override changed nothing", tc.reason)
			}
			tc.check(t, got)
		})
	}
}

func mustContain(t *testing.T, got map[string][]byte, file, want string) {
	t.Helper()
	if !strings.Contains(string(got[file]), want) {
		t.Errorf("%s lacks %q", file, want)
	}
}

func mustNotContain(t *testing.T, got map[string][]byte, file, unwanted string) {
	t.Helper()
	if strings.Contains(string(got[file]), unwanted) {
		t.Errorf("%s has %q", file, unwanted)
	}
}

// TestStaleOverrides: an entry of the config that matches or changes
// nothing, or cannot apply, fails generation with a message naming it, and
// nothing is written.
func TestStaleOverrides(t *testing.T) {
	cases := map[string]struct {
		reason string
		cfg    config.Config
		want   string
	}{
		"NoKind": {
			reason: "a kind renamed or removed upstream",
			cfg:    config.Config{Overrides: []config.Override{{Kind: "Gadgett", Path: "properties.endpoint", Class: "readOnly", Because: "x"}}},
			want:   "armature.yaml: overrides[0] (Gadgett properties.endpoint): selects no generated kind",
		},
		"NoProperty": {
			reason: "a property renamed upstream",
			cfg:    config.Config{Overrides: []config.Override{{Kind: "Gadget", Path: "properties.endpointUri", Class: "readOnly", Because: "x"}}},
			want:   "armature.yaml: overrides[0] (Gadget properties.endpointUri): matches no property of Gadget",
		},
		"AlreadyFixed": {
			reason: "the swagger now says what the override says",
			cfg:    config.Config{Overrides: []config.Override{{Kind: "Gadget", Path: "properties.provisioningState", Class: "readOnly", Because: "x"}}},
			want:   "class changes nothing at the 1 properties it matches",
		},
		"EnumAlreadyOpen": {
			reason: "enum: open on a string",
			cfg:    config.Config{Overrides: []config.Override{{Kind: "Gadget", Path: "properties.endpoint", Enum: "open", Because: "x"}}},
			want:   "enum changes nothing",
		},
		"DefaultOfWrongType": {
			reason: "a default must fit the property",
			cfg:    config.Config{Overrides: []config.Override{{Kind: "Gadget", Path: "properties.retentionDays", Class: "writable", Default: []byte(`"7"`), Because: "x"}}},
			want:   `Gadget properties.retentionDays: default "7" is not of the property's JSON type integer`,
		},
		"DefaultOutsideEnum": {
			reason: "a default must be a value of a closed enum",
			cfg:    config.Config{Overrides: []config.Override{{Kind: "Gadget", Path: "properties.tier", Default: []byte(`"Gold"`), Because: "x"}}},
			want:   `default "Gold" is not one of the enum's values (Basic, Standard)`,
		},
		"DefaultOnReadOnly": {
			reason: "status values take no default",
			cfg:    config.Config{Overrides: []config.Override{{Kind: "Gadget", Path: "properties.provisioningState", Default: []byte(`"x"`), Because: "x"}}},
			want:   "a default needs a writable, createOnly or writeOnly property of the spec, and this is readOnly",
		},
		"RenameCollides": {
			reason: "a rename must not take another field's name",
			cfg:    config.Config{Overrides: []config.Override{{Kind: "Gadget", Path: "properties.display_name", Rename: "DisplayName", Because: "x"}}},
			want:   "rename DisplayName collides with another field",
		},
		"Conflict": {
			reason: "two overrides disagree",
			cfg: config.Config{Overrides: []config.Override{
				{Kind: "Gadget", Path: "properties.endpoint", Class: "readOnly", Because: "x"},
				{Kind: "*", Path: "**.endpoint", Class: "writable", Because: "y"},
			}},
			want: "overrides[1] (* **.endpoint): Gadget properties.endpoint: class writable conflicts with class readOnly of overrides[0]",
		},
		"ClassNotInPUT": {
			reason: "only PUT body properties can be set",
			cfg:    config.Config{Overrides: []config.Override{{Kind: "GadgetsSprocket", Path: "etag", Class: "writable", Because: "x"}}},
			want:   "class writable needs the property in the PUT body",
		},
		"InsideReadOnly": {
			reason: "a property below a readOnly one is not in the spec whatever its class",
			cfg: config.Config{Overrides: []config.Override{
				{Kind: "GadgetsSprocket", Path: "properties.settings", Class: "readOnly", Because: "x"},
				{Kind: "GadgetsSprocket", Path: "properties.settings.color", Class: "writable", Because: "y"},
			}},
			want: "class writable inside readOnly properties.settings, which is not in the spec: override properties.settings too",
		},
		"StaleExclude": {
			reason: "include and exclude entries must match too",
			cfg:    config.Config{Exclude: []config.Select{{ARMType: "Microsoft.Gizmo/widgets", Because: "x"}}},
			want:   "armature.yaml: exclude[0] (Microsoft.Gizmo/widgets): matches no resource type of the files",
		},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			cfg := tc.cfg
			cfg.File = "armature.yaml"
			for i := range cfg.Overrides {
				cfg.Overrides[i].Index = i
			}
			out := t.TempDir()
			_, err := generator.Generate(generator.Options{SpecRoot: gizmo, Files: []string{"gizmo.json"}, Config: &cfg, OutDir: out})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("%s: err = %v\nwant it to contain %q", tc.reason, err, tc.want)
			}
			if entries, _ := os.ReadDir(out); len(entries) > 0 {
				t.Errorf("%s: %d entries written despite the error", tc.reason, len(entries))
			}
		})
	}
}
