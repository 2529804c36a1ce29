package sweep

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/armature-dev/armature/generator"
)

// specs is the spec root of the tests: alpha is clean (and has an older
// api-version and a preview), beta is clean with a path skipped as no-PUT
// and an example the CRD rejects, gamma has a dangling $ref in its PUT
// body; delta is data-plane.
const specs = "testdata/specs"

func TestDiscover(t *testing.T) {
	cases := map[string]struct {
		reason string
		all    bool
		want   []Folder
	}{
		"Newest": {reason: "one folder per provider: the newest stable api-version; no preview, no data-plane", want: []Folder{
			{Dir: "specification/alpha/resource-manager/Microsoft.Alpha/stable/2024-01-01", Name: "alpha/Microsoft.Alpha", APIVersion: "2024-01-01",
				Files: []string{"specification/alpha/resource-manager/Microsoft.Alpha/stable/2024-01-01/alpha.json"}},
			{Dir: "specification/beta/resource-manager/Microsoft.Beta/stable/2024-02-01", Name: "beta/Microsoft.Beta", APIVersion: "2024-02-01",
				Files: []string{"specification/beta/resource-manager/Microsoft.Beta/stable/2024-02-01/beta.json"}},
			{Dir: "specification/gamma/resource-manager/Microsoft.Gamma/stable/2024-03-01", Name: "gamma/Microsoft.Gamma", APIVersion: "2024-03-01",
				Files: []string{"specification/gamma/resource-manager/Microsoft.Gamma/stable/2024-03-01/gamma.json"}},
		}},
		"AllVersions": {reason: "every stable api-version", all: true, want: []Folder{
			{Dir: "specification/alpha/resource-manager/Microsoft.Alpha/stable/2023-01-01", Name: "alpha/Microsoft.Alpha", APIVersion: "2023-01-01",
				Files: []string{"specification/alpha/resource-manager/Microsoft.Alpha/stable/2023-01-01/alpha.json"}},
			{Dir: "specification/alpha/resource-manager/Microsoft.Alpha/stable/2024-01-01", Name: "alpha/Microsoft.Alpha", APIVersion: "2024-01-01",
				Files: []string{"specification/alpha/resource-manager/Microsoft.Alpha/stable/2024-01-01/alpha.json"}},
			{Dir: "specification/beta/resource-manager/Microsoft.Beta/stable/2024-02-01", Name: "beta/Microsoft.Beta", APIVersion: "2024-02-01",
				Files: []string{"specification/beta/resource-manager/Microsoft.Beta/stable/2024-02-01/beta.json"}},
			{Dir: "specification/gamma/resource-manager/Microsoft.Gamma/stable/2024-03-01", Name: "gamma/Microsoft.Gamma", APIVersion: "2024-03-01",
				Files: []string{"specification/gamma/resource-manager/Microsoft.Gamma/stable/2024-03-01/gamma.json"}},
		}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := Discover(specs, tc.all)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s (-want +got):\n%s", tc.reason, diff)
			}
		})
	}
	if _, err := Discover("testdata", false); err == nil || !strings.Contains(err.Error(), "no specification/") {
		t.Errorf("Discover(testdata) = %v, want an error naming the missing specification/ folder", err)
	}
}

// folderSummary is what TestRun compares of a Record.
type folderSummary struct {
	Kinds              int
	Skips              map[string]int
	Problems           []string // stage | cause | where (file part)
	Examples, Accepted int
	Rejected           []string
	Build              string
	Clean              bool
	LargestCRD         bool
}

// TestRun sweeps the test specs for real, compiling the generated Go: the
// one test of the build step.
func TestRun(t *testing.T) {
	if testing.Short() {
		t.Skip("generates, runs controller-tools and compiles three folders")
	}
	mod, err := ModuleRoot("")
	if err != nil {
		t.Fatal(err)
	}
	var events []string
	res, err := Run(context.Background(), Options{Root: specs, ModuleRoot: mod, Jobs: 2, WorkDir: t.TempDir(), Events: func(e Event) {
		switch e.Kind {
		case FolderDone:
			events = append(events, "done "+e.Folder.Name)
		case BuildStarted:
			events = append(events, "build")
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]folderSummary{}
	for _, r := range res.Records {
		s := folderSummary{Kinds: r.Kinds, Skips: r.SkipCounts(), Examples: r.Examples, Accepted: r.Accepted, Build: r.Build, Clean: r.Clean(), LargestCRD: r.LargestCRD > 0}
		for _, p := range r.Problems {
			file, _, _ := strings.Cut(p.Where, "#")
			s.Problems = append(s.Problems, p.Stage+" | "+p.Cause+" | "+file)
		}
		for _, x := range r.Rejected {
			s.Rejected = append(s.Rejected, x.Kind+": "+x.Why)
		}
		got[r.Name] = s
	}
	want := map[string]folderSummary{
		"alpha/Microsoft.Alpha": {Kinds: 1, Skips: map[string]int{"list-only": 1}, Examples: 1, Accepted: 1, Build: BuildOK, Clean: true, LargestCRD: true},
		"beta/Microsoft.Beta": {Kinds: 1, Skips: map[string]int{"list-only": 1, "no-PUT": 1}, Examples: 1, Build: BuildOK, Clean: true, LargestCRD: true,
			Rejected: []string{"Widget: pruned: spec.properties.colour"}},
		"gamma/Microsoft.Gamma": {Skips: map[string]int{"list-only": 1, CategoryFailed: 1}, Build: BuildNone,
			Problems: []string{`analysis | dangling $ref "…": no definition "…" in <file> | specification/gamma/resource-manager/Microsoft.Gamma/stable/2024-03-01/gamma.json`}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("records (-want +got):\n%s", diff)
	}
	const line = "providers clean: 2/3 (66.7%), kinds: 2, examples accepted: 1/2 (50.0%), build: ok"
	if got := res.Summary.Line(); got != line {
		t.Errorf("last line:\n got %s\nwant %s", got, line)
	}
	if len(events) != 4 || events[3] != "build" {
		t.Errorf("events = %v, want three folders done, then the build", events)
	}
	if res.Summary.Stages.ControllerTools == 0 || res.Summary.Stages.Build == 0 || res.Summary.Jobs != 2 {
		t.Errorf("summary = %+v: want the controller-tools and build stages timed, and 2 jobs", res.Summary)
	}
	if _, err := os.Stat(res.Module); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the temporary module %s is still there (stat: %v)", res.Module, err)
	}
}

// TestPanicIsAProblem makes one folder's generator panic: the folder gets
// the panic as a problem located at the panicking function, and the other
// folders are swept.
func TestPanicIsAProblem(t *testing.T) {
	real := generate
	t.Cleanup(func() { generate = real })
	generate = func(opts generator.Options) (*generator.Result, error) {
		if strings.Contains(opts.Files[0], "Microsoft.Beta") {
			var m map[string]int
			m["boom"]++ // panics: assignment to entry in nil map
		}
		return nil, errors.New("not generated in this test")
	}
	res, err := Run(context.Background(), Options{Root: specs, ModuleRoot: "../..", NoBuild: true, WorkDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Records) != 3 {
		t.Fatalf("%d records, want 3", len(res.Records))
	}
	beta := res.Records[1]
	if len(beta.Problems) != 1 {
		t.Fatalf("beta problems = %+v, want the panic", beta.Problems)
	}
	p := beta.Problems[0]
	t.Logf("panic: where %q, cause %q", p.Where, p.Cause)
	if p.Stage != StagePanic || p.Message != "panic: assignment to entry in nil map" || !strings.Contains(p.Where, "TestPanicIsAProblem") || !strings.Contains(p.Cause, "TestPanicIsAProblem") {
		t.Errorf("problem = %+v: want the panic, located at the test's function", p)
	}
	for _, i := range []int{0, 2} {
		r := res.Records[i]
		if len(r.Problems) == 0 || r.Problems[0].Stage != StageEmit || r.Problems[0].Message != "not generated in this test" {
			t.Errorf("%s problems = %+v, want the fake generator's error", r.Name, r.Problems)
		}
	}
}

func TestSummary(t *testing.T) {
	rec := func(clean bool, kinds, examples, accepted int, build string) Record {
		r := Record{Kinds: kinds, Examples: examples, Accepted: accepted, Build: build}
		if !clean {
			r.Skipped = []Skip{{Path: "/x", Reason: "nothing explains it"}}
		}
		return r
	}
	cases := map[string]struct {
		reason                string
		records               []Record
		minClean, minExamples float64
		line                  string
		err                   string
	}{
		"AllGood": {reason: "no ratio given, nothing fails",
			records: []Record{rec(true, 3, 4, 4, BuildOK), rec(false, 1, 2, 1, BuildOK)},
			line:    "providers clean: 1/2 (50.0%), kinds: 4, examples accepted: 5/6 (83.3%), build: ok"},
		"AtTheRatios": {reason: "a ratio equal to the minimum passes",
			records: []Record{rec(true, 3, 4, 4, BuildOK), rec(false, 1, 2, 1, BuildOK)}, minClean: 0.5, minExamples: 5.0 / 6,
			line: "providers clean: 1/2 (50.0%), kinds: 4, examples accepted: 5/6 (83.3%), build: ok"},
		"UnderClean": {reason: "below --min-clean",
			records: []Record{rec(true, 3, 4, 4, BuildOK), rec(false, 1, 2, 1, BuildOK)}, minClean: 0.75,
			line: "providers clean: 1/2 (50.0%), kinds: 4, examples accepted: 5/6 (83.3%), build: ok",
			err:  "sweep: 1 of 2 folders clean (50.0%), under --min-clean 75.0%"},
		"UnderBoth": {reason: "both ratios are reported",
			records: []Record{rec(false, 1, 2, 1, BuildFailed), rec(true, 0, 0, 0, BuildNone)}, minClean: 0.9, minExamples: 0.9,
			line: "providers clean: 1/2 (50.0%), kinds: 1, examples accepted: 1/2 (50.0%), build: FAILED",
			err:  "sweep: 1 of 2 folders clean (50.0%), under --min-clean 90.0%; 1 of 2 examples accepted (50.0%), under --min-examples 90.0%"},
		"NoExamples": {reason: "0 of 0 examples is 100%",
			records: []Record{rec(true, 1, 0, 0, BuildSkipped)}, minClean: 1, minExamples: 1,
			line: "providers clean: 1/1 (100.0%), kinds: 1, examples accepted: 0/0 (100.0%), build: skipped"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			s := Summarise(tc.records)
			if got := s.Line(); got != tc.line {
				t.Errorf("%s: line\n got %s\nwant %s", tc.reason, got, tc.line)
			}
			got := ""
			if err := s.Check(tc.minClean, tc.minExamples); err != nil {
				got = err.Error()
			}
			if got != tc.err {
				t.Errorf("%s: Check = %q, want %q", tc.reason, got, tc.err)
			}
		})
	}
}

func TestCause(t *testing.T) {
	cases := map[string]struct{ msg, want string }{
		"DanglingRef": {`dangling $ref "#/definitions/WidgetCreate": no definition "WidgetCreate" in specification/x/stable/2024-03-01/x.json`,
			`dangling $ref "…": no definition "…" in <file>`},
		"NoBody":         {"PUT has no body schema", "PUT has no body schema"},
		"KindCollision":  {"Microsoft.Network/natGateways: kind name NatGateway collides with another generated name in network.azure.armature.dev/v20240101", "kind name <name> collides with another generated name in <group>/<version>"},
		"CRDSize":        {"network.azure.armature.dev_applicationgatewaywebapplicationfirewallpolicies.yaml: CRD is 435128 bytes even without descriptions (limit 262144)", "<file>: CRD is N bytes even without descriptions (limit N)"},
		"Located":        {"x.json#/definitions/Foo/properties/bar: allOf cycle: the schema is its own ancestor", "<where>: allOf cycle: the schema is its own ancestor"},
		"PropertyPath":   {`property "fooBar" of properties.networkProfile.subnets clashes`, `property "…" of <path> clashes`},
		"NullValue":      {`invalid: spec.properties.x: Invalid value: "null": spec.properties.x in body must be of type string: "null"`, `invalid: <path>: Invalid value: "null": <path> in body must be of type string: "null"`},
		"PathList":       {"pruned: spec.Client, spec.ManagerName, spec.ResourceGroupName", "pruned: <path>, …"},
		"FirstLineOnly":  {"controller-tools failed:\nx.go:1:2: undefined: Foo", "controller-tools failed:"},
		"CompileMessage": {"invalid operation: x.Spec.PublicIPAddress (variable of type *PublicIPAddressSpec) is not a struct", "invalid operation: <path> (variable of type *<name>) is not a struct"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := Cause(tc.msg); got != tc.want {
				t.Errorf("Cause(%q)\n got %q\nwant %q", tc.msg, got, tc.want)
			}
		})
	}
}

func TestParseBuildOutput(t *testing.T) {
	out := "# armature.sweep/out/f001_beta_microsoft_beta_2024_02_01/apis/beta/v20240201\n" +
		"f001_beta_microsoft_beta_2024_02_01/apis/beta/v20240201/types.go:12:2: undefined: Sku\n" +
		"f001_beta_microsoft_beta_2024_02_01/apis/beta/v20240201/types.go:30:9: cannot use x (variable of type int) as string value in return statement\n" +
		"\thave (int)\n" +
		"# github.com/armature-dev/armature/runtime/descriptor\n" +
		"../../runtime/descriptor/x.go:1:1: broken\n"
	fails, rest := parseBuildOutput(out, tempModulePath)
	got := make([]string, len(fails))
	for i, f := range fails {
		got[i] = f.pkg + " | " + f.line
	}
	want := []string{
		"f001_beta_microsoft_beta_2024_02_01/apis/beta/v20240201 | f001_beta_microsoft_beta_2024_02_01/apis/beta/v20240201/types.go:12:2: undefined: Sku",
		"f001_beta_microsoft_beta_2024_02_01/apis/beta/v20240201 | f001_beta_microsoft_beta_2024_02_01/apis/beta/v20240201/types.go:30:9: cannot use x (variable of type int) as string value in return statement\nhave (int)",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("failures (-want +got):\n%s", diff)
	}
	if !strings.Contains(rest, "runtime/descriptor/x.go:1:1: broken") {
		t.Errorf("rest = %q: want the error outside the generated code", rest)
	}

	records := []Record{{Out: "/tmp/m/f000_alpha", Build: buildPending}, {Out: "/tmp/m/f001_beta_microsoft_beta_2024_02_01", Build: buildPending}, {Out: "/tmp/m/f002_gamma", Build: BuildNone}}
	registry := buildFailure{pkg: "apis", line: "apis/registry.go:3:1: undefined: x"}
	rest2 := attribute(records, "/tmp/m", append(fails, registry))
	if records[0].Build != BuildOK || records[1].Build != BuildFailed || records[2].Build != BuildNone {
		t.Errorf("builds = %s, %s, %s; want ok, failed, none", records[0].Build, records[1].Build, records[2].Build)
	}
	if len(rest2) != 1 || rest2[0] != registry {
		t.Errorf("failures of no folder = %+v, want the registry's", rest2)
	}
	p := records[1].Problems[0]
	if p.Stage != StageBuild || p.Where != "apis/beta/v20240201/types.go:12:2" || p.Message != "undefined: Sku" {
		t.Errorf("problem = %+v", p)
	}
}

func TestModuleRoot(t *testing.T) {
	root, err := ModuleRoot("")
	if err != nil {
		t.Fatal(err)
	}
	if abs, _ := filepath.Abs("../.."); root != abs {
		t.Errorf("ModuleRoot() = %s, want the repository %s", root, abs)
	}
	if got, err := ModuleRoot("../.."); err != nil || got != root {
		t.Errorf("ModuleRoot(../..) = %s, %v", got, err)
	}
	if _, err := ModuleRoot("testdata"); err == nil {
		t.Error("ModuleRoot(testdata) must fail: no go.mod of armature there")
	}
}

func TestWriteModule(t *testing.T) {
	root, dir := t.TempDir(), t.TempDir()
	gomod := "module github.com/armature-dev/armature\n\ngo 1.26.8\n\nrequire (\n\tk8s.io/api v0.34.3\n)\n\nreplace example.com/x => ../x\n\nreplace example.com/y => example.com/z v1.0.0\n"
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte(gomod), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "go.sum"), []byte("k8s.io/api v0.34.3 h1:x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := writeModule(dir, root, tempModulePath); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "go.mod"))
	want := "// The generated packages of `armature sweep`; a temporary module.\nmodule armature.sweep/out\n\ngo 1.26.8\n\nrequire (\n\tk8s.io/api v0.34.3\n)\n\n" +
		"replace example.com/x => " + filepath.Join(root, "../x") + "\n\nreplace example.com/y => example.com/z v1.0.0\n\n" +
		"require github.com/armature-dev/armature v0.0.0-00010101000000-000000000000\n\nreplace github.com/armature-dev/armature => " + root + "\n"
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("go.mod (-want +got):\n%s", diff)
	}
	if sum, _ := os.ReadFile(filepath.Join(dir, "go.sum")); string(sum) != "k8s.io/api v0.34.3 h1:x\n" {
		t.Errorf("go.sum = %q, want armature's", sum)
	}
}

func TestRecordLine(t *testing.T) {
	r := Record{Folder: Folder{Name: "beta/Microsoft.Beta", APIVersion: "2024-02-01"}, Kinds: 1, LargestCRD: 10000, Examples: 2, Accepted: 1,
		Skipped:  []Skip{{Category: "list-only"}, {Category: "no-PUT"}, {Category: "list-only"}, {}},
		Problems: []Problem{{Cause: "PUT has no body schema"}}}
	want := "UNCLEAN beta/Microsoft.Beta 2024-02-01: kinds 1, skipped 4 (list-only 2, no-PUT 1, uncategorised 1), problems 1 (PUT has no body schema 1), largest CRD 10 KiB, examples 1/2, 0s"
	if got := r.Line(); got != want {
		t.Errorf("line\n got %s\nwant %s", got, want)
	}
}

// TestCorpusDiscover unpacks the wide corpus and finds exactly the folders
// its list names, each with swagger documents.
func TestCorpusDiscover(t *testing.T) {
	archive := "../../../shared/specs/arm-stable-a977c730.tar.xz"
	if _, err := os.Stat(archive); err != nil {
		t.Skipf("the wide corpus %s is not on this machine (../shared/specs relative to the repository; see ARM-STABLE.md there)", archive)
	}
	list, err := os.ReadFile(strings.TrimSuffix(archive, ".tar.xz") + ".dirs")
	if err != nil {
		t.Fatal(err)
	}
	root := unpack(t, archive)
	folders, err := Discover(root, false)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range folders {
		got = append(got, f.Dir)
		if len(f.Files) == 0 {
			t.Errorf("%s: no swagger document found", f.Dir)
		}
	}
	want := strings.Fields(string(list))
	sort.Strings(want)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("folders (-want +got):\n%s", diff)
	}
}

// TestReferencesCounted counts a folder's reference fields by rule, from
// generator/refs' hand-written subresource.json (its widget's five).
func TestReferencesCounted(t *testing.T) {
	a, err := generator.Analyze(generator.Options{SpecRoot: "../refs/testdata/rules", Files: []string{"subresource.json"}})
	if err != nil {
		t.Fatal(err)
	}
	var rec Record
	rec.fromAnalysis(a)
	want := RefCounts{"subresource": 5}
	if diff := cmp.Diff(want, rec.References); diff != "" {
		t.Errorf("references (-want +got):\n%s", diff)
	}
	if got := rec.References.Cell(); got != "5 (subresource 5)" {
		t.Errorf("cell = %q", got)
	}
	if s := Summarise([]Record{rec, {}}); s.References.Total() != 5 || s.RefFolders != 1 {
		t.Errorf("summary = %v in %d folders", s.References, s.RefFolders)
	}
}

// TestWriteModuleBelowRoot writes the go.mod of a lasting module below the
// armature module (tier/): it names the root relatively.
func TestWriteModuleBelowRoot(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "tier")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	gomod := "module github.com/armature-dev/armature\n\ngo 1.26.8\n\nreplace example.com/x => ./third_party/x\n"
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte(gomod), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteModule(dir, root, ModulePath+"/tier"); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "go.mod"))
	for _, want := range []string{"\nmodule github.com/armature-dev/armature/tier\n", "replace example.com/x => ../third_party/x\n", "replace github.com/armature-dev/armature => ../\n"} {
		if !strings.Contains(string(got), want) {
			t.Errorf("go.mod lacks %q:\n%s", want, got)
		}
	}
	if got := FolderDir(Folder{Name: "compute/Microsoft.Compute/ComputeRP"}); got != "providers/compute_microsoft_compute_computerp" {
		t.Errorf("FolderDir = %s", got)
	}
}
