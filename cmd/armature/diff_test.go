package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

const cases = "../../generator/apidiff/testdata/cases/"

func TestDiff(t *testing.T) {
	tests := map[string]struct {
		reason   string
		args     []string
		wantCode int // 0: no error
		wantOut  []string
	}{
		"BreakingFails": {
			reason:   "--fail-on-breaking exits 3 when a field is removed",
			args:     []string{"--fail-on-breaking", cases + "removed-field/old.json", cases + "removed-field/new.json"},
			wantCode: exitBreaking,
			wantOut:  []string{"  BREAKING  removed       properties.note: was writable string", "; 1 breaking change"},
		},
		"BreakingReportedOnly": {
			reason:  "without --fail-on-breaking a breaking change is reported, not an error",
			args:    []string{cases + "createonly-patch/old.json", cases + "createonly-patch/new.json"},
			wantOut: []string{"BREAKING  class         properties.size: writable → createOnly"},
		},
		"NothingBreaks": {
			reason:  "an added optional field passes --fail-on-breaking",
			args:    []string{cases + "added-optional/old.json", cases + "added-optional/new.json", "--fail-on-breaking"},
			wantOut: []string{"            added         properties.label: writable string", "; 0 breaking changes"},
		},
		"SpecRootAndLists": {
			reason:   "files not found as given are read below --spec-root; a side may list several files",
			args:     []string{"--spec-root", cases + "mixed", "--fail-on-breaking", "old.json,old.json", "new.json"},
			wantCode: exitBreaking,
			wantOut:  []string{"Microsoft.Shop/sprockets", "kind removed", "; 4 breaking changes"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var out, errb bytes.Buffer
			err := runDiff(tc.args, &out, &errb)
			code := 0
			if err != nil {
				var ee exitError
				if !errors.As(err, &ee) {
					t.Fatalf("%s: %v\n%s", tc.reason, err, errb.String())
				}
				code = ee.code
			}
			if code != tc.wantCode {
				t.Errorf("%s: exit code %d, want %d (err %v)", tc.reason, code, tc.wantCode, err)
			}
			for _, w := range tc.wantOut {
				if !strings.Contains(out.String(), w) {
					t.Errorf("%s: output lacks %q:\n%s", tc.reason, w, out.String())
				}
			}
		})
	}
}

func TestDiffJSON(t *testing.T) {
	var out, errb bytes.Buffer
	if err := runDiff([]string{"--json", cases + "enum-removed/old.json", cases + "enum-removed/new.json"}, &out, &errb); err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	var rep struct {
		Kinds []struct {
			Changes []struct {
				Op       string   `json:"change"`
				Values   []string `json:"values"`
				Breaking bool     `json:"breaking"`
			} `json:"changes"`
		} `json:"kinds"`
		Summary struct{ Breaking int } `json:"summary"`
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("%v:\n%s", err, out.String())
	}
	if len(rep.Kinds) != 1 || len(rep.Kinds[0].Changes) != 2 || rep.Summary.Breaking != 1 {
		t.Fatalf("unexpected report:\n%s", out.String())
	}
	c := rep.Kinds[0].Changes[0]
	if c.Op != "enum-removed" || !c.Breaking || strings.Join(c.Values, ",") != "Eco" {
		t.Errorf("first change %+v, want a breaking enum-removed of Eco", c)
	}
}

func TestDiffErrors(t *testing.T) {
	tests := map[string]struct {
		args  []string
		usage bool
		want  string
	}{
		"OneSide":     {args: []string{cases + "mixed/old.json"}, usage: true, want: "two arguments"},
		"MissingFile": {args: []string{"--spec-root", cases + "mixed", "old.json", "nope.json"}, want: "NEW: nope.json: no such file, as given or below the spec root"},
		"BadSwagger":  {args: []string{"testdata/broken.json", cases + "mixed/new.json"}, want: "OLD: "},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var out, errb bytes.Buffer
			err := runDiff(tc.args, &out, &errb)
			if err == nil {
				t.Fatalf("no error; output:\n%s", out.String())
			}
			var ue usageError
			if errors.As(err, &ue) != tc.usage {
				t.Errorf("usage error = %v, want %v: %v", !tc.usage, tc.usage, err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q lacks %q", err, tc.want)
			}
		})
	}
}
