package arm

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	armpolicy "github.com/Azure/azure-sdk-for-go/sdk/azcore/arm"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
)

// Client talks to ARM. Implementations must not block on long-running
// operations and must be safe to call again with the same arguments.
type Client interface {
	// Get reads a resource. A missing resource is an *Error with IsNotFound.
	Get(ctx context.Context, id, apiVersion string) (*Result, error)
	// Put creates or replaces a resource; it may start an operation.
	Put(ctx context.Context, id, apiVersion string, body []byte) (*Result, error)
	// Patch sends a JSON merge patch; it may start an operation.
	Patch(ctx context.Context, id, apiVersion string, body []byte) (*Result, error)
	// Delete deletes a resource; it may start an operation. Deleting a
	// missing resource succeeds.
	Delete(ctx context.Context, id, apiVersion string) (*Result, error)
	// Poll advances an operation by one poll.
	Poll(ctx context.Context, token string) (*Result, error)
}

// Result is the answer to a call.
type Result struct {
	// Status is the HTTP status of the last response.
	Status int
	// Body is the resource, when the answer carries one.
	Body map[string]any
	// Token is set while an operation is in flight: pass it to Poll.
	Token string
	// RetryAfter is how long ARM asks to wait before the next poll.
	RetryAfter time.Duration
}

// Done reports whether the call (or operation) has finished.
func (r *Result) Done() bool { return r.Token == "" }

// Error is an ARM error answer.
type Error struct {
	Status  int
	Code    string
	Message string
	Target  string
	// RetryAfter is the answer's Retry-After, when it has one.
	RetryAfter time.Duration
	// Operation is set for a long-running operation that ended Failed or
	// Canceled: the poll was answered (200), the operation's error is the
	// code and message.
	Operation bool
}

func (e *Error) Error() string {
	s := fmt.Sprintf("ARM %d %s: %s", e.Status, e.Code, e.Message)
	if e.Target != "" {
		s += " (target " + e.Target + ")"
	}
	return s
}

// IsNotFound reports a 404.
func IsNotFound(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Status == http.StatusNotFound
}

// IsRetryable reports an answer worth sending the same request again
// soon: 408, 429 and 5xx, and errors that are not ARM answers (connection
// failures). It is the retry policy of one request (azcore's), used to
// keep polling an operation through a failed poll; what a reconcile does
// about an error is Classify's.
func IsRetryable(err error) bool {
	var e *Error
	if !errors.As(err, &e) {
		return true
	}
	return e.Status == http.StatusRequestTimeout || e.Status == http.StatusTooManyRequests || e.Status >= 500
}

// IsTerminal reports an ARM answer the user must act on by changing the
// request: an error of ClassObjectChange in the error table (Rules).
func IsTerminal(err error) bool {
	c, ok := Classify(err, Call{})
	return ok && c.Class == ClassObjectChange
}

// TokenError is a credential's failure to get a token: no request reached
// ARM. Azure AD's answer, when there was one, is in Err.
type TokenError struct {
	Err error
}

func (e *TokenError) Error() string { return "get a token for ARM: " + e.Err.Error() }

func (e *TokenError) Unwrap() error { return e.Err }

// Message is a one-line account of the failure: Azure AD's error and the
// first line of its description (without the trace and correlation ids,
// which change on every request), else the first line of the error.
func (e *TokenError) Message() string {
	var af *azidentity.AuthenticationFailedError
	if errors.As(e.Err, &af) && af.RawResponse != nil {
		if b, err := runtime.Payload(af.RawResponse); err == nil {
			var body struct {
				Error       string `json:"error"`
				Description string `json:"error_description"`
			}
			if json.Unmarshal(b, &body) == nil && (body.Error != "" || body.Description != "") {
				return fmt.Sprintf("Azure AD refused the credential (HTTP %d %s): %s", af.RawResponse.StatusCode, body.Error, firstLine(body.Description))
			}
		}
	}
	return firstLine(e.Err.Error())
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	s, _, _ = strings.Cut(s, " Trace ID:")
	return strings.TrimSpace(strings.TrimSuffix(s, "\r"))
}

// tokenSource marks its credential's errors as *TokenError.
type tokenSource struct{ azcore.TokenCredential }

func (t tokenSource) GetToken(ctx context.Context, o policy.TokenRequestOptions) (azcore.AccessToken, error) {
	tok, err := t.TokenCredential.GetToken(ctx, o)
	if err != nil {
		return tok, &TokenError{Err: err}
	}
	return tok, nil
}

// Options configure NewClient.
type Options struct {
	// Endpoint is the ARM endpoint. Defaults to Cloud's.
	Endpoint string
	// Cloud is the Azure cloud: its ARM endpoint (unless Endpoint is set)
	// and the audience tokens are asked for (scope "<audience>/.default").
	// Defaults to Azure public cloud (cloud.AzurePublic); LookupCloud gives
	// the others. A custom cloud sets Services[cloud.ResourceManager]'s
	// Audience (and Endpoint, or Options.Endpoint).
	Cloud cloud.Configuration
	// CAFile, when set, is a PEM file of certificates to trust (the
	// emulator's self-signed certificate).
	CAFile string
	// Credential authenticates requests. Required.
	Credential azcore.TokenCredential
	// MaxRetries of 429/5xx answers within one call. Defaults to 3.
	MaxRetries int32
	// TryTimeout bounds each try of a request (a hung answer is cut, and
	// retried as a 5xx would be). Defaults to 30 seconds.
	TryTimeout time.Duration
	// Transport, when set, sends the requests (tests).
	Transport policy.Transporter
	// OnResponse, when set, is told the method and status of every answer
	// (for metrics).
	OnResponse func(method string, status int)
	// Budget paces the client's requests (see Budget). Defaults to a new
	// budget with ARM's published limits; clients of one credential share
	// one.
	Budget *Budget
}

type azClient struct {
	endpoint string
	pl       runtime.Pipeline
}

var _ Client = (*azClient)(nil)

// StaticToken is a credential that always returns the same token: for the
// ARM emulator, which accepts any bearer token.
type StaticToken string

// GetToken returns the token.
func (t StaticToken) GetToken(context.Context, policy.TokenRequestOptions) (azcore.AccessToken, error) {
	return azcore.AccessToken{Token: string(t), ExpiresOn: time.Now().Add(24 * time.Hour)}, nil
}

// NewClient returns a Client on azcore's ARM pipeline.
func NewClient(opts Options) (Client, error) {
	if opts.Credential == nil {
		return nil, errors.New("arm: a credential is required")
	}
	// The endpoint is the cloud's unless Endpoint says otherwise; tokens
	// are always asked for the cloud's audience (<audience>/.default).
	conf, err := resourceManager(opts)
	if err != nil {
		return nil, err
	}
	endpoint := conf.Services[cloud.ResourceManager].Endpoint
	if opts.MaxRetries == 0 {
		opts.MaxRetries = 3
	}
	if opts.TryTimeout <= 0 {
		opts.TryTimeout = 30 * time.Second
	}
	co := policy.ClientOptions{Cloud: conf, Retry: policy.RetryOptions{MaxRetries: opts.MaxRetries, RetryDelay: 200 * time.Millisecond, MaxRetryDelay: 30 * time.Second, TryTimeout: opts.TryTimeout}}
	// The token goes to the ARM endpoint only: every request, poll URLs of
	// resume tokens and nextLinks included, is checked first.
	only, err := newEndpointOnly(endpoint)
	if err != nil {
		return nil, err
	}
	co.PerCallPolicies = append(co.PerCallPolicies, only)
	switch {
	case opts.Transport != nil:
		co.Transport = opts.Transport
	case opts.CAFile != "":
		hc, err := HTTPClient(opts.CAFile)
		if err != nil {
			return nil, err
		}
		co.Transport = hc
	}
	if opts.OnResponse != nil {
		co.PerCallPolicies = append(co.PerCallPolicies, observe(opts.OnResponse))
	}
	if opts.Budget == nil {
		opts.Budget = NewBudget(nil)
	}
	co.PerRetryPolicies = append(co.PerRetryPolicies, opts.Budget)
	// azcore's own registration policy would block the call for minutes
	// while a provider registers; the reconciler registers without waiting
	// (RegisterProvider), and only when asked to.
	c, err := armpolicy.NewClient("armature", "v0.1.0", tokenSource{opts.Credential}, &armpolicy.ClientOptions{ClientOptions: co, DisableRPRegistration: true})
	if err != nil {
		return nil, err
	}
	return &azClient{endpoint: endpoint, pl: c.Pipeline()}, nil
}

// HTTPClient returns an HTTP client that trusts the certificates of the PEM
// file caFile besides nothing else (the emulator's), for Options.Transport
// and AuthOptions.Transport: clients built for several credentials share
// it, and its connections.
func HTTPClient(caFile string) (*http.Client, error) {
	pem, err := os.ReadFile(caFile)
	if err != nil {
		return nil, fmt.Errorf("arm: CA file: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("arm: no certificate in %s", caFile)
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	tr.MaxIdleConnsPerHost = 64
	return &http.Client{Transport: tr}, nil
}

// observe reports every answer, retries included.
type observe func(method string, status int)

func (o observe) Do(req *policy.Request) (*http.Response, error) {
	resp, err := req.Next()
	if resp != nil {
		o(req.Raw().Method, resp.StatusCode)
	}
	return resp, err
}

// body is a named type: azcore resume tokens need one.
type body map[string]any

func (c *azClient) send(ctx context.Context, method, id, apiVersion string, payload []byte) (*http.Response, error) {
	if err := checkPath(id); err != nil {
		return nil, err
	}
	req, err := runtime.NewRequest(ctx, method, runtime.JoinPaths(c.endpoint, id))
	if err != nil {
		return nil, err
	}
	q := req.Raw().URL.Query()
	q.Set("api-version", apiVersion)
	req.Raw().URL.RawQuery = q.Encode()
	req.Raw().Header.Set("Accept", "application/json")
	if payload != nil {
		if err := req.SetBody(streaming.NopCloser(bytes.NewReader(payload)), "application/json"); err != nil {
			return nil, err
		}
	}
	resp, err := c.pl.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode >= 400 {
		return nil, armError(resp)
	}
	return resp, nil
}

func armError(resp *http.Response) error {
	defer resp.Body.Close()
	var b struct {
		Error struct {
			Code, Message, Target string
		} `json:"error"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&b)
	return &Error{Status: resp.StatusCode, Code: b.Error.Code, Message: b.Error.Message, Target: b.Error.Target, RetryAfter: retryAfter(resp)}
}

func decode(resp *http.Response) (map[string]any, error) {
	defer resp.Body.Close()
	var out map[string]any
	if resp.ContentLength == 0 {
		return nil, nil
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil && !errors.Is(err, io.EOF) {
		return nil, &MalformedError{Method: resp.Request.Method, Path: resp.Request.URL.Path, Status: resp.StatusCode, Err: err}
	}
	return out, nil
}

// MalformedError is an answer whose body is not the JSON object ARM
// sends: truncated, an array, not JSON.
type MalformedError struct {
	Method, Path string
	Status       int
	Err          error
}

func (e *MalformedError) Error() string {
	return fmt.Sprintf("ARM answered %s %s with %d and a body that is not a JSON object: %v", e.Method, e.Path, e.Status, e.Err)
}

func (e *MalformedError) Unwrap() error { return e.Err }

func (c *azClient) Get(ctx context.Context, id, apiVersion string) (*Result, error) {
	resp, err := c.send(ctx, http.MethodGet, id, apiVersion, nil)
	if err != nil {
		return nil, err
	}
	b, err := decode(resp)
	return &Result{Status: resp.StatusCode, Body: b}, err
}

func (c *azClient) Put(ctx context.Context, id, apiVersion string, payload []byte) (*Result, error) {
	return c.write(ctx, http.MethodPut, id, apiVersion, payload)
}

func (c *azClient) Patch(ctx context.Context, id, apiVersion string, payload []byte) (*Result, error) {
	return c.write(ctx, http.MethodPatch, id, apiVersion, payload)
}

func (c *azClient) Delete(ctx context.Context, id, apiVersion string) (*Result, error) {
	res, err := c.write(ctx, http.MethodDelete, id, apiVersion, nil)
	if IsNotFound(err) {
		return &Result{Status: http.StatusNoContent}, nil
	}
	return res, err
}

// write sends a request that may start an operation.
func (c *azClient) write(ctx context.Context, method, id, apiVersion string, payload []byte) (*Result, error) {
	resp, err := c.send(ctx, method, id, apiVersion, payload)
	if err != nil {
		return nil, err
	}
	lro := resp.StatusCode == http.StatusAccepted || resp.Header.Get("Azure-AsyncOperation") != "" || (method != http.MethodPut && resp.Header.Get("Location") != "")
	if !lro {
		b, err := decode(resp)
		return &Result{Status: resp.StatusCode, Body: b}, err
	}
	res := &Result{Status: resp.StatusCode, RetryAfter: retryAfter(resp)}
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("arm: %s %s: read: %w", method, id, err)
	}
	resp.Body = io.NopCloser(bytes.NewReader(raw))
	p, err := runtime.NewPoller[body](resp, c.pl, nil)
	if err != nil {
		return nil, fmt.Errorf("arm: %s %s: start polling: %w", method, id, err)
	}
	if p.Done() {
		// Recorded from Network: a PUT answered 200 with an
		// Azure-AsyncOperation header and a body already Succeeded. The
		// answer is final; there is no operation to follow.
		resp.Body = io.NopCloser(bytes.NewReader(raw))
		b, err := decode(resp)
		return &Result{Status: resp.StatusCode, Body: b}, err
	}
	if res.Token, err = p.ResumeToken(); err != nil {
		return nil, fmt.Errorf("arm: %s %s: resume token: %w", method, id, err)
	}
	return res, nil
}

func (c *azClient) Poll(ctx context.Context, token string) (*Result, error) {
	p, err := runtime.NewPollerFromResumeToken[body](token, c.pl, nil)
	if err != nil {
		return nil, fmt.Errorf("arm: resume: %w", err)
	}
	resp, err := p.Poll(ctx)
	if err != nil {
		return nil, operationError(asError(err))
	}
	res := &Result{Status: resp.StatusCode, RetryAfter: retryAfter(resp)}
	if !p.Done() {
		if res.Token, err = p.ResumeToken(); err != nil {
			return nil, err
		}
		return res, nil
	}
	out, err := p.Result(ctx)
	if err != nil {
		return nil, operationError(asError(err))
	}
	res.Body = out
	return res, nil
}

// operationError marks the error of an operation that ended Failed: azcore
// reports it with the status of the poll that said so (below 400).
func operationError(err error) error {
	var e *Error
	if errors.As(err, &e) && e.Status < 400 {
		e.Operation = true
	}
	return err
}

// asError turns azcore's ResponseError into an *Error.
func asError(err error) error {
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		e := &Error{Status: re.StatusCode, Code: re.ErrorCode}
		if re.RawResponse != nil && re.RawResponse.Body != nil {
			var b struct {
				Error struct{ Code, Message, Target string } `json:"error"`
			}
			if json.NewDecoder(re.RawResponse.Body).Decode(&b) == nil {
				e.Message, e.Target = b.Error.Message, b.Error.Target
				if e.Code == "" {
					e.Code = b.Error.Code
				}
			}
		}
		if e.Message == "" {
			e.Message = "the operation failed"
		}
		return e
	}
	return err
}

func retryAfter(resp *http.Response) time.Duration {
	if v := resp.Header.Get("Retry-After"); v != "" {
		var s int
		if _, err := fmt.Sscanf(v, "%d", &s); err == nil && s >= 0 {
			return time.Duration(s) * time.Second
		}
	}
	return 0
}
