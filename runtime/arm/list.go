package arm

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
)

// Lister reads collections: the LIST of a resource type in a scope
// (…/providers/Microsoft.Storage/storageAccounts, …/blobServices/default/containers)
// or a resource group's inventory (…/resourceGroups/g/resources). The
// clients NewClient returns implement it.
//
// It is not part of Client: the reconciler never lists, and Client's
// small contract stays what every fake has to implement.
type Lister interface {
	// List reads the collection at path page by page, following each
	// page's nextLink, and gives every page's items to page in order (an
	// empty page too: page is called once per request answered); an error
	// from page stops the listing and is returned. A missing scope is an
	// *Error with IsNotFound.
	List(ctx context.Context, path, apiVersion string, page func(items []map[string]any) error) error
}

var _ Lister = (*azClient)(nil)

// listPage is one page of a LIST answer.
type listPage struct {
	Value    []map[string]any `json:"value"`
	NextLink string           `json:"nextLink"`
}

func (c *azClient) List(ctx context.Context, path, apiVersion string, page func([]map[string]any) error) error {
	resp, err := c.send(ctx, http.MethodGet, path, apiVersion, nil)
	seen := map[string]bool{}
	for {
		if err != nil {
			return err
		}
		var p listPage
		derr := json.NewDecoder(resp.Body).Decode(&p)
		resp.Body.Close()
		if derr != nil {
			return fmt.Errorf("arm: list %s: decode: %w", path, derr)
		}
		if err := page(p.Value); err != nil {
			return err
		}
		if p.NextLink == "" {
			return nil
		}
		if seen[p.NextLink] {
			return fmt.Errorf("arm: list %s: nextLink %s repeats", path, p.NextLink)
		}
		seen[p.NextLink] = true
		next, err2 := c.nextURL(p.NextLink, apiVersion)
		if err2 != nil {
			return fmt.Errorf("arm: list %s: %w", path, err2)
		}
		resp, err = c.sendURL(ctx, next)
	}
}

// nextURL checks that a nextLink points at the ARM endpoint (the bearer
// token goes with it) and adds the api-version when the link lacks one.
func (c *azClient) nextURL(link, apiVersion string) (string, error) {
	u, err := url.Parse(link)
	if err != nil {
		return "", fmt.Errorf("nextLink %q: %w", link, err)
	}
	ep, err := url.Parse(c.endpoint)
	if err != nil {
		return "", err
	}
	if !strings.EqualFold(u.Scheme, ep.Scheme) || !strings.EqualFold(u.Hostname(), ep.Hostname()) || port(u) != port(ep) {
		return "", fmt.Errorf("nextLink %q is not on the ARM endpoint %s: not followed", link, c.endpoint)
	}
	if u.Query().Get("api-version") == "" {
		q := u.Query()
		q.Set("api-version", apiVersion)
		u.RawQuery = q.Encode()
	}
	return u.String(), nil
}

// port is a URL's port, the scheme's default when it has none (ARM's
// nextLinks say management.azure.com:443).
func port(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if strings.EqualFold(u.Scheme, "http") {
		return "80"
	}
	return "443"
}

// sendURL GETs an absolute URL (a nextLink) as it is.
func (c *azClient) sendURL(ctx context.Context, u string) (*http.Response, error) {
	req, err := runtime.NewRequest(ctx, http.MethodGet, u)
	if err != nil {
		return nil, err
	}
	req.Raw().Header.Set("Accept", "application/json")
	resp, err := c.pl.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode >= 400 {
		return nil, armError(resp)
	}
	return resp, nil
}
