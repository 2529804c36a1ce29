package reconciler_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/armature-dev/armature/fakearm"
	"github.com/armature-dev/armature/runtime/reconciler"
)

// TestFailedOperationIsRetried (issue 28.5): a create whose long-running
// operation ends Failed with a code the error table does not know is sent
// again after a backoff, not left terminal: the emulator fails the
// storage account's operation once (a Location-style operation, whose
// poll answers the error as a 400), the second PUT's operation succeeds
// and the object is Ready. Before, the 400 from the poll waited for a
// change of the object.
func TestFailedOperationIsRetried(t *testing.T) {
	fa := startARM(t, 1)
	ns := namespace(t)
	startOperator(t, fa, ns, reconciler.Config{RetryBackoff: reconciler.Backoff{Initial: 200 * time.Millisecond, Max: time.Second}})
	rg := resourceGroup(ns, "failedop")
	create(t, rg)
	waitReady(t, rg)

	const code, msg = "ContosoLongRunningOperationFailure", "The long-running operation failed; please retry."
	fa.AddCodeFault(fakearm.CodeFault{Operation: true, Method: http.MethodPut, PathContains: "storageAccounts/failedop01", Code: code, Message: msg, Count: 1})
	sa := storageAccount(ns, "failedop01", "failedop")
	create(t, sa)
	waitReady(t, sa)
	if n := calls(fa, http.MethodPut, armID("failedop", "Microsoft.Storage", "storageAccounts", "failedop01")); n != 2 {
		t.Errorf("%d PUTs, want 2: the failed operation's request sent again once", n)
	}
	if w := warnings(t, ns, "failedop01", code); w != 1 {
		t.Errorf("%d %s Events, want 1", w, code)
	}
}
