package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/armature-dev/armature/runtime/descriptor"
)

func write(t *testing.T, body string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "specs")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "armature.yaml")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoad(t *testing.T) {
	cases := map[string]struct {
		body string
		err  string
	}{
		"Valid":          {body: "files: [a.json]\nexclude:\n  - armType: Microsoft.X/y\n    because: not useful\n"},
		"NoFiles":        {body: "domain: x\n", err: "at least one swagger file"},
		"UnknownKey":     {body: "files: [a.json]\nfile: b.json\n", err: `unknown field "file"`},
		"ExcludeWithout": {body: "files: [a.json]\nexclude:\n  - armType: Microsoft.X/y\n", err: "because are required"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c, err := Load(write(t, tc.body))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.Excluded("microsoft.x/Y") != "not useful" || c.Excluded("Microsoft.X/z") != "" {
				t.Error("Excluded must match ARM types case-insensitively")
			}
		})
	}
}

func TestLoadOverrides(t *testing.T) {
	const head = "files: [a.json]\noverrides:\n"
	cases := map[string]struct {
		reason string
		entry  string
		err    string
	}{
		"Valid":         {reason: "every action with its selectors", entry: "  - {group: keyvault, version: v20230701, kind: Vault, path: properties.vaultUri, class: readOnly, because: computed}\n  - {armType: Microsoft.X/*, path: '**.state', enum: open, because: lags}\n  - {kind: '*', path: tags, type: 'map[string]string', because: loose}\n  - {kind: A, path: 'p.q[*].r', hide: true, because: deprecated}\n  - {kind: A, path: p.tier, default: {a: [1]}, because: policy}\n  - {kind: A, path: p.x, rename: XOld, because: collides}\n"},
		"NoBecause":     {reason: "every entry says why", entry: "  - {kind: Vault, path: p, class: readOnly}\n", err: "overrides[0] (Vault p): because is required"},
		"NoSelector":    {reason: "an entry names its kinds", entry: "  - {path: p, class: readOnly, because: x}\n", err: "kind or armType is required"},
		"NoPath":        {reason: "overrides are per property", entry: "  - {kind: V, class: readOnly, because: x}\n", err: "path is required"},
		"NoAction":      {reason: "an entry that does nothing is a mistake", entry: "  - {kind: V, path: p, because: x}\n", err: "nothing to do"},
		"BadClass":      {reason: "classes are the classifier's", entry: "  - {kind: V, path: p, class: immutable, because: x}\n", err: `class "immutable"`},
		"BadEnum":       {reason: "enum only opens", entry: "  - {kind: V, path: p, enum: closed, because: x}\n", err: `enum "closed"`},
		"BadType":       {reason: "a small set of schemas", entry: "  - {kind: V, path: p, type: 'map[string]int', because: x}\n", err: `type "map[string]int"`},
		"HideAndClass":  {reason: "a hidden property has no class to force", entry: "  - {kind: V, path: p, hide: true, class: readOnly, because: x}\n", err: "hide cannot be combined with class"},
		"NullDefault":   {reason: "null is no default", entry: "  - {kind: V, path: p, default: null, because: x}\n", err: "default: null"},
		"SecretDefault": {reason: "secret values never live in the config", entry: "  - {kind: V, path: p, class: secret, default: x, because: x}\n", err: "default with class secret"},
		"BadRename":     {reason: "a Go field must be exported", entry: "  - {kind: V, path: p, rename: lower, because: x}\n", err: `rename "lower"`},
		"BadPattern":    {reason: "patterns are checked when read", entry: "  - {kind: 'V[', path: p, class: readOnly, because: x}\n", err: "syntax error in pattern"},
		"UnknownField":  {reason: "typos are errors", entry: "  - {kind: V, path: p, clas: readOnly, because: x}\n", err: `unknown field "clas"`},
		"SecondIsNamed": {reason: "errors name the entry index", entry: "  - {kind: V, path: p, class: readOnly, because: x}\n  - {kind: W, path: q.r, class: readOnly}\n", err: "overrides[1] (W q.r)"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c, err := Load(write(t, head+tc.entry))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("%s: err = %v, want %q", tc.reason, err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s: %v", tc.reason, err)
			}
			if got := c.Overrides[4].DefaultJSON(); got != `{"a":[1]}` {
				t.Errorf("default JSON = %s", got)
			}
		})
	}
}

func TestIncludeExclude(t *testing.T) {
	c, err := Load(write(t, "files: [a.json]\ninclude:\n  - {armType: Microsoft.Storage/storageAccounts/**, because: storage only}\nexclude:\n  - {armType: microsoft.storage/storageAccounts/*/queues, because: no queues}\n"))
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{
		"Microsoft.Storage/storageAccounts":                      "",
		"Microsoft.Storage/storageAccounts/blobServices":         "",
		"Microsoft.Storage/storageAccounts/queueServices/queues": "no queues",
		"Microsoft.KeyVault/vaults":                              "not in include",
	}
	for armType, want := range cases {
		if got := c.Excluded(armType); got != want {
			t.Errorf("Excluded(%s) = %q, want %q", armType, got, want)
		}
	}
	if _, err := Load(write(t, "files: [a.json]\ninclude:\n  - {armType: Microsoft.X/y}\n")); err == nil || !strings.Contains(err.Error(), "include[0]: armType and because are required") {
		t.Errorf("include without because: %v", err)
	}
}

func TestMatching(t *testing.T) {
	cases := map[string]struct {
		pattern, path string
		want          bool
	}{
		"Exact":            {"properties.vaultUri", "properties.vaultUri", true},
		"CaseInsensitive":  {"Properties.VaultURI", "properties.vaultUri", true},
		"StarIsOneSegment": {"properties.*", "properties.a.b", false},
		"StarMatchesName":  {"properties.*Uri", "properties.vaultUri", true},
		"StarMatchesMap":   {"identity.userAssignedIdentities.*.principalId", "identity.userAssignedIdentities.*.principalId", true},
		"DoubleStar":       {"**.provisioningState", "properties.privateEndpointConnections[*].properties.provisioningState", true},
		"DoubleStarZero":   {"**.provisioningState", "provisioningState", true},
		"DoubleStarBelow":  {"properties.instanceView.**", "properties.instanceView", true},
		"Items":            {"properties.rules[*].state", "properties.rules[*].state", true},
		"StarIsNotItems":   {"properties.rules.*.state", "properties.rules[*].state", false},
		"ItemsAreNotNames": {"properties.rules[*].state", "properties.rules.x.state", false},
		"NestedItems":      {"a[*][*].b", "a[*][*].b", true},
		"Prefix":           {"properties.vault", "properties.vaultUri", false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			o := Override{Path: tc.pattern}
			if got := o.MatchPath(descriptor.MustParsePath(tc.path)); got != tc.want {
				t.Errorf("MatchPath(%q, %q) = %v, want %v", tc.pattern, tc.path, got, tc.want)
			}
		})
	}
	o := Override{Group: "keyvault", Version: "2023-07-01", Kind: "*vault", ARMType: "Microsoft.KeyVault/**"}
	if !o.MatchKind("keyvault.azure.armature.dev", "keyvault", "v20230701", "2023-07-01", "Vault", "Microsoft.KeyVault/vaults") {
		t.Error("group by short name, version by api-version, kind and ARM type patterns must match")
	}
	if o.MatchKind("keyvault.azure.armature.dev", "keyvault", "v20240101", "2024-01-01", "Vault", "Microsoft.KeyVault/vaults") {
		t.Error("another version must not match")
	}
}

func TestResolveSpecRoot(t *testing.T) {
	c := &Config{SpecRoot: "custom"}
	t.Setenv(EnvSpecRoot, "")
	if got := ResolveSpecRoot("", c, "/repo"); got != "/repo/custom" {
		t.Errorf("config: %s", got)
	}
	if got := ResolveSpecRoot("", &Config{SpecRoot: "/abs/specs"}, "/repo"); got != "/abs/specs" {
		t.Errorf("absolute config specRoot: %s", got)
	}
	if got := ResolveSpecRoot("", nil, "/repo"); got != "/repo/"+DefaultSpecRoot {
		t.Errorf("default: %s", got)
	}
	t.Setenv(EnvSpecRoot, "/env")
	if got := ResolveSpecRoot("", c, "/repo"); got != "/env" {
		t.Errorf("env: %s", got)
	}
	if got := ResolveSpecRoot("/flag", c, "/repo"); got != "/flag" {
		t.Errorf("flag: %s", got)
	}
}

func TestLoadReferences(t *testing.T) {
	const head = "files: [a.json]\nreferences:\n"
	cases := map[string]struct {
		reason string
		entry  string
		err    string
	}{
		"Valid":          {reason: "add with targets, remove, every selector", entry: "  - {kind: RoleAssignment, path: properties.roleDefinitionId, add: true, targets: [Microsoft.Authorization/roleDefinitions], because: the examples send ARM ids}\n  - {group: network, version: '2024-*', armType: Microsoft.Network/*, path: '**.fooId', remove: true, because: a GUID}\n"},
		"NoBecause":      {reason: "every entry says why", entry: "  - {kind: V, path: p, add: true}\n", err: "references[0] (V p): because is required"},
		"NoSelector":     {reason: "an entry names its kinds", entry: "  - {path: p, add: true, because: x}\n", err: "kind or armType is required"},
		"NoPath":         {reason: "entries are per path", entry: "  - {kind: V, add: true, because: x}\n", err: "path is required"},
		"NoAction":       {reason: "add or remove must be said", entry: "  - {kind: V, path: p, because: x}\n", err: "exactly one of add: true"},
		"Both":           {reason: "add and remove contradict", entry: "  - {kind: V, path: p, add: true, remove: true, because: x}\n", err: "exactly one of add: true"},
		"RemoveTargets":  {reason: "a removed reference has no target", entry: "  - {kind: V, path: p, remove: true, targets: [Microsoft.X/y], because: x}\n", err: "targets go with add"},
		"BadTarget":      {reason: "targets are ARM types", entry: "  - {kind: V, path: p, add: true, targets: [subnets], because: x}\n", err: `target "subnets"`},
		"BadPattern":     {reason: "patterns are checked when read", entry: "  - {kind: 'V[', path: p, add: true, because: x}\n", err: "syntax error in pattern"},
		"UnknownField":   {reason: "typos are errors", entry: "  - {kind: V, path: p, ad: true, because: x}\n", err: `unknown field "ad"`},
		"SecondIsNamed":  {reason: "errors name the entry index", entry: "  - {kind: V, path: p, add: true, because: x}\n  - {kind: W, path: q.r, add: true}\n", err: "references[1] (W q.r)"},
		"WildcardTarget": {reason: "a target is one type, not a pattern", entry: "  - {kind: V, path: p, add: true, targets: ['Microsoft.X/*'], because: x}\n", err: `target "Microsoft.X/*"`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			c, err := Load(write(t, head+tc.entry))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("%s: err = %v, want %q", tc.reason, err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("%s: %v", tc.reason, err)
			}
			r := c.References[1]
			if r.Index != 1 || r.Action() != "remove" || c.References[0].Action() != "add" {
				t.Errorf("entries = %+v", c.References)
			}
			if !r.MatchKind("network.azure.armature.dev", "network", "v20240101", "2024-01-01", "NetworkInterface", "Microsoft.Network/networkInterfaces") {
				t.Error("group by short name, version by api-version pattern and ARM type pattern must match")
			}
			if !r.MatchPath(descriptor.MustParsePath("properties.ipConfigurations[*].properties.fooId")) || r.MatchPath(descriptor.MustParsePath("properties.barId")) {
				t.Error("the path pattern must match as an override's does")
			}
		})
	}
}
