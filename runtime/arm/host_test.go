package arm_test

import (
	"context"
	"crypto/tls"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/armature-dev/armature/fakearm"
	"github.com/armature-dev/armature/runtime/arm"
)

// TestTokenOnlyToEndpoint rewrites the poll URL of a resume token to
// another host, as an object's editor could in the operation annotation:
// the client refuses to poll it, and the other host sees no request (so
// no bearer token).
func TestTokenOnlyToEndpoint(t *testing.T) {
	fa, _ := setup(t, fakearm.Options{LROPolls: 2}, nil)
	// A transport that trusts any certificate: the other host's could be a
	// real one, so TLS alone would not keep the token from it.
	trusting := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} //nolint:gosec // the test's point
	c, err := arm.NewClient(arm.Options{Endpoint: fa.URL, Credential: arm.StaticToken("t"), Transport: trusting})
	if err != nil {
		t.Fatal(err)
	}
	var calls, bearer atomic.Int32
	thief := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if r.Header.Get("Authorization") != "" {
			bearer.Add(1)
		}
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(thief.Close)
	ctx := context.Background()
	if _, err := c.Put(ctx, rg, rgV, []byte(`{"location":"westeurope"}`)); err != nil {
		t.Fatal(err)
	}
	res, err := c.Put(ctx, sa, saV, []byte(`{"location":"westeurope","kind":"StorageV2","sku":{"name":"Standard_LRS"}}`))
	if err != nil || res.Done() {
		t.Fatalf("want an operation: %v %v", res, err)
	}
	ep, _ := url.Parse(fa.URL)
	th, _ := url.Parse(thief.URL)
	if !strings.Contains(res.Token, ep.Host) {
		t.Fatalf("the resume token does not name the endpoint %s: %s", ep.Host, res.Token)
	}
	for name, token := range map[string]string{
		"other host":   strings.ReplaceAll(res.Token, ep.Host, th.Host),
		"other port":   strings.ReplaceAll(res.Token, ep.Host, ep.Hostname()+":1"),
		"plain http":   strings.ReplaceAll(res.Token, "https://"+ep.Host, "http://"+ep.Host),
		"user in host": strings.ReplaceAll(res.Token, "https://"+ep.Host, "https://x@"+th.Host),
	} {
		_, err := c.Poll(ctx, token)
		if !arm.IsForeignHost(err) {
			t.Errorf("%s: Poll = %v, want a ForeignHostError", name, err)
		}
		if err != nil && strings.Contains(err.Error(), "api-version") {
			t.Errorf("%s: the error shows the query: %v", name, err)
		}
	}
	if n := calls.Load(); n != 0 {
		t.Errorf("the other host got %d requests (%d with a bearer token)", n, bearer.Load())
	}
	// The untouched token still polls.
	if _, err := c.Poll(ctx, res.Token); err != nil {
		t.Errorf("the real token: %v", err)
	}
}

func TestEndpointMustBeHTTP(t *testing.T) {
	for _, e := range []string{"ftp://example.com", "management.azure.com", "https://"} {
		if _, err := arm.NewClient(arm.Options{Endpoint: e, Credential: arm.StaticToken("t")}); err == nil {
			t.Errorf("NewClient(%q) succeeded", e)
		}
	}
}

// TestDotSegmentsNotSent: an id that climbs with "..", or ends its path
// with '?' or '#', is not sent (it would name another resource).
func TestDotSegmentsNotSent(t *testing.T) {
	fa, c := setup(t, fakearm.Options{}, nil)
	ctx := context.Background()
	before := len(fa.Journal())
	for _, id := range []string{rg + "/providers/Microsoft.Storage/storageAccounts/../../../other/providers/Microsoft.Storage/storageAccounts/x", sa + "/.", sa + "?x=1", sa + "#f"} {
		if _, err := c.Put(ctx, id, saV, []byte(`{}`)); err == nil || !strings.Contains(err.Error(), "not sent") {
			t.Errorf("PUT %s: %v, want refused", id, err)
		}
		if _, err := c.Delete(ctx, id, saV); err == nil || !strings.Contains(err.Error(), "not sent") {
			t.Errorf("DELETE %s: %v, want refused", id, err)
		}
	}
	if n := len(fa.Journal()) - before; n != 0 {
		t.Errorf("the emulator got %d requests", n)
	}
}

// TestMalformedAndHungAnswers: a truncated body, an array, a hung answer
// are errors of their own kind, each try bounded by TryTimeout.
func TestMalformedAndHungAnswers(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasSuffix(r.URL.Path, "/truncated"):
			_, _ = w.Write([]byte(`{"id":"/x","properties":{`))
		case strings.HasSuffix(r.URL.Path, "/array"):
			_, _ = w.Write([]byte(`[1,2]`))
		case strings.HasSuffix(r.URL.Path, "/hung"):
			select {
			case <-r.Context().Done():
			case <-time.After(10 * time.Second):
			}
		}
	}))
	t.Cleanup(srv.Close)
	c, err := arm.NewClient(arm.Options{Endpoint: srv.URL, Credential: arm.StaticToken("t"), Transport: srv.Client(), TryTimeout: 200 * time.Millisecond, MaxRetries: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"truncated", "array"} {
		_, err := c.Get(context.Background(), "/subscriptions/s/"+p, "2024-01-01")
		var me *arm.MalformedError
		if !errors.As(err, &me) {
			t.Errorf("%s: %v, want a MalformedError", p, err)
		}
	}
	start := time.Now()
	_, err = c.Get(context.Background(), "/subscriptions/s/hung", "2024-01-01")
	if err == nil || time.Since(start) > 5*time.Second {
		t.Errorf("hung answer: %v after %s, want an error within two tries of 200ms", err, time.Since(start))
	}
}
