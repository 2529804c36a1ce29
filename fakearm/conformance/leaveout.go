package conformance

import (
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/armature-dev/armature/recording"
)

// Learner returns the behaviour profiles learned from the learning set
// without the recording of a file name (a base name, such as
// Test_Storage_StorageAccount_CRUD.yaml); a name outside the learning set
// leaves it whole.
type Learner func(without string) (*recording.ProfileSet, error)

// Emulator returns a fresh emulator that applies a set of profiles.
type Emulator func(*recording.ProfileSet) (http.Handler, error)

// LeaveOneOut replays every file, as Run does, each against an emulator
// whose profiles were learned without it (leave one out): the figures say
// how the emulator does on traffic its profiles never saw, where Run's
// say how faithfully it applies what it learned. opts.New is not used.
func LeaveOneOut(files []string, opts Options, learn Learner, emulator Emulator) (*Report, error) {
	rep := &Report{}
	for _, f := range files {
		c, err := recording.LoadCassette(f)
		if err != nil {
			return nil, err
		}
		name := filepath.Base(f)
		set, err := learn(name)
		if err != nil {
			return nil, fmt.Errorf("profiles without %s: %w", name, err)
		}
		h, err := emulator(set)
		if err != nil {
			return nil, err
		}
		rep.append(Replay(name, c, h, opts))
	}
	return rep, nil
}

// ProviderTally is the tally of the steps of one provider namespace.
type ProviderTally struct {
	// Provider is the namespace (Microsoft.Storage), "" for steps whose
	// path names no resource type.
	Provider string `json:"provider"`
	Tally
}

// Providers tallies the steps by the provider namespace of their ARM type
// (compared without regard to case, spelled as first seen), sorted.
func (rep *Report) Providers() []ProviderTally {
	var out []ProviderTally
	for _, rec := range rep.Recordings {
		for _, s := range rec.Steps {
			prov, _, _ := strings.Cut(s.ARMType, "/")
			i := slices.IndexFunc(out, func(p ProviderTally) bool { return strings.EqualFold(p.Provider, prov) })
			if i < 0 {
				out = append(out, ProviderTally{Provider: prov})
				i = len(out) - 1
			}
			out[i].add(stepTally(s))
		}
	}
	slices.SortFunc(out, func(a, b ProviderTally) int {
		return strings.Compare(strings.ToLower(a.Provider), strings.ToLower(b.Provider))
	})
	return out
}

// stepTally counts one step.
func stepTally(s StepResult) Tally {
	t := Tally{Total: 1}
	if s.Served {
		t.Served = 1
	}
	if s.Match {
		t.Matching = 1
		t.ServedMatching = t.Served
	}
	return t
}

// WriteLeaveOneOut prints a leave-one-out report: per recording, per
// provider, the steps that differ, and the figures; its last line is
// exactly "leave-one-out: N/M" (all steps; a type not served never
// matches).
func (rep *Report) WriteLeaveOneOut(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "LEAVE-ONE-OUT RECORDING\tMATCHING\tSERVED TYPES")
	for _, rec := range rep.Recordings {
		fmt.Fprintf(tw, "%s\t%d/%d\t%d/%d\n", rec.File, rec.Matching, rec.Total, rec.ServedMatching, rec.Served)
	}
	fmt.Fprintln(tw, "\nLEAVE-ONE-OUT PROVIDER\tMATCHING\tSERVED TYPES")
	for _, p := range rep.Providers() {
		name := p.Provider
		if name == "" {
			name = "(no resource type)"
		}
		fmt.Fprintf(tw, "%s\t%d/%d (%s)\t%d/%d\n", name, p.Matching, p.Total, percent(p.Matching, p.Total), p.ServedMatching, p.Served)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	rep.writeDifferences(w, "Leave-one-out differences (served types):")
	fmt.Fprintf(w, "\nleave-one-out, each recording against profiles learned without it: served types %d/%d (%s), all steps %d/%d (%s)\n",
		rep.ServedMatching, rep.Served, percent(rep.ServedMatching, rep.Served), rep.Matching, rep.Total, percent(rep.Matching, rep.Total))
	_, err := fmt.Fprintf(w, "leave-one-out: %d/%d\n", rep.Matching, rep.Total)
	return err
}
