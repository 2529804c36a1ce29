package generator

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/armature-dev/armature/generator/emit"
	"github.com/armature-dev/armature/generator/examples"
)

// ExampleResult is the verdict on one x-ms-examples PUT request.
type ExampleResult struct {
	Provider, ARMType, Kind string
	Title, File             string
	Result                  examples.Result
	// Err is set when the example could not be turned into a custom resource.
	Err string
}

// OK reports an example accepted and stored exactly as sent.
func (r ExampleResult) OK() bool { return r.Err == "" && r.Result.OK() }

// ExampleReport is the result of CheckExamples.
type ExampleReport struct {
	Results []ExampleResult
}

// Ratio returns accepted and total example files, overall or for one
// provider ("" for all).
func (r *ExampleReport) Ratio(provider string) (ok, total int) {
	for _, x := range r.Results {
		if provider != "" && !strings.EqualFold(provider, x.Provider) {
			continue
		}
		total++
		if x.OK() {
			ok++
		}
	}
	return ok, total
}

// Providers lists the providers in the report, sorted.
func (r *ExampleReport) Providers() []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range r.Results {
		if !seen[x.Provider] {
			seen[x.Provider] = true
			out = append(out, x.Provider)
		}
	}
	sort.Strings(out)
	return out
}

// CheckExamples turns every PUT example of every analysed kind into a custom
// resource and checks it, offline, against the CRDs in crdDir: the apiserver's
// pruning (nothing may be dropped) and structural validation.
//
// A CRD's validators are built only for a kind that has examples, and
// dropped after its examples: a provider with large CRDs (Microsoft.Network)
// never holds all of them at once.
func CheckExamples(a *Analysis, crdDir string) (*ExampleReport, error) {
	files, err := filepath.Glob(filepath.Join(crdDir, "*.yaml"))
	if err != nil {
		return nil, err
	}
	byKind := map[string]string{} // group/kind → CRD file
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		gk, err := emit.CRDGroupKind(raw)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		byKind[gk] = f
	}
	rep := &ExampleReport{}
	for _, p := range a.Packages() {
		for _, k := range p.Kinds {
			exs, errs := examples.Load(a.Loader.Root(), k.Resource)
			base := ExampleResult{Provider: k.Resource.Provider, ARMType: k.Resource.ARMType, Kind: k.Name}
			for _, err := range errs {
				r := base
				r.Err = err.Error()
				var ee *examples.Error
				if errors.As(err, &ee) {
					r.Title, r.File = ee.Title, ee.File
				}
				rep.Results = append(rep.Results, r)
			}
			if len(exs) == 0 {
				continue
			}
			// A CRD that cannot be read rejects the examples of its kind
			// only, never the whole provider's.
			v, verr := validatorFor(byKind[p.Group+"/"+k.Name], p.Version)
			for _, ex := range exs {
				r := base
				r.Title, r.File = ex.Title, ex.File
				if verr != nil {
					r.Err = verr.Error()
				} else if v == nil {
					r.Err = fmt.Sprintf("no CRD version for %s/%s %s in %s", p.Group, p.Version, k.Name, crdDir)
				} else {
					r.Result = v.WithRequired(k.RequiredPaths()).Check(examples.ToCR(k, ex).Object)
				}
				rep.Results = append(rep.Results, r)
			}
		}
	}
	return rep, nil
}

// validatorFor reads a CRD file and returns the validator of one version;
// nil when there is no file or no such version.
func validatorFor(file, version string) (*examples.Validator, error) {
	if file == "" {
		return nil, nil
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	vs, err := examples.NewValidators(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	for _, v := range vs {
		if v.Version == version {
			return v, nil
		}
	}
	return nil, nil
}

// Print writes the ratio per provider and every failure.
func (r *ExampleReport) Print(w io.Writer) {
	for _, p := range r.Providers() {
		ok, total := r.Ratio(p)
		fmt.Fprintf(w, "%-28s %4d/%-4d example files accepted (%5.1f%%)\n", p, ok, total, pct(ok, total))
	}
	ok, total := r.Ratio("")
	fmt.Fprintf(w, "%-28s %4d/%-4d example files accepted (%5.1f%%)\n", "all", ok, total, pct(ok, total))
	for _, x := range r.Results {
		if x.OK() {
			continue
		}
		why := x.Err
		if why == "" {
			why = x.Result.String()
		}
		fmt.Fprintf(w, "FAIL %s %q (%s): %s\n", x.Kind, x.Title, x.File, why)
	}
}

func pct(ok, total int) float64 {
	if total == 0 {
		return 100
	}
	return 100 * float64(ok) / float64(total)
}
