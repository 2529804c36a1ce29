package generator_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/armature-dev/armature/generator"
	"github.com/armature-dev/armature/generator/config"
	"github.com/armature-dev/armature/generator/emit"
	"github.com/armature-dev/armature/generator/inspect"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/<case>/expected")

// TestGolden generates every testdata/<case>/input into a temporary folder
// and compares the whole output — inspect JSON, Go, CRD YAML, docs — with
// testdata/<case>/expected. `go test ./generator/ -run TestGolden -update`
// rewrites the expected files; testdata/README.md says when that is right.
func TestGolden(t *testing.T) {
	cases, err := os.ReadDir("testdata")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		if !c.IsDir() {
			continue
		}
		name := c.Name()
		t.Run(name, func(t *testing.T) {
			input := filepath.Join("testdata", name, "input")
			opts := caseOptions(t, input)
			got := generate(t, opts)
			// The same input gives byte-identical output.
			if again := generate(t, opts); !cmp.Equal(got, again) {
				t.Fatalf("two runs over the same input differ:\n%s", cmp.Diff(got, again))
			}
			expected := filepath.Join("testdata", name, "expected")
			if *update {
				if err := os.RemoveAll(expected); err != nil {
					t.Fatal(err)
				}
				for p, b := range got {
					dst := filepath.Join(expected, filepath.FromSlash(p))
					if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(dst, b, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				return
			}
			want := readTree(t, expected)
			for _, p := range union(want, got) {
				if diff := cmp.Diff(string(want[p]), string(got[p])); diff != "" {
					t.Errorf("%s differs from the golden file (-want +got); run with -update if the change is intended:\n%s", p, diff)
				}
			}
		})
	}
}

// caseOptions are the generator options of a golden case: input/armature.yaml
// when the case has one (its files, include, exclude and overrides), else
// every input/*.json.
func caseOptions(t *testing.T, input string) generator.Options {
	t.Helper()
	opts := generator.Options{SpecRoot: input}
	if cfgFile := filepath.Join(input, "armature.yaml"); fileExists(cfgFile) {
		cfg, err := config.Load(cfgFile)
		if err != nil {
			t.Fatal(err)
		}
		opts.Files, opts.Config = cfg.Files, cfg
		return opts
	}
	files, err := filepath.Glob(filepath.Join(input, "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no input swagger in %s", input)
	}
	for _, f := range files {
		opts.Files = append(opts.Files, filepath.Base(f))
	}
	return opts
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// generate runs the generator and returns every output file plus the
// inspect report as inspect.json.
func generate(t *testing.T, opts generator.Options) map[string][]byte {
	t.Helper()
	opts.OutDir = t.TempDir()
	opts.ImportPath = "example.com/golden/generated"
	out := opts.OutDir
	res, err := generator.Generate(opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Errors) > 0 {
		t.Fatalf("generate: %v", res.Errors)
	}
	got := readTree(t, out)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(inspect.Build(res.Analysis)); err != nil {
		t.Fatal(err)
	}
	got["inspect.json"] = buf.Bytes()
	return got
}

func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		b, err := os.ReadFile(p)
		out[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func union(a, b map[string][]byte) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range []map[string][]byte{a, b} {
		for k := range m {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	sort.Strings(out)
	return out
}

func TestGeneratedGoStartsWithHeader(t *testing.T) {
	files := generate(t, generator.Options{SpecRoot: "testdata/contoso/input", Files: []string{"widgets.json"}})
	n := 0
	for p, b := range files {
		if !strings.HasSuffix(p, ".go") {
			continue
		}
		n++
		if first, _, _ := strings.Cut(string(b), "\n"); first != "// "+emit.Header {
			t.Errorf("%s starts with %q", p, first)
		}
	}
	if n == 0 {
		t.Fatal("no Go files generated")
	}
}
