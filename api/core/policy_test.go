package core

import "testing"

func TestParsePolicy(t *testing.T) {
	cases := map[string]struct {
		in                              string
		want                            Policy
		wantErr                         bool
		writes, deletes, drift, onlyPln bool
	}{
		"Empty":            {in: "", want: PolicyManage, writes: true, deletes: true, drift: true},
		"Manage":           {in: "manage", want: PolicyManage, writes: true, deletes: true, drift: true},
		"Skip":             {in: "skip", want: PolicySkip},
		"Detach":           {in: "detach-on-delete", want: PolicyDetachOnDelete, writes: true, drift: true},
		"Plan":             {in: "plan", want: PolicyPlan, onlyPln: true},
		"TrailingSpace":    {in: "detach-on-delete ", wantErr: true},
		"Capitalised":      {in: "Skip", wantErr: true},
		"Typo":             {in: "detach-on-delte", wantErr: true},
		"LeadingSpace":     {in: " manage", wantErr: true},
		"UnknownButPlural": {in: "manages", wantErr: true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := ParsePolicy(tc.in)
			if tc.wantErr {
				if err == nil {
					t.Fatalf("ParsePolicy(%q) = %q, want an error", tc.in, got)
				}
				if got.Writes() || got.Deletes() || got.CorrectsDrift() {
					t.Errorf("the zero policy of an error must permit nothing")
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("ParsePolicy(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
			}
			if got.Writes() != tc.writes || got.Deletes() != tc.deletes || got.CorrectsDrift() != tc.drift || got.OnlyPlans() != tc.onlyPln {
				t.Errorf("%s: Writes %v Deletes %v CorrectsDrift %v OnlyPlans %v", got, got.Writes(), got.Deletes(), got.CorrectsDrift(), got.OnlyPlans())
			}
		})
	}
}
