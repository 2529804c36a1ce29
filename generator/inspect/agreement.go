package inspect

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/armature-dev/armature/generator/facts"
)

// Agreement writes how the classes of a report agree with the facts: per
// provider the properties the facts judge, the agreements, the createOnly
// properties Azure updates in place and the properties Azure cannot
// update that are not createOnly; then every disagreement with its
// evidence.
func Agreement(w io.Writer, ft *facts.Table, rep *Report) error {
	classes := map[string]map[string]string{}
	for _, r := range rep.Resources {
		classes[r.ARMType] = r.Properties
	}
	rows := ft.Compare(classes)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "PROVIDER\tJUDGED\tAGREE\t%\tFALSE createOnly\tMISSED createOnly\t")
	var total facts.Agreement
	for _, a := range rows {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%d\t%d\t\n", a.Provider, a.Judged, a.Agree, pct(a.Agree, a.Judged), a.FalseCreateOnly, a.Missed)
		total.Judged += a.Judged
		total.Agree += a.Agree
		total.FalseCreateOnly += a.FalseCreateOnly
		total.Missed += a.Missed
	}
	fmt.Fprintf(tw, "total\t%d\t%d\t%s\t%d\t%d\t\n", total.Judged, total.Agree, pct(total.Agree, total.Judged), total.FalseCreateOnly, total.Missed)
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, a := range rows {
		for _, d := range a.Disagreements {
			fmt.Fprintf(w, "  %s %s: %s, facts say %s: %s\n", d.ARMType, d.Path, d.Class, d.Verdict, d.Cite)
		}
	}
	return nil
}

func pct(n, d int) string {
	if d == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f", 100*float64(n)/float64(d))
}
