package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"
)

// defaultCommit is the azurerm commit specs/terraform/azurerm.json is read
// from; --commit overrides it.
const defaultCommit = "69697b7fe6a923fc89e88f386bc95c3ed1ee2ec6"

func main() {
	dir := flag.String("azurerm", "", "a checkout of hashicorp/terraform-provider-azurerm (required)")
	out := flag.String("out", "specs/terraform/azurerm.json", "the data file to write")
	commit := flag.String("commit", defaultCommit, "the commit of the checkout, recorded in the file")
	quiet := flag.Bool("quiet", false, "print no progress")
	flag.Parse()
	if *dir == "" {
		fmt.Fprintln(os.Stderr, "tffacts: --azurerm DIR is required")
		os.Exit(2)
	}
	start := time.Now()
	progress := func(format string, a ...any) {
		if !*quiet {
			fmt.Fprintf(os.Stderr, format+"\n", a...)
		}
	}
	tbl, err := run(*dir, *commit, progress)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tffacts:", err)
		os.Exit(1)
	}
	b, err := json.MarshalIndent(tbl, "", "  ")
	if err != nil {
		fmt.Fprintln(os.Stderr, "tffacts:", err)
		os.Exit(1)
	}
	if err := os.MkdirAll(filepath.Dir(*out), 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "tffacts:", err)
		os.Exit(1)
	}
	if err := os.WriteFile(*out, append(b, '\n'), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "tffacts:", err)
		os.Exit(1)
	}
	s := tbl.Summary
	fmt.Printf("tffacts: %s: %d resources (%d unmapped), %d attributes: %d mapped, %d unmapped; facts: %d forceNew, %d conditionalForceNew, %d updatable (%s)\n",
		*out, s.Resources, len(tbl.UnmappedResources), s.Attributes, s.Mapped, s.Unmapped, s.ForceNew, s.ConditionalForceNew, s.Updatable, time.Since(start).Round(time.Millisecond))
}

// run reads every service package of the tree into a table.
func run(dir, commit string, progress func(string, ...any)) (*table, error) {
	l := newLoader(dir)
	s := newSDKIndex(l)
	services, err := os.ReadDir(filepath.Join(dir, "internal", "services"))
	if err != nil {
		return nil, fmt.Errorf("reading the services: %w", err)
	}
	tbl := &table{Source: "hashicorp/terraform-provider-azurerm", Commit: commit, GeneratedBy: "hack/tffacts",
		Resources: []resourceFacts{}, UnmappedResources: []unmappedResource{}}
	for i, svc := range services {
		if !svc.IsDir() {
			continue
		}
		p := l.load(filepath.ToSlash(filepath.Join("internal", "services", svc.Name())))
		rs := l.discover(p)
		progress("tffacts: [%d/%d] %s: %d resources", i+1, len(services), svc.Name(), len(rs))
		for _, r := range rs {
			rf, ur := readResource(l, s, p, r)
			if ur != nil {
				tbl.UnmappedResources = append(tbl.UnmappedResources, *ur)
				continue
			}
			tbl.Resources = append(tbl.Resources, *rf)
		}
	}
	finish(tbl)
	return tbl, nil
}

// finish sorts the table and computes its summary.
func finish(t *table) {
	sort.Slice(t.Resources, func(i, j int) bool { return t.Resources[i].Resource < t.Resources[j].Resource })
	sort.Slice(t.UnmappedResources, func(i, j int) bool {
		return t.UnmappedResources[i].Resource < t.UnmappedResources[j].Resource
	})
	t.Summary = summary{Resources: len(t.Resources)}
	for _, r := range t.Resources {
		mapped := map[string]bool{}
		for _, f := range r.Facts {
			mapped[f.Attribute] = true
			switch f.Fact {
			case factForceNew:
				t.Summary.ForceNew++
			case factConditional:
				t.Summary.ConditionalForceNew++
			default:
				t.Summary.Updatable++
			}
		}
		t.Summary.Mapped += len(mapped)
		t.Summary.Unmapped += len(r.Unmapped)
	}
	t.Summary.Attributes = t.Summary.Mapped + t.Summary.Unmapped
}
