package cloudtest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
)

// Token is the access token the Recorder issues.
const Token = "cloudtest-token"

// Call is one request the Recorder answered.
type Call struct {
	// Kind is "discovery" (Azure AD instance discovery), "openid" (a
	// tenant's OpenID configuration), "token" (a token request) or "arm"
	// (anything else).
	Kind string
	// Host is the request's host.
	Host string
	// Path is the request's path.
	Path string
	// Scope is a token request's resource scope (without the OpenID
	// scopes MSAL adds: openid, offline_access, profile).
	Scope string
	// Authorization is an ARM request's Authorization header.
	Authorization string
}

// Recorder answers Azure AD's discovery, OpenID configuration and
// client-credentials token requests for any host, and every other request
// 200 with the JSON body {}, recording each. Safe for concurrent use.
type Recorder struct {
	mu    sync.Mutex
	calls []Call
}

var _ policy.Transporter = (*Recorder)(nil)

// Calls returns the calls so far.
func (r *Recorder) Calls() []Call {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Call(nil), r.calls...)
}

// Of returns the calls of a kind.
func (r *Recorder) Of(kind string) []Call {
	var out []Call
	for _, c := range r.Calls() {
		if c.Kind == kind {
			out = append(out, c)
		}
	}
	return out
}

// Do answers req.
func (r *Recorder) Do(req *http.Request) (*http.Response, error) {
	c := Call{Host: req.URL.Host, Path: req.URL.Path}
	base := "https://" + req.URL.Host
	segs := strings.Split(strings.Trim(req.URL.Path, "/"), "/")
	var body any = map[string]any{}
	switch {
	case req.URL.Path == "/common/discovery/instance":
		c.Kind = "discovery"
		// The authority asked about (the cloud's), not the host asked.
		host, tenant := req.URL.Host, "common"
		if u, err := url.Parse(req.URL.Query().Get("authorization_endpoint")); err == nil && u.Host != "" {
			host, tenant = u.Host, strings.Split(strings.Trim(u.Path, "/"), "/")[0]
		}
		body = map[string]any{
			"tenant_discovery_endpoint": "https://" + host + "/" + tenant + "/v2.0/.well-known/openid-configuration",
			"api-version":               "1.1",
			"metadata":                  []any{map[string]any{"preferred_network": host, "preferred_cache": host, "aliases": []string{host}}},
		}
	case len(segs) == 4 && segs[1] == "v2.0" && segs[3] == "openid-configuration":
		c.Kind = "openid"
		t := base + "/" + segs[0]
		body = map[string]any{
			"issuer": t + "/v2.0", "authorization_endpoint": t + "/oauth2/v2.0/authorize", "token_endpoint": t + "/oauth2/v2.0/token",
			"token_endpoint_auth_methods_supported": []string{"client_secret_post", "private_key_jwt"}, "tenant_region_scope": "WW",
		}
	case len(segs) == 4 && segs[1] == "oauth2" && segs[3] == "token":
		c.Kind = "token"
		b, _ := io.ReadAll(req.Body)
		form, _ := url.ParseQuery(string(b))
		c.Scope = resourceScope(form.Get("scope"))
		body = map[string]any{"token_type": "Bearer", "expires_in": 3600, "ext_expires_in": 3600, "access_token": Token}
	default:
		c.Kind = "arm"
		c.Authorization = req.Header.Get("Authorization")
	}
	r.mu.Lock()
	r.calls = append(r.calls, c)
	r.mu.Unlock()
	b, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	return &http.Response{
		StatusCode: http.StatusOK, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(bytes.NewReader(b)),
		ContentLength: int64(len(b)), Request: req,
	}, nil
}

// resourceScope drops the OpenID scopes from a space-separated list.
func resourceScope(s string) string {
	var keep []string
	for _, sc := range strings.Fields(s) {
		switch sc {
		case "openid", "offline_access", "profile":
		default:
			keep = append(keep, sc)
		}
	}
	return strings.Join(keep, " ")
}
