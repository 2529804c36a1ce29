package conformance

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
)

// Write prints the report: a table of recordings, the steps that differ,
// and the figures. Its last line is exactly
// "interactions matching: N/M".
func (rep *Report) Write(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "RECORDING\tMATCHING\tSERVED TYPES\tTYPES NOT SERVED")
	for _, rec := range rep.Recordings {
		fmt.Fprintf(tw, "%s\t%d/%d\t%d/%d\t%s\n", rec.File, rec.Matching, rec.Total, rec.ServedMatching, rec.Served, strings.Join(rec.notServed(), ", "))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	rep.writeDifferences(w, "Differences (served types):")
	fmt.Fprintf(w, "\n%d recordings, %d recorded interactions compared in %d steps (a run of identical GETs, and the polls of one operation, are one).\n", len(rep.Recordings), rep.Interactions, rep.Total)
	fmt.Fprintf(w, "interactions matching for the types served: %d/%d (%s)\n", rep.ServedMatching, rep.Served, percent(rep.ServedMatching, rep.Served))
	if rep.Newer > 0 {
		fmt.Fprintf(w, "steps whose recorded body has members no served api-version of the type defines (a newer api-version than the spec root's): %d, of which %d differ in nothing else\n", rep.Newer, rep.NewerOnly)
	}
	fmt.Fprintf(w, "interactions matching (all types; a type not served never matches): %d/%d (%s)\n", rep.Matching, rep.Total, percent(rep.Matching, rep.Total))
	_, err := fmt.Fprintf(w, "interactions matching: %d/%d\n", rep.Matching, rep.Total)
	return err
}

// notServed lists the types of the steps the emulator does not serve.
func (rec Recording) notServed() []string {
	var out []string
	for _, s := range rec.Steps {
		if !s.Served && s.ARMType != "" && !slices.Contains(out, s.ARMType) {
			out = append(out, s.ARMType)
		}
	}
	slices.Sort(out)
	return out
}

func percent(n, m int) string {
	if m == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(m))
}

// writeDifferences lists, under a title, the steps of served types that
// differ (nothing when none does).
func (rep *Report) writeDifferences(w io.Writer, title string) {
	first := true
	for _, rec := range rep.Recordings {
		for _, s := range rec.Steps {
			if s.Match || !s.Served {
				continue
			}
			if first {
				fmt.Fprintln(w, "\n"+title)
				first = false
			}
			fmt.Fprintf(w, "  %s #%d %s %s: %s\n", rec.File, s.Interactions[len(s.Interactions)-1], s.Method, s.Path, s.Why)
		}
	}
}
