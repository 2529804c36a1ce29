package fakearm_test

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"

	"github.com/armature-dev/armature/fakearm"
	"github.com/armature-dev/armature/generated/apis"
	rarm "github.com/armature-dev/armature/runtime/arm"
)

const (
	subA = "00000000-0000-0000-0000-00000000000a"
	subB = "00000000-0000-0000-0000-00000000000b"
)

// spClient is an ARM client authenticating as a service principal with
// azidentity against the emulator's token endpoint.
func spClient(t *testing.T, fa *fakearm.Running, sp rarm.ServicePrincipal) rarm.Client {
	t.Helper()
	cred, err := sp.Credential(rarm.AuthOptions{AuthorityHost: fa.URL, DisableInstanceDiscovery: true, Transport: fa.HTTPClient()})
	if err != nil {
		t.Fatal(err)
	}
	c, err := rarm.NewClient(rarm.Options{Endpoint: fa.URL, Credential: cred, Transport: fa.HTTPClient()})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func startApps(t *testing.T, o fakearm.Options) *fakearm.Running {
	t.Helper()
	o.RetryAfter = -1
	fa, err := fakearm.Start(apis.Descriptors(), fakearm.StartOptions{Options: o})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = fa.Close() })
	return fa
}

// TestAzureAD: azidentity's ClientSecretCredential and
// WorkloadIdentityCredential get tokens from the emulator; a token may call
// ARM for its app's subscriptions only (403 AuthorizationFailed otherwise);
// a wrong secret is Azure AD's invalid_client, one line, without the
// per-request trace ids; an unknown token is 401; Options.Token may use
// every subscription.
func TestAzureAD(t *testing.T) {
	dir := t.TempDir()
	tokenFile := filepath.Join(dir, "token")
	if err := os.WriteFile(tokenFile, []byte("a-projected-service-account-token\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	fa := startApps(t, fakearm.Options{Token: "admin", Apps: []fakearm.App{
		{Tenant: "tenant-a", ClientID: "app-a", Secret: "s3cret", Subscriptions: []string{subA}},
		{Tenant: "tenant-a", ClientID: "app-wi", FederatedToken: "a-projected-service-account-token", Subscriptions: []string{subB}},
	}})
	ctx := context.Background()
	rgA := "/subscriptions/" + subA + "/resourceGroups/team-a"
	rgB := "/subscriptions/" + subB + "/resourceGroups/team-b"
	body := []byte(`{"location":"westeurope"}`)

	a := spClient(t, fa, rarm.ServicePrincipal{TenantID: "tenant-a", ClientID: "app-a", ClientSecret: "s3cret"})
	if _, err := a.Put(ctx, rgA, rgAPI, body); err != nil {
		t.Fatalf("app-a in its subscription: %v", err)
	}
	_, err := a.Put(ctx, rgB, rgAPI, body)
	var ae *rarm.Error
	if !errors.As(err, &ae) || ae.Status != http.StatusForbidden || ae.Code != "AuthorizationFailed" || !strings.Contains(ae.Message, "resourceGroups/write'") {
		t.Errorf("app-a in another subscription: %v", err)
	}

	wi := spClient(t, fa, rarm.ServicePrincipal{TenantID: "tenant-a", ClientID: "app-wi", FederatedTokenFile: tokenFile})
	if _, err := wi.Put(ctx, rgB, rgAPI, body); err != nil {
		t.Fatalf("workload identity: %v", err)
	}

	wrong := spClient(t, fa, rarm.ServicePrincipal{TenantID: "tenant-a", ClientID: "app-a", ClientSecret: "wrong"})
	_, err = wrong.Get(ctx, rgA, rgAPI)
	var te *rarm.TokenError
	if !errors.As(err, &te) {
		t.Fatalf("a wrong secret: %v", err)
	}
	msg := te.Message()
	if !strings.Contains(msg, "invalid_client") || !strings.Contains(msg, "AADSTS7000215") || strings.Contains(msg, "Trace ID") || strings.Contains(msg, "\n") || strings.Contains(msg, "wrong") {
		t.Errorf("token error message %q", msg)
	}
	if c, ok := rarm.Classify(err, rarm.Call{}); !ok || c.Reason != "CredentialRejected" || c.Class != rarm.ClassWorldChange {
		t.Errorf("classified %+v %v", c, ok)
	}
	for _, e := range fa.Journal() {
		if strings.Contains(e.Body, "s3cret") || strings.Contains(e.Body, "wrong") {
			t.Errorf("the journal keeps a client secret: %s %s", e.Method, e.Path)
		}
	}

	static, err := rarm.NewClient(rarm.Options{Endpoint: fa.URL, Credential: rarm.StaticToken("guess"), Transport: fa.HTTPClient()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := static.Get(ctx, rgA, rgAPI); !errors.As(err, &ae) || ae.Status != http.StatusUnauthorized {
		t.Errorf("a token the emulator did not issue: %v", err)
	}
	admin, _ := rarm.NewClient(rarm.Options{Endpoint: fa.URL, Credential: rarm.StaticToken("admin"), Transport: fa.HTTPClient()})
	for _, id := range []string{rgA, rgB} {
		if _, err := admin.Get(ctx, id, rgAPI); err != nil {
			t.Errorf("Options.Token reads %s: %v", id, err)
		}
	}
}

// TestCodeFaults: an injected ARM error by code answers Count requests,
// then the rule goes; the admin endpoint adds one too.
func TestCodeFaults(t *testing.T) {
	fa := startApps(t, fakearm.Options{})
	ctx := context.Background()
	c, _ := rarm.NewClient(rarm.Options{Endpoint: fa.URL, Credential: rarm.StaticToken("t"), Transport: fa.HTTPClient()})
	rg := "/subscriptions/" + subA + "/resourceGroups/faults"
	fa.AddCodeFault(fakearm.CodeFault{Method: http.MethodPut, PathContains: "/faults", Status: http.StatusConflict, Code: "AnotherOperationInProgress", Count: 2})
	for i := 0; i < 2; i++ {
		_, err := c.Put(ctx, rg, rgAPI, []byte(`{"location":"westeurope"}`))
		var ae *rarm.Error
		if !errors.As(err, &ae) || ae.Status != http.StatusConflict || ae.Code != "AnotherOperationInProgress" || ae.Message != "AnotherOperationInProgress (injected fault)." {
			t.Fatalf("attempt %d: %v", i+1, err)
		}
	}
	if _, err := c.Put(ctx, rg, rgAPI, []byte(`{"location":"westeurope"}`)); err != nil {
		t.Fatalf("after Count answers: %v", err)
	}
	if n := len(fa.CurrentFaults().Codes); n != 0 {
		t.Errorf("%d rules left", n)
	}
	resp, err := fa.HTTPClient().Post(fa.URL+"/_admin/faults/codes", "application/json", strings.NewReader(`{"method":"GET","pathContains":"/faults","status":403,"code":"AuthorizationFailed","message":"no"}`))
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("admin: %v %v", err, resp)
	}
	_ = resp.Body.Close()
	if _, err := c.Get(ctx, rg, rgAPI); !rarm.IsTerminal(err) && errors.As(err, new(*rarm.Error)) {
		if cl, _ := rarm.Classify(err, rarm.Call{}); cl.Class != rarm.ClassWorldChange || cl.Reason != "AuthorizationFailed" {
			t.Errorf("admin-injected 403: %+v", cl)
		}
	} else {
		t.Errorf("admin-injected 403: %v", err)
	}
}

// TestProviderRegistration: a subscription not registered with a
// namespace answers 409 MissingSubscriptionRegistration until the
// provider is registered, as the portal does.
func TestProviderRegistration(t *testing.T) {
	fa := startApps(t, fakearm.Options{Unregistered: map[string][]string{subA: {"Microsoft.Storage"}}})
	ctx := context.Background()
	c, _ := rarm.NewClient(rarm.Options{Endpoint: fa.URL, Credential: rarm.StaticToken("t"), Transport: fa.HTTPClient()})
	rg := "/subscriptions/" + subA + "/resourceGroups/reg"
	sa := rg + "/providers/Microsoft.Storage/storageAccounts/reg01"
	if _, err := c.Put(ctx, rg, rgAPI, []byte(`{"location":"westeurope"}`)); err != nil {
		t.Fatal(err)
	}
	body := []byte(`{"location":"westeurope","kind":"StorageV2","sku":{"name":"Standard_LRS"}}`)
	_, err := c.Put(ctx, sa, stAPI, body)
	var ae *rarm.Error
	if !errors.As(err, &ae) || ae.Status != http.StatusConflict || ae.Code != "MissingSubscriptionRegistration" {
		t.Fatalf("unregistered: %v", err)
	}
	sub, ns := rarm.ProviderOf(sa)
	if err := rarm.RegisterProvider(ctx, c, sub, ns); err != nil {
		t.Fatal(err)
	}
	if !fa.Registered(subA, "microsoft.storage") {
		t.Error("not registered after POST .../register")
	}
	if _, err := c.Put(ctx, sa, stAPI, body); err != nil {
		t.Errorf("registered: %v", err)
	}
}

// TestAudience: an emulator of a sovereign cloud issues tokens only for its
// audience: a client configured for another cloud gets Azure AD's
// AADSTS500011 and never reaches ARM; one configured for this cloud works.
func TestAudience(t *testing.T) {
	_, gov, err := rarm.LookupCloud("AzureUSGovernment")
	if err != nil {
		t.Fatal(err)
	}
	fa := startApps(t, fakearm.Options{Audience: gov.Services[cloud.ResourceManager].Audience, Apps: []fakearm.App{
		{Tenant: "tenant-a", ClientID: "app-a", Secret: "s3cret", Subscriptions: []string{subA}},
	}})
	rg := "/subscriptions/" + subA + "/resourceGroups/gov"
	client := func(c cloud.Configuration) rarm.Client {
		sp := rarm.ServicePrincipal{TenantID: "tenant-a", ClientID: "app-a", ClientSecret: "s3cret"}
		cred, err := sp.Credential(rarm.AuthOptions{AuthorityHost: fa.URL, DisableInstanceDiscovery: true, Transport: fa.HTTPClient()})
		if err != nil {
			t.Fatal(err)
		}
		cl, err := rarm.NewClient(rarm.Options{Cloud: c, Endpoint: fa.URL, Credential: cred, Transport: fa.HTTPClient()})
		if err != nil {
			t.Fatal(err)
		}
		return cl
	}
	_, err = client(cloud.AzurePublic).Put(context.Background(), rg, rgAPI, []byte(`{"location":"westeurope"}`))
	var te *rarm.TokenError
	if !errors.As(err, &te) || !strings.Contains(te.Message(), "AADSTS500011") {
		t.Errorf("a token for the public cloud's audience: %v", err)
	}
	if _, err := client(gov).Put(context.Background(), rg, rgAPI, []byte(`{"location":"westeurope"}`)); err != nil {
		t.Errorf("a token for this cloud's audience: %v", err)
	}
	for _, e := range fa.Journal() {
		if e.Method == http.MethodPut && e.Status == http.StatusUnauthorized {
			t.Errorf("a call with the wrong audience reached ARM: %s", e.Path)
		}
	}
}
