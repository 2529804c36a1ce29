package config

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"sigs.k8s.io/yaml"
)

// DefaultSpecRoot is the spec root when nothing else names one, relative to
// the repository root. hack/sync-specs.sh creates it.
const DefaultSpecRoot = "specs/azure-rest-api-specs"

// EnvSpecRoot names the environment variable that overrides the spec root.
const EnvSpecRoot = "ARMATURE_SPECS"

// Config is specs/armature.yaml.
type Config struct {
	// Domain is the suffix of every API group (<rp>.<domain>). Defaults to
	// azure.armature.dev.
	Domain string `json:"domain,omitempty"`
	// Output is the folder generated code goes to, relative to the
	// repository root. Defaults to generated.
	Output string `json:"output,omitempty"`
	// SpecRoot is the folder swagger paths are relative to, relative to the
	// repository root. Defaults to DefaultSpecRoot.
	SpecRoot string `json:"specRoot,omitempty"`
	// Files are the swagger files to read, relative to the spec root. Files
	// they reference are read too; only resources declared in these files
	// are generated.
	Files []string `json:"files"`
	// Exclude lists ARM resource types not to generate.
	Exclude []Exclude `json:"exclude,omitempty"`

	// Dir is the repository root the relative paths above start from (the
	// parent of the folder holding the file). Set by Load.
	Dir string `json:"-"`
}

// Exclude leaves one ARM type out, for a stated reason.
type Exclude struct {
	ARMType string `json:"armType"`
	Because string `json:"because"`
}

// Load reads a config file.
func Load(file string) (*Config, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var c Config
	if err := yaml.UnmarshalStrict(data, &c); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		return nil, err
	}
	c.Dir = filepath.Dir(filepath.Dir(abs))
	if len(c.Files) == 0 {
		return nil, fmt.Errorf("%s: files: at least one swagger file is required", file)
	}
	for i, e := range c.Exclude {
		if e.ARMType == "" || strings.TrimSpace(e.Because) == "" {
			return nil, fmt.Errorf("%s: exclude[%d]: armType and because are required", file, i)
		}
	}
	if bytes.Contains(data, []byte("\t")) {
		return nil, errors.New(file + ": tabs are not allowed in YAML")
	}
	return &c, nil
}

// ResolveSpecRoot returns the spec root: flag, then environment, then the
// config's, then the default (relative paths from the repository root dir).
func ResolveSpecRoot(flag string, c *Config, dir string) string {
	switch {
	case flag != "":
		return flag
	case os.Getenv(EnvSpecRoot) != "":
		return os.Getenv(EnvSpecRoot)
	case c != nil && c.SpecRoot != "":
		return filepath.Join(dir, c.SpecRoot)
	}
	return filepath.Join(dir, DefaultSpecRoot)
}

// Excluded returns the reason an ARM type is excluded, or "".
func (c *Config) Excluded(armType string) string {
	if c == nil {
		return ""
	}
	for _, e := range c.Exclude {
		if strings.EqualFold(e.ARMType, armType) {
			return e.Because
		}
	}
	return ""
}
