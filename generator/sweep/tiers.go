package sweep

import (
	"fmt"
	"sort"
	"strings"
)

// Tiers of a kind (docs/tiers.md).
const (
	// TierCurated is a kind generated/apis ships (specs/armature.yaml).
	TierCurated = "curated"
	// TierGenerated is a kind only the generated tier ships (make crds).
	TierGenerated = "generated"
	// TierNone is a kind of the sweep that ships in no tier: another
	// folder's kind of the same group and kind wins, or it has no CRD.
	TierNone = "none"
)

// Evidence that a kind works, strongest first (docs/coverage.md).
const (
	// EvidenceRecorded: recorded real ARM traffic answered the kind's ARM
	// type (test/recordings, ../shared/recordings).
	EvidenceRecorded = "recorded"
	// EvidenceExamples: every x-ms-examples PUT body of the kind, at least
	// one, is accepted by its CRD as sent (the apiserver's pruning and
	// validation, offline).
	EvidenceExamples = "examples"
	// EvidenceCompiled: the kind's Go compiled, nothing more.
	EvidenceCompiled = "compiled"
	// EvidenceNone: not even that (not built, or the build failed).
	EvidenceNone = "none"
)

// Evidences are the evidence values, strongest first.
var Evidences = []string{EvidenceRecorded, EvidenceExamples, EvidenceCompiled, EvidenceNone}

// Placement is the tier of one kind of the sweep.
type Placement struct {
	KindRecord
	// Record is the index of the kind's folder in the records.
	Record int `json:"-"`
	// Folder is the provider folder (Folder.Name) and FolderVersion its
	// api-version.
	Folder        string `json:"folder"`
	FolderVersion string `json:"folderVersion"`
	// Tier is TierCurated, TierGenerated or TierNone.
	Tier string `json:"tier"`
	// Why says why a kind is not in the generated tier: the curated kind
	// of the same group and kind, the folder whose kind wins, no CRD.
	Why string `json:"why,omitempty"`
	// ARMOverlap names the kinds of other groups or names that serve the
	// same ARM type (a curated kind, or another folder's), "" when none.
	ARMOverlap string `json:"armOverlap,omitempty"`
	// Evidence is one of Evidences.
	Evidence string `json:"evidence"`
}

// Tiers is every kind of a sweep placed in a tier, beside the curated
// tier.
type Tiers struct {
	// Kinds are the sweep's kinds, by folder then in the folder's order,
	// one per group and kind (a kind's older versions in one folder are
	// served by the same CRD).
	Kinds []Placement `json:"kinds"`
	// Curated is the curated tier, one entry per group and kind (its
	// newest version); CuratedOnly those of them no swept folder generated.
	Curated     []CuratedKind `json:"curated"`
	CuratedOnly []CuratedKind `json:"curatedOnly"`
	// CuratedRecorded are the curated kinds with recorded traffic, by
	// "group/Kind".
	CuratedRecorded map[string]bool `json:"-"`
}

// Count returns how many kinds have tier t.
func (t *Tiers) Count(tier string) int {
	n := 0
	for _, p := range t.Kinds {
		if p.Tier == tier {
			n++
		}
	}
	return n
}

// Generated returns the kinds of the generated tier.
func (t *Tiers) Generated() []Placement {
	var out []Placement
	for _, p := range t.Kinds {
		if p.Tier == TierGenerated {
			out = append(out, p)
		}
	}
	return out
}

// Accounting is the line that adds the sweep's kinds up:
//
//	1233 kinds of the sweep = 1125 generated tier + 104 curated (same group and kind) + 4 not shipped (3 a duplicate of another folder's, 1 no CRD)
func (t *Tiers) Accounting(swept int) string {
	why := map[string]int{}
	for _, p := range t.Kinds {
		if p.Tier == TierNone {
			why[notShippedCause(p.Why)]++
		}
	}
	var parts []string
	for _, c := range []string{causeDuplicate, causeNoCRD, causeRefused} {
		if why[c] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", why[c], c))
		}
	}
	line := fmt.Sprintf("%d kinds of the sweep = %d generated tier + %d curated (same group and kind) + %d not shipped", swept, t.Count(TierGenerated), t.Count(TierCurated), t.Count(TierNone))
	if len(parts) > 0 {
		line += " (" + strings.Join(parts, ", ") + ")"
	}
	if older := swept - len(t.Kinds); older != 0 {
		line += fmt.Sprintf(" + %d older versions of those kinds", older)
	}
	return line
}

const (
	causeDuplicate = "a duplicate of another folder's"
	causeNoCRD     = "no CRD"
	causeRefused   = "a CRD the apiserver refuses"
)

func notShippedCause(why string) string {
	switch {
	case strings.HasPrefix(why, "no CRD"):
		return causeNoCRD
	case strings.HasPrefix(why, "the apiserver refuses"):
		return causeRefused
	}
	return causeDuplicate
}

// AssignTiers places every kind of the records: a kind whose group and
// kind the curated tier has is curated; of the others, one per group and
// kind is in the generated tier — the newest api-version, then the first
// folder —, the rest, those without a CRD and those whose CRD the
// apiserver would refuse are in no tier. A kind of
// another group or name that serves the ARM type of a curated kind (or of
// another folder's kind) is kept and its ARMOverlap says so. recorded
// holds the ARM types, in lower case, of recorded real traffic.
func AssignTiers(records []Record, curated []CuratedKind, recorded map[string]bool) *Tiers {
	t := &Tiers{CuratedRecorded: map[string]bool{}}
	curatedGK := map[string]CuratedKind{}
	curatedARM := map[string][]string{}
	for _, c := range newestCurated(curated) {
		t.Curated = append(t.Curated, c)
		curatedGK[c.GroupKind()] = c
		curatedARM[strings.ToLower(c.ARMType)] = append(curatedARM[strings.ToLower(c.ARMType)], c.GroupKind())
		if recorded[strings.ToLower(c.ARMType)] {
			t.CuratedRecorded[c.GroupKind()] = true
		}
	}
	swept := map[string]bool{}
	winner := map[string]int{} // group/Kind → index in t.Kinds of the generated tier's
	for i := range records {
		r := &records[i]
		seen := map[string]bool{}
		for _, k := range r.KindList {
			gk := k.GroupKind()
			if seen[gk] {
				continue // an older version of a kind of this folder
			}
			seen[gk] = true
			swept[gk] = true
			p := Placement{KindRecord: k, Record: i, Folder: r.Name, FolderVersion: r.APIVersion, Evidence: evidence(k, r, recorded)}
			switch _, isCurated := curatedGK[gk]; {
			case isCurated:
				p.Tier = TierCurated
			case k.CRD == "":
				p.Tier, p.Why = TierNone, "no CRD written (see the folder's problems)"
			case k.Refused != "":
				p.Tier, p.Why = TierNone, "the apiserver refuses its CRD (see the folder's problems)"
			default:
				p.Tier = TierGenerated
				if w, ok := winner[gk]; ok {
					old := &t.Kinds[w]
					if !newerKind(p, *old) {
						p.Tier, p.Why = TierNone, fmt.Sprintf("a duplicate of %s %s's", old.Folder, old.FolderVersion)
						break
					}
					old.Tier, old.Why = TierNone, fmt.Sprintf("a duplicate of %s %s's", p.Folder, p.FolderVersion)
				}
				winner[gk] = len(t.Kinds)
			}
			t.Kinds = append(t.Kinds, p)
		}
	}
	overlaps(t.Kinds, curatedARM)
	for _, c := range t.Curated {
		if !swept[c.GroupKind()] {
			t.CuratedOnly = append(t.CuratedOnly, c)
		}
	}
	return t
}

// newerKind reports whether a serves a newer api-version than b (the
// first folder wins a tie).
func newerKind(a, b Placement) bool {
	return a.APIVersion != b.APIVersion && newer(a.APIVersion, b.APIVersion)
}

// overlaps fills ARMOverlap: the curated kinds and the other shipped kinds
// of the sweep that serve the same ARM type under another group or name.
func overlaps(kinds []Placement, curatedARM map[string][]string) {
	shipped := map[string][]string{}
	for _, p := range kinds {
		if p.Tier == TierGenerated {
			key := strings.ToLower(p.ARMType)
			shipped[key] = append(shipped[key], p.GroupKind())
		}
	}
	for i := range kinds {
		p := &kinds[i]
		if p.Tier != TierGenerated {
			continue
		}
		key := strings.ToLower(p.ARMType)
		var other []string
		for _, gk := range curatedARM[key] {
			other = append(other, "curated "+gk)
		}
		for _, gk := range shipped[key] {
			if gk != p.GroupKind() {
				other = append(other, "generated "+gk)
			}
		}
		sort.Strings(other)
		p.ARMOverlap = strings.Join(other, ", ")
	}
}

// evidence is the strongest evidence of a kind of record r: none when
// its folder's code does not compile (or nothing was written).
func evidence(k KindRecord, r *Record, recorded map[string]bool) string {
	switch {
	case r.Build == BuildFailed || r.Build == BuildNone:
		return EvidenceNone
	case recorded[strings.ToLower(k.ARMType)]:
		return EvidenceRecorded
	case k.Examples > 0 && k.Accepted == k.Examples && k.CRD != "":
		return EvidenceExamples
	case r.Build == BuildOK || r.Build == buildPending:
		return EvidenceCompiled
	}
	return EvidenceNone
}

// Settle updates the evidence of the kinds once the build is done: a
// kind whose folder did not compile has none.
func (t *Tiers) Settle(records []Record, recorded map[string]bool) {
	for i := range t.Kinds {
		p := &t.Kinds[i]
		p.Evidence = evidence(p.KindRecord, &records[p.Record], recorded)
	}
}
