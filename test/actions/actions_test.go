package actions_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	actionsv1alpha1 "github.com/armature-dev/armature/api/actions/v1alpha1"
	"github.com/armature-dev/armature/fakearm"
	"github.com/armature-dev/armature/runtime/arm"
)

func newAction(ns, name string, spec actionsv1alpha1.ActionSpec) *actionsv1alpha1.Action {
	return &actionsv1alpha1.Action{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: spec}
}

func storageTarget(name string) actionsv1alpha1.ActionTarget {
	return actionsv1alpha1.ActionTarget{Kind: "StorageAccount", Name: name}
}

func params(s string) *apiextensionsv1.JSON { return &apiextensionsv1.JSON{Raw: []byte(s)} }

// armKeys reads the account's keys from the emulator directly.
func armKeys(t *testing.T, fa *fakearm.Running, id string) map[string]string {
	t.Helper()
	c, err := arm.NewClient(arm.Options{Endpoint: fa.URL, Credential: arm.StaticToken("t"), Transport: fa.HTTPClient()})
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.(arm.Poster).Post(context.Background(), id, "2023-05-01", arm.PostRequest{Action: "listKeys"})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, k := range res.Body["keys"].([]any) {
		m := k.(map[string]any)
		out[m["keyName"].(string)] = m["value"].(string)
	}
	return out
}

// account creates a resource group and a storage account and waits until
// the account is Ready; it returns the account's ARM id.
func account(t *testing.T, ns, name string) string {
	t.Helper()
	create(t, resourceGroup(ns, name+"-rg"), storageAccount(ns, name, name+"-rg"))
	return waitReady(t, storageAccount(ns, name, name+"-rg"))
}

// Done means: regenerateKey on a StorageAccount runs once, its result lands
// in the Secret, and a restarted operator does not send it twice.
func TestRegenerateKeyRunsOnceAcrossRestarts(t *testing.T) {
	fa := startARM(t, 1)
	ns := namespace(t)
	op := startOperator(t, fa, ns)
	id := account(t, ns, "media")
	before := armKeys(t, fa, id)

	create(t, newAction(ns, "rotate", actionsv1alpha1.ActionSpec{
		Target: storageTarget("media"), Action: "regenerateKey", Parameters: params(`{"keyName":"key1"}`),
		ResultSecret: &actionsv1alpha1.ResultReference{Name: "media-keys"},
	}))
	a := waitPhase(t, ns, "rotate", actionsv1alpha1.PhaseSucceeded)
	after := armKeys(t, fa, id)
	if n := posts(fa, "/regenerateKey"); n != 1 {
		t.Fatalf("want exactly one POST regenerateKey, the journal has %d", n)
	}
	if after["key1"] == before["key1"] || after["key2"] != before["key2"] {
		t.Errorf("key1 is regenerated, key2 is not: before %v, after %v", before, after)
	}
	if a.Status.TargetID != id || a.Status.APIVersion != "2023-05-01" || a.Status.SentAt == nil || a.Status.StartTime == nil || a.Status.CompletionTime == nil {
		t.Errorf("status: %+v", a.Status)
	}
	if c := meta.FindStatusCondition(a.Status.Conditions, "Ready"); c == nil || c.Status != metav1.ConditionTrue || c.Reason != "Succeeded" {
		t.Errorf("Ready: %+v", c)
	}

	var s corev1.Secret
	if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "media-keys"}, &s); err != nil {
		t.Fatal(err)
	}
	if string(s.Data["keys.0.value"]) != after["key1"] || string(s.Data["keys.1.value"]) != after["key2"] || len(s.Data["response.json"]) == 0 {
		t.Errorf("the Secret holds the new keys: %v", keysOf(s.Data))
	}
	if ref := metav1.GetControllerOf(&s); ref == nil || ref.UID != a.UID {
		t.Errorf("the Secret is owned by the Action: %+v", s.OwnerReferences)
	}
	var resp map[string]any
	if err := json.Unmarshal(a.Status.Response.Raw, &resp); err != nil {
		t.Fatal(err)
	}
	if k := resp["keys"].([]any)[0].(map[string]any); k["keyName"] != "key1" || k["value"] != nil {
		t.Errorf("status.response keeps the key names, not the values: %v", k)
	}
	noSecretsIn(t, ns, "rotate", after["key1"], after["key2"])

	// A restarted operator sees the finished Action and sends nothing.
	op.stop(t)
	startOperator(t, fa, ns)
	create(t, newAction(ns, "list-after-restart", actionsv1alpha1.ActionSpec{Target: storageTarget("media"), Action: "listKeys"}))
	waitPhase(t, ns, "list-after-restart", actionsv1alpha1.PhaseSucceeded)
	if n := posts(fa, "/regenerateKey"); n != 1 {
		t.Errorf("after a restart the journal has %d POST regenerateKey, want 1", n)
	}
	if b := getAction(t, ns, "rotate"); !b.Status.CompletionTime.Equal(a.Status.CompletionTime) {
		t.Error("the finished Action is left as it was")
	}
	if c := meta.FindStatusCondition(getAction(t, ns, "list-after-restart").Status.Conditions, "Ready"); c == nil || !strings.Contains(c.Message, "secret values, which were not kept") {
		t.Errorf("listKeys without resultSecret says its secrets were dropped: %+v", c)
	}
}

// noSecretsIn fails when a secret value shows in the Action or its events.
func noSecretsIn(t *testing.T, ns, name string, secrets ...string) {
	t.Helper()
	b, _ := json.Marshal(getAction(t, ns, name))
	var evs corev1.EventList
	if err := k8s.List(context.Background(), &evs, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	eb, _ := json.Marshal(evs)
	for _, s := range secrets {
		if strings.Contains(string(b), s) || strings.Contains(string(eb), s) {
			t.Errorf("a secret value is in the Action or an event")
		}
	}
	if len(evs.Items) == 0 {
		t.Error("the Action records events")
	}
}

func keysOf(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// An operator that stopped after recording the intent but before the
// answer never sends a non-reading action again; a reading one is sent.
func TestCrashAfterIntent(t *testing.T) {
	fa := startARM(t, 1)
	ns := namespace(t)
	op := startOperator(t, fa, ns)
	account(t, ns, "media")
	op.stop(t)

	crashed := func(name, action, p string) {
		a := newAction(ns, name, actionsv1alpha1.ActionSpec{Target: storageTarget("media"), Action: action})
		if p != "" {
			a.Spec.Parameters = params(p)
		}
		create(t, a)
		base := a.DeepCopy()
		now := metav1.Now()
		a.Status.Phase, a.Status.SentAt, a.Status.StartTime = actionsv1alpha1.PhaseRunning, &now, &now
		if err := k8s.Status().Patch(context.Background(), a, client.MergeFrom(base)); err != nil {
			t.Fatal(err)
		}
	}
	crashed("rotate", "regenerateKey", `{"keyName":"key2"}`)
	crashed("list", "listKeys", "")
	startOperator(t, fa, ns)

	a := waitPhase(t, ns, "rotate", actionsv1alpha1.PhaseFailed)
	if c := meta.FindStatusCondition(a.Status.Conditions, "ActionRequired"); c == nil || c.Status != metav1.ConditionTrue || c.Reason != "OutcomeUnknown" {
		t.Errorf("ActionRequired: %+v", c)
	}
	waitPhase(t, ns, "list", actionsv1alpha1.PhaseSucceeded)
	if n := posts(fa, "/regenerateKey"); n != 0 {
		t.Errorf("an action whose outcome is unknown is not sent again; the journal has %d", n)
	}
	if n := posts(fa, "/listKeys"); n != 1 {
		t.Errorf("listKeys only reads and is sent again: %d", n)
	}
}

// A long-running action's operation is polled from its resume token after
// a restart, without a second POST.
func TestLongRunningActionResumesAfterRestart(t *testing.T) {
	fa := startARM(t, 30)
	ns := namespace(t)
	op := startOperator(t, fa, ns)
	account(t, ns, "media")
	create(t, newAction(ns, "failover", actionsv1alpha1.ActionSpec{Target: storageTarget("media"), Action: "failover", Query: map[string]string{"failoverType": "Planned"}}))
	eventually(t, 30*time.Second, "the operation to be recorded", func() (bool, string) {
		a := getAction(t, ns, "failover")
		return a.Status.Operation != nil, string(a.Status.Phase)
	})
	if a := getAction(t, ns, "failover"); a.Status.Phase != actionsv1alpha1.PhaseRunning {
		t.Errorf("phase while the operation runs: %s", a.Status.Phase)
	}
	op.stop(t)
	polled := len(fa.Journal())
	startOperator(t, fa, ns)
	a := waitPhase(t, ns, "failover", actionsv1alpha1.PhaseSucceeded)
	if n := posts(fa, "/failover"); n != 1 {
		t.Errorf("want one POST failover across the restart, got %d", n)
	}
	j := fa.Journal()
	if len(j) <= polled || j[len(j)-1].Method != "GET" {
		t.Errorf("the restarted operator polls the operation: %d entries before, %d after", polled, len(j))
	}
	if a.Status.Operation != nil || a.Status.CompletionTime == nil {
		t.Errorf("a finished operation leaves status: %+v", a.Status)
	}
	var post fakearm.Entry
	for _, e := range j {
		if e.Method == "POST" {
			post = e
		}
	}
	if post.Query != "api-version=2023-05-01&failoverType=Planned" {
		t.Errorf("the query parameter is sent: %q", post.Query)
	}
}

// Done means: an action on a target that is not Ready waits.
func TestWaitsForTarget(t *testing.T) {
	fa := startARM(t, 1)
	ns := namespace(t)
	startOperator(t, fa, ns)
	create(t, newAction(ns, "rotate", actionsv1alpha1.ActionSpec{Target: storageTarget("later"), Action: "regenerateKey", Parameters: params(`{"keyName":"key2"}`)}))
	reason := func(want, msg string) func() (bool, string) {
		return func() (bool, string) {
			a := getAction(t, ns, "rotate")
			c := meta.FindStatusCondition(a.Status.Conditions, "Ready")
			if c == nil {
				return false, "no condition"
			}
			return a.Status.Phase == actionsv1alpha1.PhasePending && c.Reason == want && strings.Contains(c.Message, msg), c.Reason + ": " + c.Message
		}
	}
	eventually(t, 20*time.Second, "WaitingForTarget (missing)", reason("WaitingForTarget", `StorageAccount "later" does not exist`))

	// The account exists but its owner does not: not Ready.
	create(t, storageAccount(ns, "later", "later-rg"))
	eventually(t, 20*time.Second, "WaitingForTarget (not Ready)", reason("WaitingForTarget", `StorageAccount "later" is not Ready`))
	time.Sleep(500 * time.Millisecond)
	if n := posts(fa, "/regenerateKey"); n != 0 {
		t.Fatalf("nothing is sent while the target is not Ready: %d", n)
	}
	// The owner appears; the account turns Ready; the watch starts the Action.
	create(t, resourceGroup(ns, "later-rg"))
	a := waitPhase(t, ns, "rotate", actionsv1alpha1.PhaseSucceeded)
	if n := posts(fa, "/regenerateKey"); n != 1 || a.Status.SentAt == nil {
		t.Errorf("one POST once the target is Ready: %d", n)
	}
}

// ARM's refusal ends the Action Failed with ARM's error in status.
func TestARMErrorFails(t *testing.T) {
	fa := startARM(t, 1)
	ns := namespace(t)
	startOperator(t, fa, ns)
	account(t, ns, "media")
	create(t, newAction(ns, "rotate", actionsv1alpha1.ActionSpec{Target: storageTarget("media"), Action: "regenerateKey", Parameters: params(`{"keyName":"key9"}`)}))
	a := waitPhase(t, ns, "rotate", actionsv1alpha1.PhaseFailed)
	if e := a.Status.Error; e == nil || e.Status != 400 || e.Code != "InvalidRequestContent" || e.Target != "keyName" {
		t.Errorf("status.error: %+v", a.Status.Error)
	}
	if c := meta.FindStatusCondition(a.Status.Conditions, "ActionRequired"); c == nil || c.Status != metav1.ConditionTrue {
		t.Errorf("ActionRequired: %+v", c)
	}
	time.Sleep(300 * time.Millisecond)
	if n := posts(fa, "/regenerateKey"); n != 1 {
		t.Errorf("a refused action is not sent again: %d", n)
	}
}

// Done means: an unknown action name or an invalid body is refused by the
// webhook with the field path.
func TestWebhookRefusals(t *testing.T) {
	ns := namespace(t)
	cases := map[string]struct {
		spec actionsv1alpha1.ActionSpec
		want []string
	}{
		"UnknownAction": {spec: actionsv1alpha1.ActionSpec{Target: storageTarget("media"), Action: "rotateKeys"},
			want: []string{`spec.action: Unsupported value: "rotateKeys": supported values:`, `"regenerateKey"`, `"failover"`}},
		"MissingMember": {spec: actionsv1alpha1.ActionSpec{Target: storageTarget("media"), Action: "regenerateKey", Parameters: params(`{}`)},
			want: []string{"spec.parameters.keyName: Required value"}},
		"Enum": {spec: actionsv1alpha1.ActionSpec{Target: actionsv1alpha1.ActionTarget{Kind: "Redis", Name: "cache"}, Action: "regenerateKey", Parameters: params(`{"keyType":"Tertiary"}`)},
			want: []string{`spec.parameters.keyType: Unsupported value: "Tertiary": supported values: "Primary", "Secondary"`}},
		"Query": {spec: actionsv1alpha1.ActionSpec{Target: storageTarget("media"), Action: "failover", Query: map[string]string{"failoverType": "Unplanned"}},
			want: []string{`spec.query[failoverType]: Unsupported value: "Unplanned": supported values: "Planned"`}},
		"NotGenerated": {spec: actionsv1alpha1.ActionSpec{Target: actionsv1alpha1.ActionTarget{Kind: "StatefulSet", Name: "web"}, Action: "restart"},
			want: []string{`spec.target.kind: Invalid value: "StatefulSet"`}},
		"TargetShape": {spec: actionsv1alpha1.ActionSpec{Target: actionsv1alpha1.ActionTarget{Kind: "StorageAccount", Name: "media", ARMID: "/subscriptions/s"}, Action: "listKeys"},
			want: []string{"give either kind and name, or armId"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			err := k8s.Create(context.Background(), newAction(ns, strings.ToLower(name), tc.spec))
			if err == nil {
				t.Fatal("created")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%v\nlacks %q", err, w)
				}
			}
		})
	}
	// A valid Action is admitted; its spec cannot change.
	a := newAction(ns, "rotate", actionsv1alpha1.ActionSpec{Target: storageTarget("media"), Action: "regenerateKey", Parameters: params(`{"keyName":"key1"}`)})
	create(t, a)
	base := a.DeepCopy()
	a.Spec.Parameters = params(`{"keyName":"key2"}`)
	if err := k8s.Patch(context.Background(), a, client.MergeFrom(base)); err == nil || !strings.Contains(err.Error(), "immutable") {
		t.Errorf("a spec change is refused: %v", err)
	}
	base = getAction(t, ns, "rotate")
	b := base.DeepCopy()
	b.Labels = map[string]string{"team": "a"}
	if err := k8s.Patch(context.Background(), b, client.MergeFrom(base)); err != nil {
		t.Errorf("a metadata change is allowed: %v", err)
	}
}
