package fakearm_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"

	"github.com/armature-dev/armature/fakearm"
)

const vmss = rg + "/providers/Microsoft.Compute/virtualMachineScaleSets/web"

// account creates the storage account of the tests and waits for it.
func (e *env) account() {
	e.t.Helper()
	e.resourceGroup()
	e.wait(e.do(http.MethodPut, account, stAPI, accountBody))
}

// keys returns keyName → value of a listKeys or regenerateKey answer.
func keys(t *testing.T, resp *http.Response) map[string]string {
	t.Helper()
	if resp.StatusCode != http.StatusOK {
		code, target := armCode(t, resp)
		t.Fatalf("%s: %d %s %s", resp.Request.URL.Path, resp.StatusCode, code, target)
	}
	out := map[string]string{}
	list, _ := decode(t, resp)["keys"].([]any)
	for _, k := range list {
		m := k.(map[string]any)
		v, _ := m["value"].(string)
		if len(v) != 88 || m["permissions"] == nil || m["creationTime"] == nil {
			t.Errorf("a key has the swagger's shape (88-character base64 value, permissions, creationTime): %v", m)
		}
		out[m["keyName"].(string)] = v
	}
	return out
}

func TestRegenerateKeyThenListKeys(t *testing.T) {
	e := start(t, fakearm.StartOptions{})
	e.account()
	before := keys(t, e.do(http.MethodPost, account+"/listKeys", stAPI, nil))
	if len(before) != 2 || before["key1"] == "" || before["key2"] == "" || before["key1"] == before["key2"] {
		t.Fatalf("listKeys returns two distinct keys key1 and key2: %v", before)
	}
	if again := keys(t, e.do(http.MethodPost, account+"/listKeys", stAPI, nil)); again["key1"] != before["key1"] {
		t.Error("keys are stable between listKeys calls")
	}

	e.arm.ResetJournal()
	after := keys(t, e.do(http.MethodPost, account+"/regenerateKey", stAPI, map[string]any{"keyName": "key1"}))
	if after["key1"] == before["key1"] || after["key2"] != before["key2"] {
		t.Errorf("regenerateKey key1 changes key1 only: before %v, after %v", before, after)
	}
	if listed := keys(t, e.do(http.MethodPost, account+"/listKeys", stAPI, nil)); listed["key1"] != after["key1"] {
		t.Error("listKeys after regenerateKey returns the new key")
	}
	j := e.arm.Journal()
	if len(j) != 2 || j[0].Method != http.MethodPost || !strings.HasSuffix(j[0].Path, "/regenerateKey") || j[0].Status != 200 ||
		j[0].ARMType != "Microsoft.Storage/storageAccounts" || j[0].Body != `{"keyName":"key1"}` {
		t.Errorf("the journal records the action: %+v", j)
	}
}

func TestActionErrors(t *testing.T) {
	e := start(t, fakearm.StartOptions{})
	e.account()
	cases := map[string]struct {
		reason       string
		path, api    string
		body         any
		status       int
		code, target string
	}{
		"MissingResource":  {reason: "an action on a resource that does not exist", path: rg + "/providers/Microsoft.Storage/storageAccounts/none/regenerateKey", body: map[string]any{"keyName": "key1"}, status: 404, code: "ResourceNotFound"},
		"MissingRequired":  {reason: "a required member left out", path: account + "/regenerateKey", body: map[string]any{}, status: 400, code: "InvalidRequestContent", target: "keyName"},
		"NoBody":           {reason: "a required body left out", path: account + "/regenerateKey", status: 400, code: "InvalidRequestContent"},
		"WrongType":        {reason: "a member of the wrong type", path: account + "/regenerateKey", body: map[string]any{"keyName": 1}, status: 400, code: "InvalidRequestContent", target: "keyName"},
		"UnknownMember":    {reason: "a member the schema does not list", path: account + "/regenerateKey", body: map[string]any{"keyName": "key1", "keyNmae": "key1"}, status: 400, code: "InvalidRequestContent", target: "keyNmae"},
		"NoSuchKey":        {reason: "a key the account does not have", path: account + "/regenerateKey", body: map[string]any{"keyName": "key3"}, status: 400, code: "InvalidRequestContent", target: "keyName"},
		"EnumQuery":        {reason: "a query parameter outside its enum", path: account + "/failover?failoverType=Unplanned", status: 400, code: "InvalidRequestContent", target: "failoverType"},
		"UnknownAction":    {reason: "an action the type does not have", path: account + "/explode", status: 404, code: "InvalidResourceType"},
		"WrongAPIVersion":  {reason: "an api-version the type is not served at", path: account + "/listKeys", api: "2019-01-01", status: 400, code: "InvalidApiVersionParameter"},
		"ActionOfNoParent": {reason: "an action below a missing parent's child", path: account + "/blobServices/default/containers/none/setLegalHold", body: map[string]any{"tags": []any{"a"}}, status: 404, code: "ResourceNotFound"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			api := tc.api
			if api == "" {
				api = stAPI
			}
			path, query, _ := strings.Cut(tc.path, "?")
			resp := e.doQuery(http.MethodPost, path, api, query, tc.body)
			code, target := armCode(t, resp)
			if resp.StatusCode != tc.status || code != tc.code || target != tc.target {
				t.Errorf("%s: got %d %s target %q, want %d %s target %q", tc.reason, resp.StatusCode, code, target, tc.status, tc.code, tc.target)
			}
		})
	}
}

// doQuery is do with extra query parameters.
func (e *env) doQuery(method, path, apiVersion, query string, body any) *http.Response {
	e.t.Helper()
	req, err := runtime.NewRequest(context.Background(), method, runtime.JoinPaths(e.cl.Endpoint(), path))
	if err != nil {
		e.t.Fatal(err)
	}
	q, err := url.ParseQuery(query)
	if err != nil {
		e.t.Fatal(err)
	}
	q.Set("api-version", apiVersion)
	req.Raw().URL.RawQuery = q.Encode()
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			e.t.Fatal(err)
		}
		if err := req.SetBody(streaming.NopCloser(bytes.NewReader(b)), "application/json"); err != nil {
			e.t.Fatal(err)
		}
	}
	resp, err := e.cl.Pipeline().Do(req)
	if err != nil {
		e.t.Fatalf("%s %s: %v", method, path, err)
	}
	return resp
}

func TestLongRunningActions(t *testing.T) {
	e := start(t, fakearm.StartOptions{Options: fakearm.Options{LROPolls: 2}})
	e.account()

	// Storage failover: Location style (final-state-via location), no
	// response body.
	e.arm.ResetJournal()
	resp := e.do(http.MethodPost, account+"/failover", stAPI, nil)
	if resp.StatusCode != http.StatusAccepted || resp.Header.Get("Location") == "" {
		t.Fatalf("failover: %d, Location %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	if got := e.wait(resp); got != nil {
		t.Errorf("failover has no response body, got %v", got)
	}
	if e.arm.Count("POST") != 1 || e.arm.Count("GET 202") != 2 {
		t.Errorf("one POST, then polls answering 202 twice: %v", e.arm.Counts())
	}

	// A scale set restart: the Azure-AsyncOperation style, with Location
	// for the result; the resource is untouched.
	resp = e.do(http.MethodPut, vmss, "2024-03-01", map[string]any{"location": "westeurope"})
	if resp.StatusCode >= 300 {
		t.Fatalf("scale set PUT: %d", resp.StatusCode)
	}
	// An action while an operation on the resource runs is a conflict.
	if busy := e.do(http.MethodPost, vmss+"/restart", "2024-03-01", nil); busy.StatusCode != http.StatusConflict {
		t.Errorf("restart during the create: %d, want 409", busy.StatusCode)
	}
	e.wait(resp)
	resp = e.do(http.MethodPost, vmss+"/restart", "2024-03-01", map[string]any{"instanceIds": []any{"0"}})
	if resp.StatusCode != http.StatusAccepted || resp.Header.Get("Azure-AsyncOperation") == "" || resp.Header.Get("Location") == "" {
		t.Fatalf("restart: %d, Azure-AsyncOperation %q, Location %q", resp.StatusCode, resp.Header.Get("Azure-AsyncOperation"), resp.Header.Get("Location"))
	}
	e.wait(resp)

	// A failed operation (fault injection) ends in ARM's error.
	e.arm.SetFaults(fakearm.Faults{FailLROs: true})
	resp = e.do(http.MethodPost, account+"/failover", stAPI, nil)
	p, err := runtime.NewPoller[map[string]any](resp, e.cl.Pipeline(), nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.PollUntilDone(context.Background(), &runtime.PollUntilDoneOptions{Frequency: time.Millisecond})
	var re *azcore.ResponseError
	if !errors.As(err, &re) || re.ErrorCode != "OperationFailed" {
		t.Fatalf("want OperationFailed, got %v", err)
	}
	got := decode(t, e.do(http.MethodGet, account, stAPI, nil))
	if got["properties"].(map[string]any)["provisioningState"] != "Succeeded" {
		t.Errorf("a failed action leaves the resource as it was: %v", got["properties"])
	}
}

func TestActionFaults(t *testing.T) {
	e := start(t, fakearm.StartOptions{})
	e.account()
	e.arm.ResetJournal()
	e.arm.SetFaults(fakearm.Faults{ThrottleNext: 1, Methods: []string{"POST"}, PathContains: "/listKeys"})
	keys(t, e.do(http.MethodPost, account+"/listKeys", stAPI, nil))
	if e.arm.Count("POST 429") != 1 || e.arm.Count("POST 200") != 1 {
		t.Errorf("an injected 429 on the action, retried by azcore: %v", e.arm.Counts())
	}
}

// A regenerated key outlives an emulator restart with a StateFile.
func TestRegeneratedKeySurvivesRestart(t *testing.T) {
	file := filepath.Join(t.TempDir(), "state.json")
	e := start(t, fakearm.StartOptions{Options: fakearm.Options{StateFile: file}})
	e.account()
	after := keys(t, e.do(http.MethodPost, account+"/regenerateKey", stAPI, map[string]any{"keyName": "key1"}))
	_ = e.arm.Close()
	e2 := start(t, fakearm.StartOptions{Options: fakearm.Options{StateFile: file}})
	if listed := keys(t, e2.do(http.MethodPost, account+"/listKeys", stAPI, nil)); listed["key1"] != after["key1"] {
		t.Errorf("after a restart listKeys returns key1 %q, want the regenerated %q", listed["key1"], after["key1"])
	}
}
