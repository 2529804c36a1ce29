package fakearm

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// App is an Azure AD application the emulator's token endpoint knows: a
// tenant, a client id, how it authenticates, and the subscriptions its
// tokens may call ARM for.
type App struct {
	Tenant   string `json:"tenant"`
	ClientID string `json:"clientId"`
	// Secret is the client secret it authenticates with; or
	Secret string `json:"secret,omitempty"`
	// FederatedToken is the client assertion it authenticates with (the
	// content of a workload identity's token file).
	FederatedToken string `json:"federatedToken,omitempty"`
	// Subscriptions are the subscription ids its tokens may use.
	Subscriptions []string `json:"subscriptions,omitempty"`
}

// tokenLifetime is the lifetime of an issued token.
const tokenLifetime = time.Hour

// directory holds the apps and the tokens issued to them.
type directory struct {
	mu     sync.RWMutex
	apps   map[string]App    // tenant + "/" + client id, lower-case
	tokens map[string]issued // access token → grant
}

type issued struct {
	app     App
	expires time.Time
	// audience is the scope the token was asked for, without /.default.
	audience string
}

// sameAudience compares audiences as Azure AD does: a trailing slash and
// letter case aside.
func sameAudience(a, b string) bool {
	return strings.EqualFold(strings.TrimSuffix(a, "/"), strings.TrimSuffix(b, "/"))
}

// RegisterApp adds (or replaces) an application. From then on ARM calls
// need a token the endpoint issued (or Options.Token).
func (s *Server) RegisterApp(a App) {
	s.ad.mu.Lock()
	defer s.ad.mu.Unlock()
	if s.ad.apps == nil {
		s.ad.apps, s.ad.tokens = map[string]App{}, map[string]issued{}
	}
	s.ad.apps[strings.ToLower(a.Tenant+"/"+a.ClientID)] = a
}

// Apps returns the registered applications, secrets included (tests).
func (s *Server) Apps() []App {
	s.ad.mu.RLock()
	defer s.ad.mu.RUnlock()
	out := make([]App, 0, len(s.ad.apps))
	for _, a := range s.ad.apps {
		out = append(out, a)
	}
	return out
}

func (s *Server) issued(token string) *issued {
	s.ad.mu.RLock()
	defer s.ad.mu.RUnlock()
	if g, ok := s.ad.tokens[token]; ok {
		return &g
	}
	return nil
}

// azureAD serves the part of Azure AD (login.microsoftonline.com) that
// azidentity's ClientSecretCredential and WorkloadIdentityCredential use
// when their authority host is the emulator and instance discovery is
// disabled (MSAL then reads the tenant's OpenID configuration and posts a
// client-credentials grant to its token endpoint):
//
//	GET  /{tenant}/v2.0/.well-known/openid-configuration
//	POST /{tenant}/oauth2/v2.0/token   (grant_type=client_credentials)
//
// Errors are Azure AD's: 400 invalid_request, 400 unauthorized_client for
// an unknown client, 401 invalid_client for a wrong secret or assertion,
// with AADSTS codes in error_description. ok means the request was one of
// these; client is the client id a token request named.
func (s *Server) azureAD(w http.ResponseWriter, r *http.Request, body []byte) (client string, ok bool) {
	segs := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	switch {
	case len(segs) == 4 && segs[1] == "v2.0" && segs[2] == ".well-known" && segs[3] == "openid-configuration" && r.Method == http.MethodGet:
		base := baseURL(r) + "/" + segs[0]
		writeJSON(w, http.StatusOK, map[string]any{
			"issuer":                                base + "/v2.0",
			"authorization_endpoint":                base + "/oauth2/v2.0/authorize",
			"token_endpoint":                        base + "/oauth2/v2.0/token",
			"token_endpoint_auth_methods_supported": []string{"client_secret_post", "private_key_jwt"},
			"tenant_region_scope":                   "WW",
		})
		return "", true
	case len(segs) == 4 && segs[1] == "oauth2" && segs[2] == "v2.0" && segs[3] == "token" && r.Method == http.MethodPost:
		form, _ := url.ParseQuery(string(body))
		s.token(w, segs[0], form)
		return form.Get("client_id"), true
	}
	return "", false
}

func (s *Server) token(w http.ResponseWriter, tenant string, form url.Values) {
	if form.Get("grant_type") != "client_credentials" {
		aadError(w, http.StatusBadRequest, "unsupported_grant_type", "AADSTS70003: The app requested an unsupported grant type; only client_credentials is served by the emulator.")
		return
	}
	clientID := form.Get("client_id")
	s.ad.mu.RLock()
	app, ok := s.ad.apps[strings.ToLower(tenant+"/"+clientID)]
	s.ad.mu.RUnlock()
	if !ok {
		aadError(w, http.StatusBadRequest, "unauthorized_client", fmt.Sprintf("AADSTS700016: Application with identifier '%s' was not found in the directory '%s'.", clientID, tenant))
		return
	}
	switch secret, assertion := form.Get("client_secret"), form.Get("client_assertion"); {
	case secret != "" && app.Secret != "" && secret == app.Secret:
	case assertion != "" && app.FederatedToken != "" && strings.TrimSpace(assertion) == strings.TrimSpace(app.FederatedToken):
	case assertion != "":
		aadError(w, http.StatusUnauthorized, "invalid_client", "AADSTS700213: No matching federated identity record found for presented assertion.")
		return
	default:
		aadError(w, http.StatusUnauthorized, "invalid_client", fmt.Sprintf("AADSTS7000215: Invalid client secret provided. Ensure the secret being sent in the request is the client secret value, not the client secret ID, for a secret added to app '%s'.", clientID))
		return
	}
	// MSAL adds openid, offline_access and profile to the resource's
	// <audience>/.default scope.
	audience := ""
	for _, sc := range strings.Fields(form.Get("scope")) {
		if a, ok := strings.CutSuffix(sc, "/.default"); ok {
			audience = a
		}
	}
	if s.opts.Audience != "" && !sameAudience(audience, s.opts.Audience) {
		aadError(w, http.StatusBadRequest, "invalid_resource", fmt.Sprintf("AADSTS500011: The resource principal named %s was not found in the tenant named %s. This can happen if the application has not been installed by the administrator of the tenant or consented to by any user in the tenant.", audience, tenant))
		return
	}
	var b [24]byte
	_, _ = rand.Read(b[:])
	tok := "fakearm." + hex.EncodeToString(b[:])
	s.ad.mu.Lock()
	s.ad.tokens[tok] = issued{app: app, expires: s.opts.Now().Add(tokenLifetime), audience: audience}
	s.ad.mu.Unlock()
	secs := int(tokenLifetime / time.Second)
	writeJSON(w, http.StatusOK, map[string]any{"token_type": "Bearer", "expires_in": secs, "ext_expires_in": secs, "access_token": tok})
}

// aadError writes Azure AD's OAuth error body. The trace and correlation
// ids change per request, as Azure AD's do.
func aadError(w http.ResponseWriter, status int, code, description string) {
	trace := newID()
	writeJSON(w, status, map[string]any{
		"error":             code,
		"error_description": description + "\r\nTrace ID: " + trace + "\r\nCorrelation ID: " + newID() + "\r\nTimestamp: " + time.Now().UTC().Format("2006-01-02 15:04:05Z"),
		"trace_id":          trace,
	})
}

// permitted checks, when apps are registered, that the bearer token was
// issued by the token endpoint for an app that may use the subscription of
// the path (Options.Token may use every one); else it answers as ARM does:
// 401 InvalidAuthenticationToken, 401 ExpiredAuthenticationToken or 403
// AuthorizationFailed. false means it answered.
func (s *Server) permitted(w http.ResponseWriter, r *http.Request, segs []string) bool {
	s.ad.mu.RLock()
	n := len(s.ad.apps)
	s.ad.mu.RUnlock()
	if n == 0 {
		return true
	}
	token, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if s.opts.Token != "" && token == s.opts.Token {
		return true
	}
	g := s.issued(token)
	switch {
	case g == nil:
		armError(w, http.StatusUnauthorized, "InvalidAuthenticationToken", "The access token is invalid.", "")
		return false
	case s.opts.Now().After(g.expires):
		armError(w, http.StatusUnauthorized, "ExpiredAuthenticationToken", "The access token expiry UTC time is earlier than current UTC time.", "")
		return false
	case s.opts.Audience != "" && !sameAudience(g.audience, s.opts.Audience):
		armError(w, http.StatusUnauthorized, "InvalidAuthenticationTokenAudience", fmt.Sprintf("The access token has been obtained for wrong audience or resource '%s'. It should exactly match with one of the allowed audiences '%s'.", g.audience, s.opts.Audience), "")
		return false
	}
	if len(segs) < 2 || !strings.EqualFold(segs[0], "subscriptions") {
		return true
	}
	for _, sub := range g.app.Subscriptions {
		if strings.EqualFold(sub, segs[1]) {
			return true
		}
	}
	scope := "/" + strings.Join(segs, "/")
	armError(w, http.StatusForbidden, "AuthorizationFailed", fmt.Sprintf("The client '%s' with object id '%s' does not have authorization to perform action '%s' over scope '%s' or the scope is invalid. If access was recently granted, please refresh your credentials.",
		g.app.ClientID, g.app.ClientID, s.action(r, segs), scope), "")
	return false
}

// action names the RBAC action of a request, as AuthorizationFailed does.
func (s *Server) action(r *http.Request, segs []string) string {
	t := "Microsoft.Resources/subscriptions"
	if m, ok := find(s.routes, segs); ok {
		t = m.route.armType
	} else if len(segs) > 2 {
		t = "Microsoft.Resources/subscriptions/resourceGroups"
	}
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		return t + "/read"
	case http.MethodDelete:
		return t + "/delete"
	case http.MethodPost:
		return t + "/action"
	}
	return t + "/write"
}
