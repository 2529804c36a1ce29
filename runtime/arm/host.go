package arm

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
)

// ForeignHostError is a request the client refused to send because its URL
// is not on the client's ARM endpoint: a poll URL from a resume token that
// names another host (a token an object's editor rewrote), a nextLink or an
// operation header pointing elsewhere. Nothing was sent, so no token left
// the process.
type ForeignHostError struct {
	// URL is the refused request's URL, without its query.
	URL string
	// Endpoint is the client's ARM endpoint.
	Endpoint string
}

func (e *ForeignHostError) Error() string {
	return fmt.Sprintf("refused to send a request to %s: only the ARM endpoint %s receives the operator's token", e.URL, e.Endpoint)
}

// IsForeignHost reports a request refused for its host (ForeignHostError).
func IsForeignHost(err error) bool {
	var e *ForeignHostError
	return errors.As(err, &e)
}

// endpointOnly is the pipeline policy that sends requests only to the ARM
// endpoint: same scheme, same host and port. It runs first, before the
// retry and authentication policies, so a refused request never gets the
// bearer token.
type endpointOnly struct {
	scheme, host, endpoint string
}

func newEndpointOnly(endpoint string) (*endpointOnly, error) {
	u, err := url.Parse(endpoint)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return nil, fmt.Errorf("arm: endpoint %q is not an http(s) URL", endpoint)
	}
	return &endpointOnly{scheme: u.Scheme, host: canonicalHost(u), endpoint: endpoint}, nil
}

// canonicalHost is host:port in lower case, with the scheme's default port
// made explicit.
func canonicalHost(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = "443"
		if u.Scheme == "http" {
			port = "80"
		}
	}
	return strings.ToLower(u.Hostname()) + ":" + port
}

// allowed reports whether u is on the endpoint.
func (p *endpointOnly) allowed(u *url.URL) bool {
	return u != nil && u.Scheme == p.scheme && canonicalHost(u) == p.host && u.User == nil
}

func (p *endpointOnly) Do(req *policy.Request) (*http.Response, error) {
	u := req.Raw().URL
	if !p.allowed(u) {
		shown := "<no URL>"
		if u != nil {
			c := *u
			c.RawQuery, c.User, c.Fragment = "", nil, ""
			shown = c.String()
		}
		return nil, &ForeignHostError{URL: shown, Endpoint: p.endpoint}
	}
	return req.Next()
}

// checkPath refuses an ARM id that would not be sent as the path it reads
// as: a "." or ".." segment (resolved away by URL handling: "../" climbs
// to another resource), or '?' or '#' (they end the path). The callers
// check names before; this is the last guard before the wire.
func checkPath(id string) error {
	if strings.ContainsAny(id, "?#") {
		return fmt.Errorf("arm: id %q holds '?' or '#': not sent", id)
	}
	for _, s := range strings.Split(id, "/") {
		if s == "." || s == ".." {
			return fmt.Errorf("arm: id %q holds a %q segment: not sent", id, s)
		}
	}
	return nil
}
