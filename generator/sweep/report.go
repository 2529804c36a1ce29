package sweep

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/armature-dev/armature/generator/tree"
)

// WriteJSON writes the summary (with its last line), every folder's
// record and, when the sweep placed them, the kinds' tiers.
func WriteJSON(w io.Writer, res *Result) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(struct {
		Summary summaryJSON `json:"summary"`
		Folders []Record    `json:"folders"`
		Tiers   *Tiers      `json:"tiers,omitempty"`
	}{summaryJSON{res.Summary, res.Summary.Line(), res.Summary.Wall.Milliseconds()}, res.Records, res.Tiers})
}

type summaryJSON struct {
	Summary
	Line   string `json:"line"`
	WallMs int64  `json:"wallMs"`
}

// maxListed is how many problems of one cause the scoreboard lists.
const maxListed = 5

// WriteMarkdown writes the scoreboard (docs/coverage.md): the summary, the
// skip categories with counts, the problems and the rejected examples
// grouped by cause, and a table of the folders. corpus names the spec root
// in the title.
func WriteMarkdown(w io.Writer, res *Result, corpus string) error {
	s := res.Summary
	var b strings.Builder
	fmt.Fprintf(&b, "# Coverage: `armature sweep` over %s\n\n", corpus)
	b.WriteString("Written by `make sweep` or `make crds TIER_FLAGS='--markdown docs/coverage.md'`; do not edit.\n")
	b.WriteString("[sweep.md](sweep.md) says how the figures are made and what the skip categories mean. Every figure\n")
	b.WriteString("below is measured; nothing is tuned to a list of providers.\n\n")
	fmt.Fprintf(&b, "```\n%s\n```\n\n", s.Line())

	problems, folders := 0, 0
	for i := range res.Records {
		problems += len(res.Records[i].Problems)
		if len(res.Records[i].Problems) > 0 {
			folders++
		}
	}
	skips, uncat := 0, 0
	for i := range res.Records {
		skips += len(res.Records[i].Skipped)
		uncat += res.Records[i].Uncategorised()
	}
	causes := problemCauses(res.Records)
	b.WriteString("| | |\n|---|---|\n")
	fmt.Fprintf(&b, "| folders swept | %d |\n", s.Folders)
	fmt.Fprintf(&b, "| clean (no problem, no uncategorised skip) | %d (%.1f%%) |\n", s.Clean, 100*Ratio(s.Clean, s.Folders))
	fmt.Fprintf(&b, "| kinds generated | %d |\n", s.Kinds)
	fmt.Fprintf(&b, "| x-ms-examples PUT bodies accepted | %d of %d (%.1f%%) |\n", s.Accepted, s.Examples, 100*Ratio(s.Accepted, s.Examples))
	fmt.Fprintf(&b, "| skipped paths | %d, %d uncategorised |\n", skips, uncat)
	fmt.Fprintf(&b, "| problems | %d in %d folders, %d causes |\n", problems, folders, len(causes))
	fmt.Fprintf(&b, "| build of the generated Go | %s (%s) |\n", s.Build, s.Stages.Build.Round(time.Second))
	fmt.Fprintf(&b, "| time | %s with -j %d |\n", s.Wall.Round(time.Second), s.Jobs)
	fmt.Fprintf(&b, "| peak RSS (VmHWM of the sweep) | %d MiB |\n", s.PeakRSS>>20)
	fmt.Fprintf(&b, "| stages, summed over folders | %s |\n\n", s.Stages)

	writeTiers(&b, res)
	writeClasses(&b, s)
	writeReferences(&b, s)

	b.WriteString("## Skip categories\n\n")
	b.WriteString("Paths (one entry per operation for paths below a resource) that do not become kinds.\n\n")
	b.WriteString("| category | skips | folders | what it holds |\n|---|---:|---:|---|\n")
	for _, c := range skipCategoryRows(res.Records) {
		fmt.Fprintf(&b, "| `%s` | %d | %d | %s |\n", c.name, c.count, c.folders, c.meaning)
	}

	b.WriteString("\n## Problems by cause\n\n")
	if len(causes) == 0 {
		b.WriteString("None.\n")
	} else {
		b.WriteString("A cause is the message with names, locations and numbers taken out. Largest first.\n\n")
		b.WriteString("| # | cause | stage | problems | folders |\n|---:|---|---|---:|---:|\n")
		for i, c := range causes {
			fmt.Fprintf(&b, "| %d | %s | %s | %d | %d |\n", i+1, cell(c.cause), c.stage, len(c.items), c.folders)
		}
		for i, c := range causes {
			fmt.Fprintf(&b, "\n### %d. %s\n\n", i+1, inline(c.cause))
			for j, it := range c.items {
				if j == maxListed {
					fmt.Fprintf(&b, "- … and %d more (the `--json` records have them all)\n", len(c.items)-maxListed)
					break
				}
				fmt.Fprintf(&b, "- %s %s: %s%s\n", it.folder, it.version, where(it.p.Where), inline(shorten(it.p.Message, 300)))
			}
		}
	}

	b.WriteString("\n## Rejected examples by cause\n\n")
	rej := rejectedCauses(res.Records)
	if len(rej) == 0 {
		b.WriteString("None.\n")
	} else {
		b.WriteString("| cause | examples | folders | example |\n|---|---:|---:|---|\n")
		for _, c := range rej {
			it := c.items[0]
			fmt.Fprintf(&b, "| %s | %d | %d | %s %s, %s `%s`: %s |\n", cell(c.cause), len(c.items), c.folders, it.folder, it.version, it.kind, it.file, cell(shorten(it.why, 200)))
		}
	}

	b.WriteString("\n## Folders\n\n")
	b.WriteString("| provider folder | api-version | kinds | skipped | problems | largest CRD | examples | createOnly by source | against the swagger | references by rule | build | clean |\n")
	b.WriteString("|---|---|---:|---:|---:|---:|---:|---|---:|---|---|---|\n")
	for i := range res.Records {
		r := &res.Records[i]
		clean := "yes"
		if !r.Clean() {
			clean = "**no**"
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %d | %d | %s | %d/%d | %s | %d | %s | %s | %s |\n", r.Name, r.APIVersion, r.Kinds, len(r.Skipped), len(r.Problems), kib(r.LargestCRD), r.Accepted, r.Examples, r.Classes.CreateOnlyCell(), r.Classes.Disagree, r.References.Cell(), r.Build, clean)
	}
	writeKinds(&b, res.Tiers)
	_, err := io.WriteString(w, b.String())
	return err
}

// writeClasses writes the createOnly classes by source.
func writeClasses(b *strings.Builder, s Summary) {
	b.WriteString("## Create-only classes by source\n\n")
	b.WriteString("What decided each createOnly property of the newest api-versions, in the order the sources are consulted\n")
	b.WriteString("([classification.md](classification.md)): overrides, ARM-wide rules (arm), the Terraform facts table\n")
	b.WriteString("(terraform), x-ms-mutability, the PUT/PATCH comparison (put/patch); a property inside a createOnly one\n")
	b.WriteString("counts under its holder's source. Disagreements are properties where an ARM-wide rule or the facts\n")
	b.WriteString("decided against the swagger's own class.\n\n")
	fmt.Fprintf(b, "| | |\n|---|---|\n| createOnly properties | %s |\n", s.Classes.CreateOnlyCell())
	fmt.Fprintf(b, "| decided against the swagger | %d |\n", s.Classes.Disagree)
	fmt.Fprintf(b, "| properties the facts table speaks of | %d, %d of them without deciding (conditional, conflicting, or the swagger agrees) |\n\n", s.Classes.Facts, s.Classes.Undecided)
}

// writeReferences writes the reference fields by rule (generator/refs).
func writeReferences(b *strings.Builder, s Summary) {
	b.WriteString("## Reference fields by rule\n\n")
	b.WriteString("Fields of the kinds' specs (newest api-versions) that hold an ARM resource id, by the rule that found\n")
	b.WriteString("them ([references.md](references.md)): x-ms-arm-id-details, format: arm-id, SubResource shapes (the\n")
	b.WriteString("reference is `X.id`), …Id names described as resource ids, maps keyed by ids. The wide corpus has no\n")
	b.WriteString("references entries, so no override counts here.\n\n")
	fmt.Fprintf(b, "| | |\n|---|---|\n| reference fields | %s |\n", s.References.Cell())
	fmt.Fprintf(b, "| folders with at least one | %d of %d |\n\n", s.RefFolders, s.Folders)
}

type categoryRow struct {
	name, meaning  string
	count, folders int
}

// skipCategoryRows counts skips per category: the closed list in its
// order (with zeros), then CategoryFailed and uncategorised when present.
func skipCategoryRows(records []Record) []categoryRow {
	count, folders := map[string]int{}, map[string]int{}
	for i := range records {
		for c, n := range records[i].SkipCounts() {
			count[c] += n
			folders[c]++
		}
	}
	var rows []categoryRow
	for _, c := range tree.SkipCategories() {
		rows = append(rows, categoryRow{string(c), c.Describe(), count[string(c)], folders[string(c)]})
	}
	if n := count[CategoryFailed]; n > 0 {
		rows = append(rows, categoryRow{CategoryFailed, "the resource failed a later stage: see the problems", n, folders[CategoryFailed]})
	}
	if n := count["uncategorised"]; n > 0 {
		rows = append(rows, categoryRow{"uncategorised", "nothing explains the skip: a gap of the sweep or the tree", n, folders["uncategorised"]})
	}
	return rows
}

type causeItem struct {
	folder, version string
	p               Problem
}

type causeGroup struct {
	cause, stage string
	items        []causeItem
	folders      int
}

// problemCauses groups every problem by cause, largest group first.
func problemCauses(records []Record) []causeGroup {
	by := map[string]*causeGroup{}
	for i := range records {
		r := &records[i]
		seen := map[string]bool{}
		for _, p := range r.Problems {
			key := p.Stage + "\x00" + p.Cause
			g := by[key]
			if g == nil {
				g = &causeGroup{cause: p.Cause, stage: p.Stage}
				by[key] = g
			}
			g.items = append(g.items, causeItem{r.Name, r.APIVersion, p})
			if !seen[key] {
				seen[key] = true
				g.folders++
			}
		}
	}
	return sortGroups(by, func(g *causeGroup) int { return len(g.items) })
}

type rejectedItem struct {
	folder, version, kind, file, why string
}

type rejectedGroup struct {
	cause   string
	items   []rejectedItem
	folders int
}

// rejectedCauses groups the rejected examples by the cause of their first
// complaint.
func rejectedCauses(records []Record) []*rejectedGroup {
	by := map[string]*rejectedGroup{}
	for i := range records {
		r := &records[i]
		seen := map[string]bool{}
		for _, x := range r.Rejected {
			first, _, _ := strings.Cut(x.Why, "; ")
			c := Cause(first)
			g := by[c]
			if g == nil {
				g = &rejectedGroup{cause: c}
				by[c] = g
			}
			g.items = append(g.items, rejectedItem{r.Name, r.APIVersion, x.Kind, x.File, x.Why})
			if !seen[c] {
				seen[c] = true
				g.folders++
			}
		}
	}
	out := make([]*rejectedGroup, 0, len(by))
	for _, g := range by {
		out = append(out, g)
	}
	sort.Slice(out, func(i, j int) bool {
		if len(out[i].items) != len(out[j].items) {
			return len(out[i].items) > len(out[j].items)
		}
		return out[i].cause < out[j].cause
	})
	return out
}

func sortGroups(by map[string]*causeGroup, size func(*causeGroup) int) []causeGroup {
	out := make([]causeGroup, 0, len(by))
	for _, g := range by {
		out = append(out, *g)
	}
	sort.Slice(out, func(i, j int) bool {
		if size(&out[i]) != size(&out[j]) {
			return size(&out[i]) > size(&out[j])
		}
		if out[i].stage != out[j].stage {
			return out[i].stage < out[j].stage
		}
		return out[i].cause < out[j].cause
	})
	return out
}

func where(w string) string {
	if w == "" {
		return ""
	}
	return "`" + strings.ReplaceAll(w, "`", "'") + "` "
}

// cell makes text safe in a table cell.
func cell(s string) string {
	return strings.ReplaceAll(inline(s), "|", `\|`)
}

// inline makes text one line, with the characters Markdown would read
// escaped.
func inline(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	r := strings.NewReplacer("<", "&lt;", ">", "&gt;", "*", `\*`, "_", `\_`, "`", "'")
	return r.Replace(s)
}

func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
