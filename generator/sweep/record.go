package sweep

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/armature-dev/armature/generator/classify"
	"github.com/armature-dev/armature/generator/refs"
	"github.com/armature-dev/armature/generator/tree"
)

// Problem stages.
const (
	StageLoad       = "load"       // a swagger file of the folder cannot be read
	StageAnalysis   = "analysis"   // tree, classify or model: a located problem, the resource skipped
	StageEmit       = "emit"       // Go, controller-tools, CRD finishing: nothing of the folder written
	StageExamples   = "examples"   // the examples check itself failed (not a rejected example)
	StageReferences = "references" // the detection of reference fields failed (generator/refs)
	StageBuild      = "build"      // the generated Go does not compile
	StageCRD        = "crd"        // a CRD the apiserver would refuse to create (checkCRD)
	StagePanic      = "panic"      // a stage panicked; recovered
	StageFolder     = "folder"     // the folder itself (no swagger file)
)

// CategoryFailed is the category the sweep gives a skip the generator
// recorded without one because the resource failed a later stage: the
// failure is among the folder's problems, so the skip is explained by it.
const CategoryFailed = "failed"

// Skip is a path that did not become a kind.
type Skip struct {
	Path   string `json:"path"`
	File   string `json:"file"`
	Method string `json:"-"`
	// Category is a tree.SkipCategory, CategoryFailed, or "" when
	// nothing explains the skip (an uncategorised skip: the folder is not
	// clean).
	Category string `json:"category"`
	Reason   string `json:"reason"`
}

// Problem is one unexplained problem of a folder.
type Problem struct {
	// Stage is one of the Stage constants.
	Stage string `json:"stage"`
	// Where is the location: file.json#/json/pointer for the swagger, a
	// generated Go file:line for the build, the first frame for a panic.
	Where string `json:"where,omitempty"`
	// Message is the error as the generator wrote it.
	Message string `json:"message"`
	// Cause is the message with its particulars (names, quoted values,
	// numbers, locations) taken out: problems of one cause share it.
	Cause string `json:"cause"`
}

// Rejected is an x-ms-examples PUT body the CRD does not accept as sent.
type Rejected struct {
	Kind  string `json:"kind"`
	Title string `json:"title"`
	File  string `json:"file"`
	Why   string `json:"why"`
}

// Stages are the wall times of the steps of one folder (or their sum over
// every folder, in a Summary).
type Stages struct {
	Load, Tree, Classify, Model, Emit, ControllerTools, Examples, Build time.Duration
}

// Add sums two Stages.
func (s Stages) Add(o Stages) Stages {
	return Stages{s.Load + o.Load, s.Tree + o.Tree, s.Classify + o.Classify, s.Model + o.Model,
		s.Emit + o.Emit, s.ControllerTools + o.ControllerTools, s.Examples + o.Examples, s.Build + o.Build}
}

// String is the split as `load 1.2s, tree 30ms, …`.
func (s Stages) String() string {
	r := func(d time.Duration) string { return d.Round(time.Millisecond).String() }
	return fmt.Sprintf("load %s, tree %s, classify %s, model %s, emit %s, controller-tools %s, examples %s, build %s",
		r(s.Load), r(s.Tree), r(s.Classify), r(s.Model), r(s.Emit), r(s.ControllerTools), r(s.Examples), r(s.Build))
}

// MarshalJSON writes milliseconds.
func (s Stages) MarshalJSON() ([]byte, error) {
	ms := func(d time.Duration) int64 { return d.Milliseconds() }
	return json.Marshal(map[string]int64{
		"loadMs": ms(s.Load), "treeMs": ms(s.Tree), "classifyMs": ms(s.Classify), "modelMs": ms(s.Model),
		"emitMs": ms(s.Emit), "controllerToolsMs": ms(s.ControllerTools), "examplesMs": ms(s.Examples), "buildMs": ms(s.Build),
	})
}

// Build states of a folder.
const (
	BuildOK      = "ok"
	BuildFailed  = "failed"
	BuildNone    = "none"    // nothing was emitted
	BuildSkipped = "skipped" // Options.NoBuild
)

// Record is the result of one folder.
type Record struct {
	Folder
	// Kinds is the number of kinds generated (0 when emit failed: nothing
	// of the folder is written then).
	Kinds int `json:"kinds"`
	// KindList are the kinds generated, one per kind and version, in the
	// order of the generator's packages (newest api-version first); empty
	// when emit failed.
	KindList []KindRecord `json:"kindList,omitempty"`
	// Skipped are the paths that did not become kinds.
	Skipped []Skip `json:"skipped"`
	// Problems make the folder unclean.
	Problems []Problem `json:"problems"`
	// LargestCRD is the byte size of the largest CRD YAML, and its file.
	LargestCRD     int    `json:"largestCRDBytes"`
	LargestCRDFile string `json:"largestCRD,omitempty"`
	// Examples counts x-ms-examples PUT bodies; Accepted those the CRDs
	// accept exactly as sent (nothing pruned, schema valid).
	Examples int        `json:"examples"`
	Accepted int        `json:"examplesAccepted"`
	Rejected []Rejected `json:"examplesRejected,omitempty"`
	// Classes counts the classified properties of the newest api-version
	// (generator/classify; docs/classification.md).
	Classes Classes `json:"classes"`
	// References counts the fields of the kinds' specs that hold an ARM
	// resource id, by the rule that found them (generator/refs), over the
	// newest api-version.
	References RefCounts `json:"references,omitempty"`
	// Build is BuildOK, BuildFailed, BuildNone or BuildSkipped.
	Build    string        `json:"build"`
	Stages   Stages        `json:"stages"`
	Duration time.Duration `json:"-"`
	// Out is the folder of the module the output was written to.
	Out string `json:"-"`
}

// KindRecord is one kind (at one version) a folder generated.
type KindRecord struct {
	Group   string `json:"group"`
	Version string `json:"version"`
	Kind    string `json:"kind"`
	ARMType string `json:"armType"`
	// APIVersion is the ARM api-version the version speaks.
	APIVersion string `json:"apiVersion"`
	// Package is the Go package's folder below the folder's output,
	// slash-separated: apis/<group's first label>/<version>.
	Package string `json:"package"`
	// CRD is the CRD file's name in the output's crds/, "" when none was
	// written (a problem of the folder says why).
	CRD string `json:"crd,omitempty"`
	// Refused says why the apiserver would refuse to create the CRD
	// (StageCRD), "" when it would not.
	Refused string `json:"refused,omitempty"`
	// OwnerARMType is the ARM type of the kind's owner ("" when any scope
	// may own it), and OwnerKind the owner's "group/Kind" when the folder
	// generated the owner's type too ("" otherwise: a resource group's
	// kinds, whose owner another folder generates).
	OwnerARMType string `json:"ownerArmType,omitempty"`
	OwnerKind    string `json:"ownerKind,omitempty"`
	// Examples counts the kind's x-ms-examples PUT bodies; Accepted those
	// its CRD accepts as sent.
	Examples int `json:"examples"`
	Accepted int `json:"examplesAccepted"`
}

// GroupKind is "group/Kind".
func (k KindRecord) GroupKind() string { return k.Group + "/" + k.Kind }

// Classes counts create-only properties by the source that decided them,
// and the properties where the sources disagree.
type Classes struct {
	// CreateOnly counts createOnly properties by source (classify.Sources).
	CreateOnly map[string]int `json:"createOnly,omitempty"`
	// Disagree counts properties whose class an ARM-wide rule or the facts
	// decided against the swagger's class.
	Disagree int `json:"disagree"`
	// Facts counts properties the facts table speaks of; Undecided those
	// it speaks of without deciding (conditional, conflicting, or agreeing
	// with the swagger).
	Facts     int `json:"facts"`
	Undecided int `json:"undecided"`
}

// add counts one classified property.
func (c *Classes) add(e classify.Entry, inFacts bool) {
	if e.Class == classify.CreateOnly {
		if c.CreateOnly == nil {
			c.CreateOnly = map[string]int{}
		}
		c.CreateOnly[e.Source]++
	}
	if e.Swagger != "" && (e.Source == classify.SourceARM || e.Source == classify.SourceTerraform) {
		c.Disagree++
	}
	if inFacts {
		c.Facts++
	}
	if e.Facts != "" {
		c.Undecided++
	}
}

// CreateOnlyCell is the createOnly counts in the order of the sources:
// `12 (arm 3, terraform 4, x-ms-mutability 5)`.
func (c Classes) CreateOnlyCell() string {
	total := 0
	var parts []string
	for _, s := range classify.Sources {
		if n := c.CreateOnly[s]; n > 0 {
			total += n
			parts = append(parts, fmt.Sprintf("%s %d", s, n))
		}
	}
	if total == 0 {
		return "0"
	}
	return fmt.Sprintf("%d (%s)", total, strings.Join(parts, ", "))
}

// RefCounts counts reference fields by rule (refs.Rules).
type RefCounts map[string]int

// Total is the number of reference fields.
func (c RefCounts) Total() int {
	n := 0
	for _, v := range c {
		n += v
	}
	return n
}

// Cell is the counts in the order of the rules:
// `12 (arm-id-details 3, subresource 9)`.
func (c RefCounts) Cell() string {
	if c.Total() == 0 {
		return "0"
	}
	var parts []string
	for _, r := range refs.Rules {
		if n := c[r]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", r, n))
		}
	}
	return fmt.Sprintf("%d (%s)", c.Total(), strings.Join(parts, ", "))
}

// Uncategorised counts the skips nothing explains.
func (r *Record) Uncategorised() int {
	n := 0
	for _, s := range r.Skipped {
		if s.Category == "" {
			n++
		}
	}
	return n
}

// Clean reports a folder without problems and without uncategorised skips.
func (r *Record) Clean() bool { return len(r.Problems) == 0 && r.Uncategorised() == 0 }

// SkipCounts counts the skips by category ("uncategorised" for "").
func (r *Record) SkipCounts() map[string]int {
	out := map[string]int{}
	for _, s := range r.Skipped {
		c := s.Category
		if c == "" {
			c = "uncategorised"
		}
		out[c]++
	}
	return out
}

// MarshalJSON adds clean and the duration.
func (r Record) MarshalJSON() ([]byte, error) {
	type plain Record
	return json.Marshal(struct {
		plain
		Clean      bool  `json:"clean"`
		DurationMs int64 `json:"durationMs"`
	}{plain(r), r.Clean(), r.Duration.Milliseconds()})
}

// Line is the one-line summary of a folder:
//
//	clean   storage/Microsoft.Storage 2023-05-01: kinds 17, skipped 40 (list-only 21, …), problems 0, largest CRD 182 KiB, examples 40/42, 3.6s
func (r *Record) Line() string {
	state := "clean  "
	if !r.Clean() {
		state = "UNCLEAN"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s %s: kinds %d, skipped %d", state, r.Name, r.APIVersion, r.Kinds, len(r.Skipped))
	if len(r.Skipped) > 0 {
		b.WriteString(" (" + countList(r.SkipCounts()) + ")")
	}
	fmt.Fprintf(&b, ", problems %d", len(r.Problems))
	if len(r.Problems) > 0 {
		causes := map[string]int{}
		for _, p := range r.Problems {
			causes[p.Cause]++
		}
		b.WriteString(" (" + countList(causes) + ")")
	}
	fmt.Fprintf(&b, ", largest CRD %s, examples %d/%d, %s", kib(r.LargestCRD), r.Accepted, r.Examples, r.Duration.Round(100*time.Millisecond))
	return b.String()
}

// countList writes counts as `a 3, b 1`, largest first.
func countList(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}

func kib(n int) string {
	if n == 0 {
		return "-"
	}
	return fmt.Sprintf("%d KiB", (n+1023)/1024)
}

// Summary is the sweep as a whole.
type Summary struct {
	Folders  int `json:"folders"`
	Clean    int `json:"clean"`
	Kinds    int `json:"kinds"`
	Examples int `json:"examples"`
	Accepted int `json:"examplesAccepted"`
	// Classes sums the folders' Classes.
	Classes Classes `json:"classes"`
	// References sums the folders' References; RefFolders counts the
	// folders with at least one.
	References RefCounts `json:"references,omitempty"`
	RefFolders int       `json:"referenceFolders"`
	// Build is "ok", "FAILED" or "skipped".
	Build string `json:"build"`
	// BuildError is a failure of the build not attributed to a folder.
	BuildError string `json:"buildError,omitempty"`
	// Stages are summed over every folder (worker time); Build is the wall
	// time of the one build.
	Stages Stages        `json:"stages"`
	Wall   time.Duration `json:"-"`
	// PeakRSS is the sweep process's peak resident set (VmHWM) in bytes;
	// 0 where unknown.
	PeakRSS int64 `json:"peakRSSBytes"`
	// Jobs is the number of workers.
	Jobs int `json:"jobs"`
}

// Summarise computes the Summary of records.
func Summarise(records []Record) Summary {
	s := Summary{Folders: len(records), Build: "ok"}
	built := false
	for i := range records {
		r := &records[i]
		if r.Clean() {
			s.Clean++
		}
		s.Kinds += r.Kinds
		for k, n := range r.Classes.CreateOnly {
			if s.Classes.CreateOnly == nil {
				s.Classes.CreateOnly = map[string]int{}
			}
			s.Classes.CreateOnly[k] += n
		}
		for k, n := range r.References {
			if s.References == nil {
				s.References = RefCounts{}
			}
			s.References[k] += n
		}
		if r.References.Total() > 0 {
			s.RefFolders++
		}
		s.Classes.Disagree += r.Classes.Disagree
		s.Classes.Facts += r.Classes.Facts
		s.Classes.Undecided += r.Classes.Undecided
		s.Examples += r.Examples
		s.Accepted += r.Accepted
		s.Stages = s.Stages.Add(Stages{Load: r.Stages.Load, Tree: r.Stages.Tree, Classify: r.Stages.Classify, Model: r.Stages.Model,
			Emit: r.Stages.Emit, ControllerTools: r.Stages.ControllerTools, Examples: r.Stages.Examples})
		switch r.Build {
		case BuildFailed:
			s.Build = "FAILED"
		case BuildOK:
			built = true
		case BuildSkipped:
			if s.Build == "ok" && !built {
				s.Build = "skipped"
			}
		}
	}
	return s
}

// Ratio returns n/d, and 1 for 0/0 (nothing to fail).
func Ratio(n, d int) float64 {
	if d == 0 {
		return 1
	}
	return float64(n) / float64(d)
}

// Line is the last line of the sweep:
//
//	providers clean: N/M (P%), kinds: K, examples accepted: A/B (Q%), build: ok|FAILED
func (s Summary) Line() string {
	return fmt.Sprintf("providers clean: %d/%d (%.1f%%), kinds: %d, examples accepted: %d/%d (%.1f%%), build: %s",
		s.Clean, s.Folders, 100*Ratio(s.Clean, s.Folders), s.Kinds, s.Accepted, s.Examples, 100*Ratio(s.Accepted, s.Examples), s.Build)
}

// Check returns an error when the share of clean folders is below minClean
// or the share of accepted examples below minExamples (both 0 to 1; 0
// checks nothing). A build failure of a folder makes it unclean, so it
// counts against minClean.
func (s Summary) Check(minClean, minExamples float64) error {
	var why []string
	if r := Ratio(s.Clean, s.Folders); r < minClean {
		why = append(why, fmt.Sprintf("%d of %d folders clean (%.1f%%), under --min-clean %.1f%%", s.Clean, s.Folders, 100*r, 100*minClean))
	}
	if r := Ratio(s.Accepted, s.Examples); r < minExamples {
		why = append(why, fmt.Sprintf("%d of %d examples accepted (%.1f%%), under --min-examples %.1f%%", s.Accepted, s.Examples, 100*r, 100*minExamples))
	}
	if len(why) == 0 {
		return nil
	}
	return fmt.Errorf("sweep: %s", strings.Join(why, "; "))
}

// skipOf turns a generator skip into a Skip; failed lists the messages of
// the folder's analysis errors, which explain the skips of the resources
// they concern.
func skipOf(s tree.Skipped, failed map[string]bool) Skip {
	c := string(s.Category)
	if c == "" && failed[s.Reason] {
		c = CategoryFailed
	}
	return Skip{Path: s.Path, File: s.File, Category: c, Reason: s.Reason}
}
