package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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

func TestResolveSpecRoot(t *testing.T) {
	c := &Config{SpecRoot: "custom"}
	t.Setenv(EnvSpecRoot, "")
	if got := ResolveSpecRoot("", c, "/repo"); got != "/repo/custom" {
		t.Errorf("config: %s", got)
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
