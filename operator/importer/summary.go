package importer

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
)

// Summary writes what the import did: resources per kind, Secrets to fill
// in, types not imported and why, warnings and errors.
func (r *Result) Summary(w io.Writer) {
	counts := map[string]int{}
	var secrets []string
	for _, o := range r.Objects {
		counts[o.Kind()]++
		if o.Secret != nil {
			secrets = append(secrets, fmt.Sprintf("%s (%s)", o.Secret.Name, strings.Join(o.Secret.Keys, ", ")))
		}
	}
	kinds := make([]string, 0, len(counts))
	width := 0
	for k := range counts {
		kinds = append(kinds, k)
		width = max(width, len(k))
	}
	sort.Strings(kinds)
	fmt.Fprintf(w, "Imported %d resources of %d kinds from %s in %s, with %d ARM calls (GET and LIST pages; nothing written to Azure).\n",
		len(r.Objects), len(kinds), r.GroupID, r.Duration.Round(time.Millisecond), r.Calls)
	for _, k := range kinds {
		fmt.Fprintf(w, "  %-*s %d\n", width, k, counts[k])
	}
	if len(secrets) > 0 {
		fmt.Fprintf(w, "Secrets to fill in before you apply: %s\n", strings.Join(secrets, "; "))
	}
	if len(r.Skipped) > 0 {
		fmt.Fprintln(w, "Not imported:")
		for _, s := range r.Skipped {
			what := s.ARMType
			if s.Kind != "" {
				what += " (" + s.Kind + ")"
			}
			if s.Count > 0 {
				what += fmt.Sprintf(", %d in the group", s.Count)
			}
			fmt.Fprintf(w, "  %s: %s\n", what, s.Reason)
		}
	}
	for _, m := range r.Warnings {
		fmt.Fprintf(w, "warning: %s\n", m)
	}
	for _, e := range r.Errors {
		fmt.Fprintf(w, "error: %v\n", e)
	}
}
