package actions_test

import (
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"

	actionsv1alpha1 "github.com/armature-dev/armature/api/actions/v1alpha1"
	"github.com/armature-dev/armature/fakearm"
)

// A 5xx that outlasts the client's retries leaves the outcome unknown: the
// action is not sent again. A 429 says it did not run: it is sent again.
func TestFaultsOnThePOST(t *testing.T) {
	fa := startARM(t, 1)
	ns := namespace(t)
	startOperator(t, fa, ns)
	account(t, ns, "media")

	fa.SetFaults(fakearm.Faults{ErrorRate: 1, ErrorStatus: 500, Methods: []string{"POST"}, PathContains: "/regenerateKey"})
	create(t, newAction(ns, "rotate", actionsv1alpha1.ActionSpec{Target: storageTarget("media"), Action: "regenerateKey", Parameters: params(`{"keyName":"key1"}`)}))
	a := waitPhase(t, ns, "rotate", actionsv1alpha1.PhaseFailed)
	if c := meta.FindStatusCondition(a.Status.Conditions, "Ready"); c == nil || c.Reason != "OutcomeUnknown" {
		t.Errorf("Ready: %+v", c)
	}
	if got := fa.Count("POST 500"); got != 4 {
		t.Errorf("one Action, sent once and retried 3 times by the client: %d answers 500", got)
	}

	// 429: ARM did not run it, so even a regenerateKey is sent again.
	fa.SetFaults(fakearm.Faults{ThrottleNext: 4, Methods: []string{"POST"}, PathContains: "/regenerateKey"})
	create(t, newAction(ns, "rotate-again", actionsv1alpha1.ActionSpec{Target: storageTarget("media"), Action: "regenerateKey", Parameters: params(`{"keyName":"key2"}`)}))
	waitPhase(t, ns, "rotate-again", actionsv1alpha1.PhaseSucceeded)
	if fa.Count("POST 429") != 4 || fa.Count("POST 200") != 1 {
		t.Errorf("four 429s (one call and its three retries), then the Action is sent again and succeeds once: %v", fa.Counts())
	}
}
