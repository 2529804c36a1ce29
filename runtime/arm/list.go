package arm

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
)

// Lister reads collections. The client of NewClient is one.
type Lister interface {
	// List reads a collection (the path of a list operation, e.g. a
	// resource group's …/providers/Microsoft.Storage/storageAccounts) page
	// by page, following nextLink, and calls fn with each page's items. It
	// stops at the first error, fn's included.
	List(ctx context.Context, path, apiVersion string, fn func(items []map[string]any) error) error
}

var _ Lister = (*azClient)(nil)

// page is one answer of a list operation.
type page struct {
	Value    []map[string]any `json:"value"`
	NextLink string           `json:"nextLink"`
}

// List implements Lister.
func (c *azClient) List(ctx context.Context, path, apiVersion string, fn func([]map[string]any) error) error {
	resp, err := c.send(ctx, http.MethodGet, path, apiVersion, nil)
	for {
		if err != nil {
			return err
		}
		var p page
		err = json.NewDecoder(resp.Body).Decode(&p)
		resp.Body.Close()
		if err != nil {
			return fmt.Errorf("arm: list %s: decode: %w", path, err)
		}
		if err := fn(p.Value); err != nil {
			return err
		}
		if p.NextLink == "" {
			return nil
		}
		resp, err = c.next(ctx, p.NextLink)
	}
}

// next GETs a nextLink: an absolute URL that carries its own query.
func (c *azClient) next(ctx context.Context, link string) (*http.Response, error) {
	req, err := runtime.NewRequest(ctx, http.MethodGet, link)
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
