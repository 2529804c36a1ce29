package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSweepUsage(t *testing.T) {
	cases := map[string]struct {
		args []string
		want string
	}{
		"NoDir":      {args: nil, want: "sweep takes one DIR, got 0 arguments"},
		"TwoDirs":    {args: []string{"a", "b"}, want: "sweep takes one DIR, got 2 arguments"},
		"BadRatio":   {args: []string{"--min-clean", "95", "dir"}, want: "--min-clean 95: want a share from 0 to 1"},
		"BadJobs":    {args: []string{"-j", "0", "dir"}, want: "-j 0: want at least 1"},
		"UnknownArg": {args: []string{"--fast", "dir"}, want: "flag provided but not defined: -fast"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			var out, errb bytes.Buffer
			err := runSweep(tc.args, &out, &errb)
			var ue usageError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("runSweep(%q) = %v, want a usage error containing %q", tc.args, err, tc.want)
			}
		})
	}
}

// TestSweepCommand sweeps the sweep package's test specs without the build
// (TestRun there compiles): the lines, the files and the exit status.
func TestSweepCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("runs controller-tools over three folders")
	}
	dir := t.TempDir()
	jsonFile, mdFile := filepath.Join(dir, "sweep.json"), filepath.Join(dir, "docs", "coverage.md")
	var out, errb bytes.Buffer
	err := runSweep([]string{"--no-build", "--memory-limit", "0", "--json", jsonFile, "--markdown", mdFile, "--min-clean", "0.9", "-j", "2", "../../generator/sweep/testdata/specs"}, &out, &errb)
	if err == nil || err.Error() != "sweep: 2 of 3 folders clean (66.7%), under --min-clean 90.0%" {
		t.Errorf("err = %v, want the --min-clean failure", err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	const last = "providers clean: 2/3 (66.7%), kinds: 2, examples accepted: 1/2 (50.0%), build: skipped"
	if got := lines[len(lines)-1]; got != last {
		t.Errorf("last line:\n got %s\nwant %s\n%s", got, last, out.String())
	}
	folders := 0
	for _, l := range lines {
		if strings.HasPrefix(l, "[") {
			folders++
			if strings.Contains(l, "gamma") != strings.Contains(l, "UNCLEAN") {
				t.Errorf("only gamma is unclean: %s", l)
			}
		}
	}
	if folders != 3 || !strings.Contains(out.String(), "peak RSS") || !strings.Contains(out.String(), "controller-tools") {
		t.Errorf("want one line per folder, the stage split and the peak RSS:\n%s", out.String())
	}
	raw, err := os.ReadFile(jsonFile)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Summary struct{ Line string } `json:"summary"`
		Folders []json.RawMessage     `json:"folders"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil || doc.Summary.Line != last || len(doc.Folders) != 3 {
		t.Errorf("JSON: %v, line %q, %d folders", err, doc.Summary.Line, len(doc.Folders))
	}
	md, err := os.ReadFile(mdFile)
	if err != nil || !strings.Contains(string(md), "```\n"+last+"\n```") || !strings.Contains(string(md), "## Problems by cause") {
		t.Errorf("markdown (%v):\n%s", err, md)
	}
}
