package fakearm_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"

	"github.com/armature-dev/armature/fakearm"
	"github.com/armature-dev/armature/generated/apis"
	contoso "github.com/armature-dev/armature/generator/testdata/contoso/expected/apis/contoso/v20240101preview"
	"github.com/armature-dev/armature/runtime/descriptor"
)

const (
	sub       = "/subscriptions/00000000-0000-0000-0000-000000000001"
	rg        = sub + "/resourceGroups/team-a"
	account   = rg + "/providers/Microsoft.Storage/storageAccounts/media01"
	container = account + "/blobServices/default/containers/images"
	vault     = rg + "/providers/Microsoft.KeyVault/vaults/kv1"
	redis     = rg + "/providers/Microsoft.Cache/redis/cache1"
	rgAPI     = "2024-03-01"
	stAPI     = "2023-05-01"
	kvAPI     = "2023-07-01"
	redisAPI  = "2024-03-01"
)

// payload is a named type: azcore's resume tokens need one.
type payload map[string]any

type token struct{}

func (token) GetToken(context.Context, policy.TokenRequestOptions) (azcore.AccessToken, error) {
	return azcore.AccessToken{Token: "test-token", ExpiresOn: time.Now().Add(time.Hour)}, nil
}

// env is an emulator and an azcore ARM client pointed at it.
type env struct {
	t   *testing.T
	arm *fakearm.Running
	cl  *arm.Client
}

func start(t *testing.T, opts fakearm.StartOptions) *env {
	t.Helper()
	return startWith(t, apis.Descriptors(), opts)
}

// startWith starts the emulator serving descs.
func startWith(t *testing.T, descs []*descriptor.Descriptor, opts fakearm.StartOptions) *env {
	t.Helper()
	if opts.RetryAfter == 0 {
		opts.RetryAfter = -1 // Retry-After: 0, so tests do not wait
	}
	r, err := fakearm.Start(descs, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	cl, err := arm.NewClient("armature.test", "v0.0.0", token{}, &arm.ClientOptions{ClientOptions: policy.ClientOptions{
		Cloud: cloud.Configuration{Services: map[cloud.ServiceName]cloud.ServiceConfiguration{
			cloud.ResourceManager: {Endpoint: r.URL, Audience: "https://management.azure.com"},
		}},
		Transport: r.HTTPClient(),
		Retry:     policy.RetryOptions{MaxRetries: 4, RetryDelay: 5 * time.Millisecond, MaxRetryDelay: 2 * time.Second},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return &env{t: t, arm: r, cl: cl}
}

// do sends one request through the azcore ARM pipeline.
func (e *env) do(method, path, apiVersion string, body any, headers ...string) *http.Response {
	e.t.Helper()
	req, err := runtime.NewRequest(context.Background(), method, runtime.JoinPaths(e.cl.Endpoint(), path))
	if err != nil {
		e.t.Fatal(err)
	}
	q := req.Raw().URL.Query()
	q.Set("api-version", apiVersion)
	req.Raw().URL.RawQuery = q.Encode()
	for i := 0; i+1 < len(headers); i += 2 {
		req.Raw().Header.Set(headers[i], headers[i+1])
	}
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

func decode(t *testing.T, resp *http.Response) map[string]any {
	t.Helper()
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatalf("decode %s: %v", resp.Request.URL.Path, err)
	}
	return out
}

func armCode(t *testing.T, resp *http.Response) (string, string) {
	t.Helper()
	body := decode(t, resp)
	e, _ := body["error"].(map[string]any)
	code, _ := e["code"].(string)
	target, _ := e["target"].(string)
	return code, target
}

// wait polls an LRO started by resp to its end with azcore's poller.
func (e *env) wait(resp *http.Response) map[string]any {
	e.t.Helper()
	p, err := runtime.NewPoller[map[string]any](resp, e.cl.Pipeline(), nil)
	if err != nil {
		e.t.Fatal(err)
	}
	out, err := p.PollUntilDone(context.Background(), &runtime.PollUntilDoneOptions{Frequency: time.Millisecond})
	if err != nil {
		e.t.Fatal(err)
	}
	return out
}

func (e *env) resourceGroup() {
	e.t.Helper()
	resp := e.do(http.MethodPut, rg, rgAPI, map[string]any{"location": "westeurope"})
	if resp.StatusCode != http.StatusCreated {
		e.t.Fatalf("resource group PUT: %d", resp.StatusCode)
	}
}

var accountBody = map[string]any{
	"location":   "westeurope",
	"kind":       "StorageV2",
	"sku":        map[string]any{"name": "Standard_LRS"},
	"properties": map[string]any{"accessTier": "Hot", "isHnsEnabled": true},
}

func TestStorageAccountLifecycle(t *testing.T) {
	e := start(t, fakearm.StartOptions{})
	e.resourceGroup()

	// Create: 202 + Location, as recorded for storage accounts.
	resp := e.do(http.MethodPut, account, stAPI, accountBody)
	if resp.StatusCode != http.StatusAccepted || resp.Header.Get("Location") == "" || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("PUT: %d, Location %q, Retry-After %q", resp.StatusCode, resp.Header.Get("Location"), resp.Header.Get("Retry-After"))
	}
	got := e.wait(resp)
	props := got["properties"].(map[string]any)
	if got["id"] != account || props["provisioningState"] != "Succeeded" || props["accessTier"] != "Hot" {
		t.Errorf("final body: id %v, state %v, accessTier %v", got["id"], props["provisioningState"], props["accessTier"])
	}
	if _, ok := props["primaryEndpoints"].(map[string]any); !ok {
		t.Errorf("readOnly properties get placeholders of their type: primaryEndpoints = %v", props["primaryEndpoints"])
	}
	// Values ARM derives from the name follow the examples' pattern
	// (descriptor.NameDerived).
	if blob, _ := props["primaryEndpoints"].(map[string]any)["blob"].(string); blob != "https://media01.blob.core.windows.net/" {
		t.Errorf("primaryEndpoints.blob = %q, want the account's own endpoint", blob)
	}

	// PATCH a writable property: one request, 200.
	e.arm.ResetJournal()
	resp = e.do(http.MethodPatch, account, stAPI, map[string]any{"properties": map[string]any{"accessTier": "Cool"}})
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("PATCH: %d", resp.StatusCode)
	}
	if got := decode(t, resp)["properties"].(map[string]any); got["accessTier"] != "Cool" || got["isHnsEnabled"] != true {
		t.Errorf("PATCH merges: %v", got)
	}
	if n := e.arm.Count("PATCH"); n != 1 || e.arm.Count("PUT") != 0 {
		t.Errorf("journal: %d PATCH, %d PUT", n, e.arm.Count("PUT"))
	}

	// A changed createOnly property is refused, naming it.
	changed := map[string]any{"location": "northeurope", "kind": "StorageV2", "sku": map[string]any{"name": "Standard_LRS"}}
	resp = e.do(http.MethodPut, account, stAPI, changed)
	if code, target := armCode(t, resp); resp.StatusCode != http.StatusBadRequest || code != "PropertyChangeNotAllowed" || target != "location" {
		t.Errorf("location change: %d %s %s", resp.StatusCode, code, target)
	}
	resp = e.do(http.MethodPatch, account, stAPI, map[string]any{"properties": map[string]any{"isHnsEnabled": false}})
	if code, target := armCode(t, resp); code != "PropertyChangeNotAllowed" || target != "properties.isHnsEnabled" {
		t.Errorf("nested createOnly change: %s %s", code, target)
	}

	// A child below the implicit blobServices/default singleton: 201.
	resp = e.do(http.MethodPut, container, stAPI, map[string]any{"properties": map[string]any{"publicAccess": "None"}})
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("container PUT: %d", resp.StatusCode)
	}

	// Deleting the account deletes the container; then 404 with ARM's body.
	resp = e.do(http.MethodDelete, account, stAPI, nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("DELETE: %d", resp.StatusCode)
	}
	for _, id := range []string{account, container} {
		resp = e.do(http.MethodGet, id, stAPI, nil)
		if code, _ := armCode(t, resp); resp.StatusCode != http.StatusNotFound || code != "ResourceNotFound" {
			t.Errorf("GET %s after delete: %d %s", id, resp.StatusCode, code)
		}
	}
}

func TestRequestValidation(t *testing.T) {
	e := start(t, fakearm.StartOptions{})
	cases := map[string]struct {
		method, path, api string
		body              any
		headers           []string
		status            int
		code              string
	}{
		"UnknownAPIVersion": {method: http.MethodGet, path: account, api: "2019-01-01", status: 400, code: "InvalidApiVersionParameter"},
		"MissingGroup":      {method: http.MethodPut, path: sub + "/resourceGroups/none/providers/Microsoft.Storage/storageAccounts/x", api: stAPI, body: accountBody, status: 404, code: "ResourceGroupNotFound"},
		"MissingGroupGET":   {method: http.MethodGet, path: sub + "/resourceGroups/none/providers/Microsoft.Storage/storageAccounts/x", api: stAPI, status: 404, code: "ResourceGroupNotFound"},
		"MissingParent":     {method: http.MethodPut, path: rg + "/providers/Microsoft.KeyVault/vaults/none/secrets/s1", api: kvAPI, body: map[string]any{"properties": map[string]any{"value": "x"}}, status: 404, code: "ParentResourceNotFound"},
		"Missing":           {method: http.MethodGet, path: rg + "/providers/Microsoft.KeyVault/vaults/none", api: kvAPI, status: 404, code: "ResourceNotFound"},
		"UnknownType":       {method: http.MethodGet, path: rg + "/providers/Microsoft.Nope/things/x", api: "2020-01-01", status: 404, code: "InvalidResourceType"},
		"UnknownProperty":   {method: http.MethodPut, path: rg, api: rgAPI, body: map[string]any{"location": "x", "properties": map[string]any{"bogus": 1}}, status: 400, code: "InvalidRequestContent"},
		"UnknownNull":       {method: http.MethodPut, path: rg, api: rgAPI, body: map[string]any{"location": "westeurope", "zones": nil, "properties": map[string]any{"bogus": nil}}, status: 200},
		"IfMatchMismatch":   {method: http.MethodPut, path: rg, api: rgAPI, body: map[string]any{"location": "westeurope"}, headers: []string{"If-Match", `W/"nope"`}, status: 412, code: "PreconditionFailed"},
	}
	e.resourceGroup()
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			resp := e.do(tc.method, tc.path, tc.api, tc.body, tc.headers...)
			if code, _ := armCode(t, resp); resp.StatusCode != tc.status || code != tc.code {
				t.Errorf("%d %s, want %d %s", resp.StatusCode, code, tc.status, tc.code)
			}
		})
	}
	// ReadOnly values in a request are ignored, like ARM does.
	resp := e.do(http.MethodPut, rg, rgAPI, map[string]any{"location": "westeurope", "id": "/other", "properties": map[string]any{"provisioningState": "Failed"}})
	got := decode(t, resp)
	if got["id"] != rg || got["properties"].(map[string]any)["provisioningState"] != "Succeeded" {
		t.Errorf("readOnly values must be ignored: %v", got)
	}
	// If-Match with the current ETag succeeds, and every write changes it.
	etag := resp.Header.Get("ETag")
	resp = e.do(http.MethodPut, rg, rgAPI, map[string]any{"location": "westeurope", "tags": map[string]any{"a": "b"}}, "If-Match", etag)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("ETag") == etag {
		t.Errorf("If-Match with the current ETag: %d, etag %q → %q", resp.StatusCode, etag, resp.Header.Get("ETag"))
	}
}

func TestAzureAsyncOperationAndResumeToken(t *testing.T) {
	e := start(t, fakearm.StartOptions{Options: fakearm.Options{LROPolls: 3}})
	e.resourceGroup()
	// Redis caches: PUT is long-running without final-state-via, and the
	// examples answer a create 201 → the Azure-AsyncOperation style. (Key
	// vaults were the example here until the recordings showed ARM
	// answering their PUT synchronously: generated/profiles.)
	body := map[string]any{"location": "westeurope", "properties": map[string]any{"sku": map[string]any{"name": "Basic", "family": "C", "capacity": 0}}}
	resp := e.do(http.MethodPut, redis, redisAPI, body)
	if resp.StatusCode != http.StatusCreated || resp.Header.Get("Azure-AsyncOperation") == "" {
		t.Fatalf("PUT: %d, Azure-AsyncOperation %q", resp.StatusCode, resp.Header.Get("Azure-AsyncOperation"))
	}
	p, err := runtime.NewPoller[payload](resp, e.cl.Pipeline(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Poll(context.Background()); err != nil || p.Done() {
		t.Fatalf("first poll: done %v, err %v", p.Done(), err)
	}
	tok, err := p.ResumeToken()
	if err != nil {
		t.Fatal(err)
	}
	// A new process resumes from the token and sends no second PUT.
	e.arm.ResetJournal()
	p2, err := runtime.NewPollerFromResumeToken[payload](tok, e.cl.Pipeline(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := p2.PollUntilDone(context.Background(), &runtime.PollUntilDoneOptions{Frequency: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if got["properties"].(map[string]any)["provisioningState"] != "Succeeded" {
		t.Errorf("final state %v", got["properties"])
	}
	if e.arm.Count("PUT") != 0 {
		t.Error("resuming must not send the PUT again")
	}
	if e.arm.Count("GET 200") < 2 {
		t.Errorf("the operation is polled: %v", e.arm.Counts())
	}
}

func TestFailedLRO(t *testing.T) {
	e := start(t, fakearm.StartOptions{Options: fakearm.Options{Faults: fakearm.Faults{FailLROs: true}}})
	e.resourceGroup()
	resp := e.do(http.MethodPut, account, stAPI, accountBody)
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
	if got["properties"].(map[string]any)["provisioningState"] != "Failed" {
		t.Errorf("state after a failed create: %v", got["properties"])
	}
}

// TestOperationFault (issue 28.5): an operation fault fails the operation
// of the next matching request with its code — in both operation styles —
// and the request sent again succeeds.
func TestOperationFault(t *testing.T) {
	e := start(t, fakearm.StartOptions{})
	e.resourceGroup()
	const code = "ContosoLongRunningOperationFailure"
	cases := map[string]struct {
		path, api string
		body      map[string]any
	}{
		"AzureAsyncOperation": {path: redis, api: redisAPI, body: map[string]any{"location": "westeurope", "properties": map[string]any{"sku": map[string]any{"name": "Basic", "family": "C", "capacity": 0}}}},
		"Location":            {path: account, api: stAPI, body: accountBody},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			e.arm.AddCodeFault(fakearm.CodeFault{Operation: true, Method: http.MethodPut, PathContains: tc.path, Code: code, Message: "the operation failed", Count: 1})
			poll := func() error {
				resp := e.do(http.MethodPut, tc.path, tc.api, tc.body)
				p, err := runtime.NewPoller[map[string]any](resp, e.cl.Pipeline(), nil)
				if err != nil {
					t.Fatal(err)
				}
				_, err = p.PollUntilDone(context.Background(), &runtime.PollUntilDoneOptions{Frequency: time.Millisecond})
				return err
			}
			var re *azcore.ResponseError
			if err := poll(); !errors.As(err, &re) || re.ErrorCode != code {
				t.Fatalf("the first operation: want %s, got %v", code, err)
			}
			got := decode(t, e.do(http.MethodGet, tc.path, tc.api, nil))
			if got["properties"].(map[string]any)["provisioningState"] != "Failed" {
				t.Errorf("state after the failed operation: %v", got["properties"])
			}
			if err := poll(); err != nil {
				t.Fatalf("sent again: %v", err)
			}
			got = decode(t, e.do(http.MethodGet, tc.path, tc.api, nil))
			if got["properties"].(map[string]any)["provisioningState"] != "Succeeded" {
				t.Errorf("state after the request sent again: %v", got["properties"])
			}
		})
	}
}

func TestThrottlingIsRetriedByAzcore(t *testing.T) {
	e := start(t, fakearm.StartOptions{})
	e.arm.SetFaults(fakearm.Faults{ThrottleNext: 2, ThrottleRetryAfterSeconds: 1})
	started := time.Now()
	resp := e.do(http.MethodPut, rg, rgAPI, map[string]any{"location": "westeurope"})
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("after two 429s the third try succeeds, got %d", resp.StatusCode)
	}
	if e.arm.Count("PUT 429") != 2 || e.arm.Count("PUT 201") != 1 {
		t.Errorf("journal: %v", e.arm.Counts())
	}
	if waited := time.Since(started); waited < 2*time.Second {
		t.Errorf("Retry-After: 1 twice must make azcore wait at least 2s, waited %s", waited)
	}
}

func TestQuotaHeadersAndExhaustion(t *testing.T) {
	e := start(t, fakearm.StartOptions{Options: fakearm.Options{ReadBudget: 3, QuotaWindow: time.Hour}})
	e.resourceGroup()
	var left []string
	for i := 0; i < 3; i++ {
		resp := e.do(http.MethodGet, rg, rgAPI, nil)
		left = append(left, resp.Header.Get("x-ms-ratelimit-remaining-subscription-reads"))
	}
	if strings.Join(left, ",") != "2,1,0" {
		t.Errorf("remaining reads %v, want 2,1,0", left)
	}
	// The fourth read is over budget: 429 with a long Retry-After, which
	// azcore does not wait for.
	req, _ := http.NewRequest(http.MethodGet, e.arm.URL+rg+"?api-version="+rgAPI, nil)
	req.Header.Set("Authorization", "Bearer x")
	resp, err := e.arm.HTTPClient().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" {
		t.Errorf("over budget: %d, Retry-After %q", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
}

func TestAuth(t *testing.T) {
	e := start(t, fakearm.StartOptions{Options: fakearm.Options{Token: "secret"}})
	for tok, want := range map[string]int{"": 401, "Bearer wrong": 401, "Bearer secret": 404} {
		req, _ := http.NewRequest(http.MethodGet, e.arm.URL+rg+"?api-version="+rgAPI, nil)
		if tok != "" {
			req.Header.Set("Authorization", tok)
		}
		resp, err := e.arm.HTTPClient().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != want {
			t.Errorf("Authorization %q: %d, want %d", tok, resp.StatusCode, want)
		}
	}
}

func TestStateSurvivesRestart(t *testing.T) {
	file := filepath.Join(t.TempDir(), "state.json")
	e := start(t, fakearm.StartOptions{Options: fakearm.Options{StateFile: file}})
	e.resourceGroup()
	_ = e.arm.Close()
	e2 := start(t, fakearm.StartOptions{Options: fakearm.Options{StateFile: file}})
	if got := decode(t, e2.do(http.MethodGet, rg, rgAPI, nil)); got["location"] != "westeurope" {
		t.Errorf("after restart: %v", got)
	}
}

func TestAdminEndpoints(t *testing.T) {
	e := start(t, fakearm.StartOptions{})
	e.resourceGroup()
	get := func(path string, v any) {
		resp, err := e.arm.HTTPClient().Get(e.arm.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
			t.Fatal(err)
		}
	}
	var journal []fakearm.Entry
	get("/_admin/journal", &journal)
	if len(journal) != 1 || journal[0].Method != "PUT" || journal[0].Status != 201 || !strings.Contains(journal[0].Body, "westeurope") {
		t.Errorf("journal: %+v", journal)
	}
	var ids []string
	get("/_admin/resources", &ids)
	if len(ids) != 1 || ids[0] != rg {
		t.Errorf("resources: %v", ids)
	}
	resp, err := e.arm.HTTPClient().Post(e.arm.URL+"/_admin/faults", "application/json", strings.NewReader(`{"errorRate":1,"errorStatus":503}`))
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("set faults: %v %v", err, resp)
	}
	req, _ := http.NewRequest(http.MethodGet, e.arm.URL+rg+"?api-version="+rgAPI, nil)
	req.Header.Set("Authorization", "Bearer x")
	if resp, err := e.arm.HTTPClient().Do(req); err != nil || resp.StatusCode != 503 {
		t.Errorf("injected 503: %v %v", err, resp.StatusCode)
	}
}

// TestDottedCreateOnly: contoso's properties["odata.type"] is one property
// (create-only), not properties.odata.type: the emulator refuses a change
// of it naming the escaped path, and refuses the two-segment lookalike as
// an unknown member.
func TestDottedCreateOnly(t *testing.T) {
	e := startWith(t, append(apis.Descriptors(), contoso.Descriptors()...), fakearm.StartOptions{})
	e.resourceGroup()
	const widget = rg + "/providers/Microsoft.Contoso/widgets/w1"
	api := contoso.WidgetDescriptor.APIVersion
	resp := e.do(http.MethodPut, widget, api, map[string]any{"location": "westeurope", "properties": map[string]any{"odata.type": "#Microsoft.A"}})
	if resp.StatusCode >= 300 {
		t.Fatalf("PUT: %d %v", resp.StatusCode, decode(t, resp))
	}
	e.wait(resp)
	resp = e.do(http.MethodPatch, widget, api, map[string]any{"properties": map[string]any{"odata.type": "#Microsoft.B"}})
	if code, target := armCode(t, resp); resp.StatusCode != http.StatusBadRequest || code != "PropertyChangeNotAllowed" || target != `properties.odata\.type` {
		t.Errorf("changing properties[odata.type]: %d %s %s", resp.StatusCode, code, target)
	}
	resp = e.do(http.MethodPatch, widget, api, map[string]any{"properties": map[string]any{"odata": map[string]any{"type": "#Microsoft.B"}}})
	if code, target := armCode(t, resp); resp.StatusCode != http.StatusBadRequest || code != "InvalidRequestContent" || target != "properties.odata" {
		t.Errorf("the lookalike properties.odata.type: %d %s %s", resp.StatusCode, code, target)
	}
}

// TestJournalRedactsSecrets: the journal keeps request bodies, never the
// values of secret or writeOnly properties (a SQL server's password).
func TestJournalRedactsSecrets(t *testing.T) {
	e := start(t, fakearm.StartOptions{})
	e.resourceGroup()
	const password = "Adm1n-p4ssw0rd-in-a-body"
	resp := e.do(http.MethodPut, rg+"/providers/Microsoft.Sql/servers/journal-sql", "2021-11-01", map[string]any{
		"location": "westeurope", "properties": map[string]any{"administratorLogin": "sqladmin", "administratorLoginPassword": password},
	})
	resp.Body.Close()
	found := false
	for _, j := range e.arm.Journal() {
		if strings.Contains(j.Body, password) {
			t.Errorf("the journal holds the password: %s %s %s", j.Method, j.Path, j.Body)
		}
		if strings.HasSuffix(j.Path, "/journal-sql") && strings.Contains(j.Body, `"administratorLoginPassword":"(redacted)"`) && strings.Contains(j.Body, "sqladmin") {
			found = true
		}
	}
	if !found {
		t.Errorf("no journal entry of the PUT with the password redacted: %+v", e.arm.Journal())
	}
}
