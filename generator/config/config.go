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
	// repository root unless it is absolute. Defaults to DefaultSpecRoot.
	SpecRoot string `json:"specRoot,omitempty"`
	// Files are the swagger files to read, relative to the spec root. Files
	// they reference are read too; only resources declared in these files
	// are generated.
	Files []string `json:"files"`
	// Include, when not empty, lists the only ARM resource types to
	// generate. Defaults to every type the files declare.
	Include []Select `json:"include,omitempty"`
	// Exclude lists ARM resource types not to generate. It applies after
	// Include. Defaults to none.
	Exclude []Select `json:"exclude,omitempty"`
	// Overrides correct what the swagger gets wrong and decide what users
	// see, per kind and property path. Defaults to none.
	Overrides []Override `json:"overrides,omitempty"`
	// References add or remove ARM-id fields the detection rules
	// (generator/refs) get wrong, per kind and path. Defaults to none.
	References []Reference `json:"references,omitempty"`
	// StorageVersions names, per API group (storage.azure.armature.dev, or
	// its first label: storage), the Kubernetes version etcd stores when the
	// files give a group several api-versions (v20230501). Defaults to the
	// newest stable version of each kind.
	StorageVersions map[string]string `json:"storageVersions,omitempty"`
	// Recordings are folders of go-vcr cassettes of real ARM traffic,
	// relative to the repository root, that the behaviour profiles learn
	// from (generator/profile). Defaults to none: the profiles then come
	// from the examples and the swagger alone.
	Recordings []string `json:"recordings,omitempty"`
	// Facts are data files of facts about ARM properties from outside the
	// swagger (specs/terraform/azurerm.json, which hack/tffacts writes from
	// Terraform's azurerm provider), relative to the repository root.
	// Classification reads them after the ARM-wide rules and before
	// x-ms-mutability and the PUT/PATCH comparison (docs/classification.md).
	// Defaults to none.
	Facts []string `json:"facts,omitempty"`

	// Dir is the repository root the relative paths above start from (the
	// parent of the folder holding the file). Set by Load.
	Dir string `json:"-"`
	// File is the path of the file as given to Load, for messages. Set by
	// Load.
	File string `json:"-"`
}

// Select names ARM resource types for include or exclude, for a stated
// reason.
type Select struct {
	// ARMType is an ARM type such as Microsoft.Storage/storageAccounts, or a
	// pattern: `*` matches one type segment, `**` any number of them
	// (Microsoft.Storage/storageAccounts/**). Case-insensitive. Required.
	ARMType string `json:"armType"`
	// Because says why. Required.
	Because string `json:"because"`
}

// Load reads a config file and checks every entry.
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
	c.File = file
	if len(c.Files) == 0 {
		return nil, fmt.Errorf("%s: files: at least one swagger file is required", file)
	}
	for _, list := range []struct {
		name string
		sel  []Select
	}{{"include", c.Include}, {"exclude", c.Exclude}} {
		for i, e := range list.sel {
			if e.ARMType == "" || strings.TrimSpace(e.Because) == "" {
				return nil, fmt.Errorf("%s: %s[%d]: armType and because are required", file, list.name, i)
			}
			if err := checkPattern(e.ARMType); err != nil {
				return nil, fmt.Errorf("%s: %s[%d] (%s): %w", file, list.name, i, e.ARMType, err)
			}
		}
	}
	var errs []error
	for i := range c.Overrides {
		c.Overrides[i].Index = i
		if err := c.Overrides[i].check(); err != nil {
			errs = append(errs, &Error{File: file, Entry: c.Overrides[i].Entry(), Msg: err.Error()})
		}
	}
	for i := range c.References {
		c.References[i].Index = i
		if err := c.References[i].check(); err != nil {
			errs = append(errs, &Error{File: file, Entry: c.References[i].Entry(), Msg: err.Error()})
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
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
	case c != nil && filepath.IsAbs(c.SpecRoot):
		return c.SpecRoot // an absolute specRoot is used as written
	case c != nil && c.SpecRoot != "":
		return filepath.Join(dir, c.SpecRoot)
	}
	return filepath.Join(dir, DefaultSpecRoot)
}

// Excluded returns why an ARM type is not generated, or "" to generate it:
// the reason of the first exclude entry that matches it, or, when include is
// set and no include entry matches it, a note saying so.
func (c *Config) Excluded(armType string) string {
	if c == nil {
		return ""
	}
	if len(c.Include) > 0 && c.IncludedBy(armType) < 0 {
		return "not in include"
	}
	if i := c.ExcludedBy(armType); i >= 0 {
		return c.Exclude[i].Because
	}
	return ""
}

// IncludedBy returns the index of the first include entry that matches an
// ARM type, or -1.
func (c *Config) IncludedBy(armType string) int { return firstMatch(c.Include, armType) }

// ExcludedBy returns the index of the first exclude entry that matches an
// ARM type, or -1.
func (c *Config) ExcludedBy(armType string) int { return firstMatch(c.Exclude, armType) }

func firstMatch(list []Select, armType string) int {
	for i, e := range list {
		if MatchARMType(e.ARMType, armType) {
			return i
		}
	}
	return -1
}

// FactFiles returns the facts files of the config as paths to open.
func (c *Config) FactFiles() []string {
	if c == nil {
		return nil
	}
	out := make([]string, 0, len(c.Facts))
	for _, f := range c.Facts {
		if !filepath.IsAbs(f) {
			f = filepath.Join(c.Dir, f)
		}
		out = append(out, f)
	}
	return out
}

// ConfigFile returns the name of the file for messages: File, or
// armature.yaml when the config was not loaded from a file.
func (c *Config) ConfigFile() string {
	if c == nil || c.File == "" {
		return "armature.yaml"
	}
	return c.File
}
