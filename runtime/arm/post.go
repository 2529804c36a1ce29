package arm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
)

// Poster runs ARM POST actions (regenerateKey, restart, failover,
// listKeys…). It is separate from Client so that Client stays small; the
// client NewClient returns implements both:
//
//	poster, ok := client.(arm.Poster)
//
// Like Client, Post never blocks on a long-running operation: it returns
// at once with a resume token, which Client.Poll advances. Unlike the
// Client methods, Post is not safe to repeat: an action may not be
// idempotent, so the caller must record that it sent it (see
// runtime/action).
type Poster interface {
	// Post sends POST <id>/<action>. A long-running action returns a
	// Result with a Token; a synchronous one its response body (nil when
	// it has none). ARM errors are *Error.
	Post(ctx context.Context, id, apiVersion string, req PostRequest) (*Result, error)
}

// PostRequest is one action request.
type PostRequest struct {
	// Action is the path below the resource, e.g. regenerateKey.
	Action string
	// Query are query parameters besides api-version. Defaults to none.
	Query map[string]string
	// Body is the JSON request body, or nil for none.
	Body []byte
	// FinalStateVia is the swagger's final-state-via for a long-running
	// action (location, azure-async-operation, original-uri), which says
	// where its result is read. Defaults to azcore's choice.
	FinalStateVia string
}

var _ Poster = (*azClient)(nil)

// Post implements Poster.
func (c *azClient) Post(ctx context.Context, id, apiVersion string, pr PostRequest) (*Result, error) {
	if pr.Action == "" {
		return nil, errors.New("arm: POST without an action name")
	}
	req, err := runtime.NewRequest(ctx, http.MethodPost, runtime.JoinPaths(c.endpoint, id, pr.Action))
	if err != nil {
		return nil, err
	}
	q := req.Raw().URL.Query()
	for k, v := range pr.Query {
		q.Set(k, v)
	}
	q.Set("api-version", apiVersion)
	req.Raw().URL.RawQuery = q.Encode()
	req.Raw().Header.Set("Accept", "application/json")
	if pr.Body != nil {
		if err := req.SetBody(streaming.NopCloser(bytes.NewReader(pr.Body)), "application/json"); err != nil {
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
	if resp.StatusCode != http.StatusAccepted && resp.Header.Get("Azure-AsyncOperation") == "" {
		b, err := decodeAny(resp)
		return &Result{Status: resp.StatusCode, Body: b}, err
	}
	res := &Result{Status: resp.StatusCode, RetryAfter: retryAfter(resp)}
	p, err := runtime.NewPoller[body](resp, c.pl, &runtime.NewPollerOptions[body]{FinalStateVia: finalState(pr.FinalStateVia)})
	if err != nil {
		return nil, fmt.Errorf("arm: POST %s/%s: start polling: %w", id, pr.Action, err)
	}
	if res.Token, err = p.ResumeToken(); err != nil {
		return nil, fmt.Errorf("arm: POST %s/%s: resume token: %w", id, pr.Action, err)
	}
	return res, nil
}

func finalState(s string) runtime.FinalStateVia {
	switch strings.ToLower(s) {
	case "location":
		return runtime.FinalStateViaLocation
	case "azure-async-operation":
		return runtime.FinalStateViaAzureAsyncOp
	case "original-uri":
		return runtime.FinalStateViaOriginalURI
	case "operation-location":
		return runtime.FinalStateViaOpLocation
	}
	return ""
}

// decodeAny decodes a response body; a body that is not an object (an
// array, a string) is returned under "value".
func decodeAny(resp *http.Response) (map[string]any, error) {
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, nil
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, fmt.Errorf("arm: decode %s: %w", resp.Request.URL.Path, err)
	}
	if m, ok := v.(map[string]any); ok {
		return m, nil
	}
	return map[string]any{"value": v}, nil
}
