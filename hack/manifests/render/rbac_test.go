package render

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestEveryRuleHasAReason: in rbac/role.yaml every rule is under a comment
// giving its reasons: the kinds', their status' and finalizers', Secrets'
// and Events', and the Action CRD's, each on the rules it made.
func TestEveryRuleHasAReason(t *testing.T) {
	o := fixture(t)
	action := filepath.Join(o.Root, "action.yaml")
	p := writeCRD(t, t.TempDir(), "actions.azure.armature.dev", "Action", "actions", "v1alpha1")
	if err := os.Rename(p, action); err != nil {
		t.Fatal(err)
	}
	o.Extra = []ExtraCRD{{Path: action, Rules: ActionRules()}}
	files, err := Render(o)
	if err != nil {
		t.Fatal(err)
	}
	role := string(files["rbac/role.yaml"])
	_, rules, ok := strings.Cut(role, "\nrules:\n")
	if !ok {
		t.Fatalf("no rules:\n%s", role)
	}
	// Each rule: its comment lines, then "- apiGroups:" and its body.
	var got []string
	comment := ""
	for _, line := range strings.Split(rules, "\n") {
		switch {
		case strings.HasPrefix(line, "# "):
			comment += line[2:] + " "
		case strings.HasPrefix(line, "- "):
			if comment == "" {
				t.Errorf("a rule without a reason at %q in:\n%s", line, rules)
			}
			got = append(got, strings.TrimSpace(comment))
			comment = ""
		}
	}
	flat := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	want := []string{
		// core: configmaps+secrets (Action and base), events.
		flat(ActionReason + " " + OutputsReason + " " + SecretsReason), EventsReason,
	}
	// Every other group: kinds, finalizers, status (sorted by resource).
	if len(got) < len(want)+3 || (len(got)-len(want))%3 != 0 {
		t.Fatalf("%d rules: want the core's two and three per group:\n%s", len(got), rules)
	}
	for len(want) < len(got) {
		want = append(want, KindReason, FinalizerReason, StatusReason)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("reasons per rule: -want +got:\n%s", diff)
	}
	for _, line := range strings.Split(role, "\n") {
		if len(line) > 76 && strings.HasPrefix(line, "#") {
			t.Errorf("comment line longer than 76: %q", line)
		}
	}
}
