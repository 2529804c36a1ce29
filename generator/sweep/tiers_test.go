package sweep

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestReadCurated(t *testing.T) {
	got, err := ReadCurated("testdata/curated/apis")
	if err != nil {
		t.Fatal(err)
	}
	want := []CuratedKind{
		{Group: "alpha.azure.armature.dev", Version: "v20240101", Kind: "Widget", ARMType: "Microsoft.Alpha/widgets"},
		{Group: "alpha.azure.armature.dev", Version: "v20230101", Kind: "Widget", ARMType: "Microsoft.Alpha/widgets"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("curated kinds, newest version first (-want +got):\n%s", diff)
	}
	if _, err := ReadCurated("testdata/recordings"); err == nil {
		t.Error("ReadCurated of a folder without descriptors must fail")
	}
}

func TestRecordedTypes(t *testing.T) {
	got, err := RecordedTypes("testdata/recordings", "testdata/absent")
	if err != nil {
		t.Fatal(err)
	}
	// The resource group's PUT and the blade's GET answered 2xx; the
	// gadget's GET was a 404 and listKeys names no resource.
	want := map[string]bool{"microsoft.resources/resourcegroups": true, "microsoft.alpha/widgets/blades": true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("recorded types (-want +got):\n%s", diff)
	}
}

func TestAssignTiers(t *testing.T) {
	kr := func(group, kind, version, armType, crd string, examples, accepted int) KindRecord {
		return KindRecord{Group: group + ".azure.armature.dev", Kind: kind, Version: version, ARMType: armType, APIVersion: version[1:5] + "-" + version[5:7] + "-" + version[7:9], CRD: crd, Examples: examples, Accepted: accepted}
	}
	records := []Record{
		{Folder: Folder{Name: "alpha/Microsoft.Alpha", APIVersion: "2024-01-01"}, Build: BuildOK, KindList: []KindRecord{
			kr("alpha", "Widget", "v20240101", "Microsoft.Alpha/widgets", "w.yaml", 2, 2),       // curated: same group and kind
			kr("alpha", "Gizmo", "v20240101", "Microsoft.Alpha/widgets", "g.yaml", 1, 1),        // another name for a curated ARM type
			kr("alpha", "Blade", "v20240101", "Microsoft.Alpha/widgets/blades", "b.yaml", 0, 0), // recorded
			kr("alpha", "Blade", "v20230101", "Microsoft.Alpha/widgets/blades", "b.yaml", 0, 0), // an older version: one placement
			kr("alpha", "Shard", "v20240101", "Microsoft.Alpha/shards", "", 1, 1),               // no CRD
			{Group: "alpha.azure.armature.dev", Kind: "Sheath", Version: "v20240101", ARMType: "Microsoft.Alpha/sheaths", CRD: "s.yaml", Refused: "the apiserver refuses the CRD: …"},
		}},
		{Folder: Folder{Name: "alpha/Microsoft.Alpha/Extra", APIVersion: "2024-06-01"}, Build: BuildOK, KindList: []KindRecord{
			kr("alpha", "Gizmo", "v20240601", "Microsoft.Alpha/gizmos", "g.yaml", 2, 1), // newer: wins over the first folder's
		}},
		{Folder: Folder{Name: "beta/Microsoft.Beta", APIVersion: "2023-01-01"}, Build: BuildFailed, KindList: []KindRecord{
			kr("beta", "Gadget", "v20230101", "Microsoft.Beta/gadgets", "ga.yaml", 1, 1), // does not compile
			kr("beta", "Gadget", "v20230101", "Microsoft.Beta/gadgets", "ga.yaml", 1, 1),
		}},
	}
	curated := []CuratedKind{{Group: "alpha.azure.armature.dev", Version: "v20240101", Kind: "Widget", ARMType: "Microsoft.Alpha/widgets"},
		{Group: "gamma.azure.armature.dev", Version: "v20200101", Kind: "Thing", ARMType: "Microsoft.Gamma/things"}}
	recorded := map[string]bool{"microsoft.alpha/widgets/blades": true, "microsoft.gamma/things": true}
	tiers := AssignTiers(records, curated, recorded)

	type placed struct{ Folder, GroupKind, Tier, Why, Overlap, Evidence string }
	var got []placed
	for _, p := range tiers.Kinds {
		got = append(got, placed{p.Folder, p.GroupKind(), p.Tier, p.Why, p.ARMOverlap, p.Evidence})
	}
	want := []placed{
		{"alpha/Microsoft.Alpha", "alpha.azure.armature.dev/Widget", TierCurated, "", "", EvidenceExamples},
		{"alpha/Microsoft.Alpha", "alpha.azure.armature.dev/Gizmo", TierNone, "a duplicate of alpha/Microsoft.Alpha/Extra 2024-06-01's", "", EvidenceExamples},
		{"alpha/Microsoft.Alpha", "alpha.azure.armature.dev/Blade", TierGenerated, "", "", EvidenceRecorded},
		{"alpha/Microsoft.Alpha", "alpha.azure.armature.dev/Shard", TierNone, "no CRD written (see the folder's problems)", "", EvidenceCompiled},
		{"alpha/Microsoft.Alpha", "alpha.azure.armature.dev/Sheath", TierNone, "the apiserver refuses its CRD (see the folder's problems)", "", EvidenceCompiled},
		{"alpha/Microsoft.Alpha/Extra", "alpha.azure.armature.dev/Gizmo", TierGenerated, "", "", EvidenceCompiled},
		{"beta/Microsoft.Beta", "beta.azure.armature.dev/Gadget", TierGenerated, "", "", EvidenceNone},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("placements (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]CuratedKind{curated[1]}, tiers.CuratedOnly); diff != "" {
		t.Errorf("curated kinds of no folder (-want +got):\n%s", diff)
	}
	if got := tiers.curatedEvidence(curated[1]); got != EvidenceRecorded {
		t.Errorf("evidence of the curated Thing = %s, want recorded", got)
	}
	const line = "10 kinds of the sweep = 3 generated tier + 1 curated (same group and kind) + 3 not shipped (1 a duplicate of another folder's, 1 no CRD, 1 a CRD the apiserver refuses) + 3 older versions of those kinds"
	if got := tiers.Accounting(10); got != line {
		t.Errorf("accounting\n got %s\nwant %s", got, line)
	}
}

func TestARMOverlap(t *testing.T) {
	records := []Record{{Folder: Folder{Name: "alpha/Microsoft.Alpha", APIVersion: "2024-01-01"}, Build: BuildOK, KindList: []KindRecord{
		{Group: "alpha.azure.armature.dev", Kind: "Gizmo", ARMType: "Microsoft.Alpha/widgets", CRD: "g.yaml"},
		{Group: "alpha.azure.armature.dev", Kind: "Sprocket", ARMType: "microsoft.alpha/WIDGETS", CRD: "s.yaml"},
	}}}
	curated := []CuratedKind{{Group: "alpha.azure.armature.dev", Kind: "Widget", ARMType: "Microsoft.Alpha/widgets"}}
	tiers := AssignTiers(records, curated, nil)
	got := []string{tiers.Kinds[0].ARMOverlap, tiers.Kinds[1].ARMOverlap}
	want := []string{"curated alpha.azure.armature.dev/Widget, generated alpha.azure.armature.dev/Sprocket", "curated alpha.azure.armature.dev/Widget, generated alpha.azure.armature.dev/Gizmo"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ARM overlaps, case aside (-want +got):\n%s", diff)
	}
}
