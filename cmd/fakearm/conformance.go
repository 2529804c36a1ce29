package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/armature-dev/armature/fakearm"
	"github.com/armature-dev/armature/fakearm/conformance"
	"github.com/armature-dev/armature/fakearm/conformance/heldout"
	"github.com/armature-dev/armature/generated/apis"
	"github.com/armature-dev/armature/recording"
)

const conformanceUsage = `fakearm conformance replays recorded real ARM traffic against the emulator.

Usage:
  fakearm conformance [--json FILE] [--min-served R] [--leave-one-out [--config FILE] [--spec-root DIR]] RECORDING.yaml|DIR ...

Each go-vcr cassette (a DIR stands for its *.yaml files) is replayed against a
fresh emulator, semantically: mutations in order, a run of identical GETs
compared on its last answer, the emulator's own operation polled to its end in
place of the recorded polls, api-versions mapped to the ones served. Each step
compares the status code, the LRO header style, the top-level and properties.*
keys of 200 bodies and the error code (docs/conformance.md). The last line is
"interactions matching: N/M".

With --leave-one-out it first replays every cassette against an emulator whose
profiles were learned without it (the swagger and the recordings folders of
--config, learned as make generate learns generated/profiles): how the emulator
does on traffic it has not seen, per recording and per provider, ending with
"leave-one-out: N/M".
`

// runConformance is "fakearm conformance".
func runConformance(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("conformance", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, conformanceUsage); fs.PrintDefaults() }
	jsonOut := fs.String("json", "", "also write the full report, step by step, as JSON to this file")
	minServed := fs.Float64("min-served", 0, "exit 1 when the share of matching steps of served types is below this (0 to 1)")
	leaveOneOut := fs.Bool("leave-one-out", false, "also replay each cassette against profiles learned without it (needs the Azure specs)")
	configFile := fs.String("config", filepath.Join("specs", "armature.yaml"), "with --leave-one-out: the generator config whose swagger and recordings the profiles are learned from")
	specRoot := fs.String("spec-root", "", "with --leave-one-out: the Azure specs folder (default: $ARMATURE_SPECS, else the config's specRoot)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	files, err := cassettes(fs.Args())
	if err != nil {
		fmt.Fprintln(stderr, "fakearm conformance:", err)
		return 2
	}
	if len(files) == 0 {
		fs.Usage()
		return 2
	}
	descs := apis.Descriptors()
	opts := conformance.Options{
		Descriptors: descs,
		New: func() (http.Handler, error) {
			return fakearm.New(descs, fakearm.Options{RetryAfter: -1})
		},
	}
	if *leaveOneOut {
		if err := runLeaveOneOut(files, opts, *configFile, *specRoot, stdout); err != nil {
			fmt.Fprintln(stderr, "fakearm conformance: leave-one-out:", err)
			return 1
		}
	}
	rep, err := conformance.Run(files, opts)
	if err != nil {
		fmt.Fprintln(stderr, "fakearm conformance:", err)
		return 1
	}
	if err := rep.Write(stdout); err != nil {
		return 1
	}
	if *jsonOut != "" {
		b, err := json.MarshalIndent(rep, "", "  ")
		if err == nil {
			err = os.WriteFile(*jsonOut, append(b, '\n'), 0o644)
		}
		if err != nil {
			fmt.Fprintln(stderr, "fakearm conformance:", err)
			return 1
		}
	}
	if rep.Served > 0 && float64(rep.ServedMatching)/float64(rep.Served) < *minServed {
		fmt.Fprintf(stderr, "fakearm conformance: %d/%d steps of served types match, below %.2f\n", rep.ServedMatching, rep.Served, *minServed)
		return 1
	}
	return 0
}

// runLeaveOneOut prints the leave-one-out report of the files.
func runLeaveOneOut(files []string, opts conformance.Options, configFile, specRoot string, stdout io.Writer) error {
	l, err := heldout.New(configFile, specRoot)
	if err != nil {
		return err
	}
	rep, err := conformance.LeaveOneOut(files, opts, l.Without, func(set *recording.ProfileSet) (http.Handler, error) {
		return fakearm.New(opts.Descriptors, fakearm.Options{RetryAfter: -1, Profiles: set})
	})
	if err != nil {
		return err
	}
	if err := rep.WriteLeaveOneOut(stdout); err != nil {
		return err
	}
	_, err = fmt.Fprintln(stdout)
	return err
}

// cassettes expands directories to their *.yaml files, sorted.
func cassettes(args []string) ([]string, error) {
	var out []string
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			out = append(out, a)
			continue
		}
		ents, err := os.ReadDir(a)
		if err != nil {
			return nil, err
		}
		var in []string
		for _, e := range ents {
			if !e.IsDir() && strings.HasSuffix(e.Name(), ".yaml") {
				in = append(in, filepath.Join(a, e.Name()))
			}
		}
		sort.Strings(in)
		out = append(out, in...)
	}
	return out, nil
}
