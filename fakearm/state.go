package fakearm

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/armature-dev/armature/runtime/descriptor"
)

func lower(s string) string { return strings.ToLower(s) }

// stateFile is what StateFile holds.
type stateFile struct {
	Resources []*resource  `json:"resources"`
	Ops       []*operation `json:"operations"`
	// KeyGenerations are the actions' secret slot generations
	// (actionState.gens): a restarted emulator answers listKeys with the
	// keys regenerateKey last made.
	KeyGenerations map[string]map[string]int `json:"keyGenerations,omitempty"`
	// ActionResults are the answers of action operations in flight.
	ActionResults map[string][]byte `json:"actionResults,omitempty"`
	// DeletedVaults are the soft-deleted Key Vaults (keyvault.go).
	DeletedVaults []*deletedVault `json:"deletedVaults,omitempty"`
}

// persist saves the state when a StateFile is configured. The caller holds
// s.mu. The file is written to a temporary name and renamed, so a crash
// never leaves half a file.
func (s *Server) persist() {
	if s.opts.StateFile == "" {
		return
	}
	var st stateFile
	for _, k := range sortedResourceKeys(s.resources) {
		st.Resources = append(st.Resources, s.resources[k])
	}
	for _, op := range s.ops {
		if op.Status == "InProgress" {
			st.Ops = append(st.Ops, op)
			if r, ok := s.acts.results[op.ID]; ok {
				if st.ActionResults == nil {
					st.ActionResults = map[string][]byte{}
				}
				st.ActionResults[op.ID] = r
			}
		}
	}
	st.KeyGenerations = s.acts.gens
	for _, k := range slices.Sorted(maps.Keys(s.deleted)) {
		st.DeletedVaults = append(st.DeletedVaults, s.deleted[k])
	}
	b, err := json.MarshalIndent(st, "", " ")
	if err != nil {
		return
	}
	tmp := s.opts.StateFile + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err == nil {
		_ = os.Rename(tmp, s.opts.StateFile)
	}
}

// load reads the StateFile, if it exists.
func (s *Server) load() error {
	b, err := os.ReadFile(s.opts.StateFile)
	if errors.Is(err, fs.ErrNotExist) {
		return os.MkdirAll(filepath.Dir(s.opts.StateFile), 0o755)
	}
	if err != nil {
		return err
	}
	var st stateFile
	if err := json.Unmarshal(b, &st); err != nil {
		return fmt.Errorf("state file %s: %w", s.opts.StateFile, err)
	}
	for _, res := range st.Resources {
		res.d = s.descriptorFor(res.ARMType, res.APIVersion)
		if res.d == nil {
			return fmt.Errorf("state file %s: %s %s is not served by this emulator", s.opts.StateFile, res.ARMType, res.APIVersion)
		}
		s.resources[lower(res.ID)] = res
		s.render(res)
	}
	for _, op := range st.Ops {
		s.ops[op.ID] = op
		s.clock(op)
	}
	s.acts.gens, s.acts.results = st.KeyGenerations, st.ActionResults
	for _, v := range st.DeletedVaults {
		if s.deleted == nil {
			s.deleted = map[string]*deletedVault{}
		}
		s.deleted[lower(v.name())] = v
	}
	return nil
}

func (s *Server) descriptorFor(armType, apiVersion string) *descriptor.Descriptor {
	for _, r := range s.routes {
		if strings.EqualFold(r.armType, armType) {
			return r.byVersion[apiVersion]
		}
	}
	return nil
}

func sortedResourceKeys(m map[string]*resource) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
