package inspect

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/armature-dev/armature/generator"
	"github.com/armature-dev/armature/generator/classify"
	"github.com/armature-dev/armature/generator/tree"
)

// Report is the JSON document of `armature inspect --json`.
type Report struct {
	Resources []Resource     `json:"resources"`
	Skipped   []tree.Skipped `json:"skipped"`
	Errors    []string       `json:"errors,omitempty"`
}

// Resource is one generated kind.
type Resource struct {
	ARMType     string            `json:"armType"`
	APIVersion  string            `json:"apiVersion"`
	Group       string            `json:"group"`
	Version     string            `json:"version"`
	Kind        string            `json:"kind"`
	Path        string            `json:"path"`
	File        string            `json:"file"`
	Owner       string            `json:"owner"`
	Scope       string            `json:"scope"`
	Singleton   string            `json:"singleton,omitempty"`
	Verbs       []string          `json:"verbs"`
	LongRunning []string          `json:"longRunning"`
	Actions     []string          `json:"actions,omitempty"`
	StatusGETs  []string          `json:"statusGets,omitempty"`
	Properties  map[string]string `json:"properties"`
	Rules       map[string]string `json:"rules"`
	// Sources name the source that decided each class (override, arm,
	// terraform, x-ms-mutability, put/patch, swagger;
	// docs/classification.md).
	Sources map[string]string `json:"sources"`
	// Disagreements are the properties an ARM-wide rule or the facts
	// classified against the swagger: path → the swagger's class.
	Disagreements map[string]string `json:"disagreements,omitempty"`
	// Facts are what the facts table says of properties it did not decide
	// (conditional, conflicting, or agreeing with the swagger).
	Facts map[string]string `json:"facts,omitempty"`
	// Overrides are the properties an override of specs/armature.yaml
	// changed: path → what changed and why ("class readOnly (swagger:
	// createOnly): the service computes it").
	Overrides map[string]string `json:"overrides,omitempty"`
	// Embedded are the collections of the body that are child resource
	// types too: path → the child's ARM type and how it was matched
	// ("Microsoft.Network/virtualNetworks/subnets (schema)").
	Embedded map[string]string `json:"embedded,omitempty"`
}

// Build makes the report.
func Build(a *generator.Analysis) *Report {
	rep := &Report{Resources: []Resource{}, Skipped: a.Skipped}
	if rep.Skipped == nil {
		rep.Skipped = []tree.Skipped{}
	}
	for _, p := range a.Model.Packages {
		for _, k := range p.Kinds {
			r := k.Resource
			res := Resource{
				ARMType: r.ARMType, APIVersion: r.APIVersion, Group: p.Group, Version: p.Version, Kind: k.Name,
				Path: r.Path, File: r.File, Owner: r.Owner, Scope: string(r.Scope), Singleton: r.Singleton,
				Verbs: r.Verbs(), LongRunning: r.LongRunning(),
				Properties: map[string]string{}, Rules: map[string]string{}, Sources: map[string]string{},
			}
			if res.LongRunning == nil {
				res.LongRunning = []string{}
			}
			for _, act := range r.Actions {
				res.Actions = append(res.Actions, act.Name)
			}
			for _, g := range r.StatusGETs {
				res.StatusGETs = append(res.StatusGETs, g.Name)
			}
			for _, e := range r.Embedded {
				if res.Embedded == nil {
					res.Embedded = map[string]string{}
				}
				res.Embedded[e.Path.String()] = e.ARMType + " (" + e.By + ")"
			}
			for _, e := range k.Table.Entries {
				res.Properties[e.Path.String()] = string(e.Class)
				res.Rules[e.Path.String()] = e.Rule
				res.Sources[e.Path.String()] = e.Source
				if e.Swagger != "" {
					res.Disagreements = put(res.Disagreements, e.Path.String(), string(e.Swagger))
				}
				if e.Facts != "" {
					res.Facts = put(res.Facts, e.Path.String(), e.Facts)
				}
				if sum := e.OverrideSummary(); sum != "" {
					if res.Overrides == nil {
						res.Overrides = map[string]string{}
					}
					res.Overrides[e.Path.String()] = sum + ": " + e.Override.Because
				}
			}
			rep.Resources = append(rep.Resources, res)
		}
	}
	for _, err := range a.Errors {
		rep.Errors = append(rep.Errors, err.Error())
	}
	return rep
}

// Table writes the report for people. A non-empty kind limits it to the
// kinds of that name (case-insensitive).
func Table(w io.Writer, a *generator.Analysis, withProperties bool, kind string) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KIND\tGROUP/VERSION\tARM TYPE\tSCOPE\tOWNER\tVERBS\tLRO\tPROPS (w/c/r/wo/s)")
	for _, p := range a.Model.Packages {
		for _, k := range p.Kinds {
			if kind != "" && !strings.EqualFold(kind, k.Name) {
				continue
			}
			r := k.Resource
			n := map[string]int{}
			for _, e := range k.Table.Entries {
				n[string(e.Class)]++
			}
			fmt.Fprintf(tw, "%s\t%s/%s\t%s\t%s\t%s\t%s\t%s\t%d/%d/%d/%d/%d\n", k.Name, p.Group, p.Version, r.ARMType, r.Scope,
				dash(r.Owner), strings.Join(r.Verbs(), ","), dash(strings.Join(r.LongRunning(), ",")),
				n["writable"], n["createOnly"], n["readOnly"], n["writeOnly"], n["secret"])
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if withProperties {
		for _, p := range a.Model.Packages {
			for _, k := range p.Kinds {
				if kind != "" && !strings.EqualFold(kind, k.Name) {
					continue
				}
				fmt.Fprintf(w, "\n%s (%s)\n", k.Name, k.Resource.ARMType)
				tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
				for _, e := range k.Table.Entries {
					if sum := e.OverrideSummary(); sum != "" {
						// The rule already says why for a class or hide
						// override.
						if !strings.Contains(e.Rule, e.Override.Because) {
							sum += ": " + e.Override.Because
						}
						fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t[override: %s]\n", e.Path, e.Class, e.Source, e.Rule, sum)
						continue
					}
					fmt.Fprintf(tw, "  %s\t%s\t%s\t%s%s\n", e.Path, e.Class, e.Source, e.Rule, notes(e))
				}
				if err := tw.Flush(); err != nil {
					return err
				}
			}
		}
	}
	secretReads(w, a)
	fmt.Fprintf(w, "\n%d kinds; %d paths skipped (--json lists them with reasons)", countKinds(a), len(a.Skipped))
	if len(a.Errors) > 0 {
		fmt.Fprintf(w, "; %d errors:\n", len(a.Errors))
		for _, err := range a.Errors {
			fmt.Fprintf(w, "  %v\n", err)
		}
		return nil
	}
	fmt.Fprintln(w)
	return nil
}

// notes are what the table says beside the rule: the swagger's class when
// another source decided against it, the facts that decided nothing.
func notes(e classify.Entry) string {
	var out string
	if e.Swagger != "" {
		out += " [swagger: " + string(e.Swagger) + "]"
	}
	if e.Facts != "" {
		out += " [facts: " + e.Facts + "]"
	}
	return out
}

func put(m map[string]string, k, v string) map[string]string {
	if m == nil {
		m = map[string]string{}
	}
	m[k] = v
	return m
}

// secretReads lists the status reads left out because their answer holds
// credentials (tree.SkipSecretRead): status never holds credentials.
func secretReads(w io.Writer, a *generator.Analysis) {
	first := true
	for _, s := range a.Skipped {
		if s.Category != tree.SkipSecretRead {
			continue
		}
		if first {
			fmt.Fprintln(w, "\nStatus reads not generated (status never holds credentials):")
			first = false
		}
		fmt.Fprintf(w, "  %s: %s\n", s.Path, s.Reason)
	}
}

func countKinds(a *generator.Analysis) int {
	n := 0
	for _, p := range a.Model.Packages {
		n += len(p.Kinds)
	}
	return n
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
