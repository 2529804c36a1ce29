package conformance_test

import (
	"slices"
	"strings"
	"testing"
)

// TestUnknownMembers: a recorded body with a member that no api-version
// the emulator serves defines for the type (recorded with a newer one)
// differs, and the step says which member and counts as needing a newer
// spec root; with a member the type defines too, it differs in something
// else as well.
func TestUnknownMembers(t *testing.T) {
	const (
		sub = "https://management.azure.com/subscriptions/00000000-0000-0000-0000-000000000000"
		rg  = sub + "/resourceGroups/rg1?api-version=2020-06-01"
	)
	const loc = `{"location":"westus2"}`
	its := []written{
		{"PUT", rg, 201, loc, `{"name":"rg1"}`, ""},
		{"GET", rg, 200, "", `{"name":"rg1","properties":{"provisioningState":"Succeeded","futureMember":"x"}}`, ""},
		{"PUT", rg, 200, loc, `{"name":"rg1","managedBy":"/x","properties":{"futureMember":"x"}}`, ""},
	}
	rec := replayOf(t, "unknown.yaml", its)
	if len(rec.Steps) != 3 {
		t.Fatalf("%d steps, want 3", len(rec.Steps))
	}
	if s := rec.Steps[0]; !s.Match || s.Unknown != nil {
		t.Errorf("the PUT: match %t, unknown %v (%s); want a match", s.Match, s.Unknown, s.Why)
	}
	get, put := rec.Steps[1], rec.Steps[2]
	if get.Match || !slices.Equal(get.Unknown, []string{"properties.futureMember"}) || !get.NewerOnly || !strings.Contains(get.Why, "defined by no api-version served: properties.futureMember") {
		t.Errorf("the GET: match %t, unknown %v, newer only %t, why %q; want properties.futureMember unknown and nothing else", get.Match, get.Unknown, get.NewerOnly, get.Why)
	}
	if put.Match || !slices.Equal(put.Unknown, []string{"properties.futureMember"}) || put.NewerOnly {
		t.Errorf("the second PUT: match %t, unknown %v, newer only %t, why %q; want properties.futureMember unknown, managedBy missing too", put.Match, put.Unknown, put.NewerOnly, put.Why)
	}
	if rec.Newer != 2 || rec.NewerOnly != 1 {
		t.Errorf("tally: newer %d, newer only %d; want 2, 1", rec.Newer, rec.NewerOnly)
	}
}
