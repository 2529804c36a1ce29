package arm_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/armature-dev/armature/fakearm"
	"github.com/armature-dev/armature/runtime/arm"
)

// TestListPages: a LIST longer than a page is read page by page through
// the nextLinks, each item once, in order; the journal has one entry per
// page.
func TestListPages(t *testing.T) {
	fa, c := setup(t, fakearm.Options{PageSize: 2}, nil)
	ctx := context.Background()
	if _, err := c.Put(ctx, rg, rgV, []byte(`{"location":"westeurope"}`)); err != nil {
		t.Fatal(err)
	}
	const miV = "2023-01-31"
	for i := range 5 {
		id := fmt.Sprintf("%s/providers/Microsoft.ManagedIdentity/userAssignedIdentities/id%d", rg, i)
		if _, err := c.Put(ctx, id, miV, []byte(`{"location":"westeurope"}`)); err != nil {
			t.Fatal(err)
		}
	}
	fa.ResetJournal()
	var names []string
	pages := 0
	err := c.(arm.Lister).List(ctx, rg+"/providers/Microsoft.ManagedIdentity/userAssignedIdentities", miV, func(items []map[string]any) error {
		pages++
		for _, it := range items {
			names = append(names, it["name"].(string))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(names, ","); got != "id0,id1,id2,id3,id4" || pages != 3 {
		t.Errorf("items %s in %d pages, want id0..id4 in 3", got, pages)
	}
	if n := fa.Count("LIST"); n != 3 {
		t.Errorf("journal counts %d LIST pages, want 3", n)
	}
	var seen []string
	for _, e := range fa.Journal() {
		seen = append(seen, fmt.Sprintf("%d:%d:%t", e.Page, e.Items, strings.Contains(e.Query, "skiptoken")))
	}
	if got := strings.Join(seen, " "); got != "1:2:false 2:2:true 3:1:true" {
		t.Errorf("journal pages (page:items:skiptoken) %s", got)
	}

	// The group's inventory pages the same way.
	var inv []string
	if err := c.(arm.Lister).List(ctx, rg+"/resources", "2021-04-01", func(items []map[string]any) error {
		for _, it := range items {
			inv = append(inv, it["type"].(string))
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(inv) != 5 || inv[0] != "Microsoft.ManagedIdentity/userAssignedIdentities" {
		t.Errorf("inventory %v", inv)
	}
	err = c.(arm.Lister).List(ctx, rg+"-none/resources", "2021-04-01", func([]map[string]any) error { return nil })
	if !arm.IsNotFound(err) {
		t.Errorf("inventory of a missing group: %v, want 404", err)
	}
}

// TestListForeignNextLink: a nextLink to another host is not followed (the
// bearer token would go with it).
func TestListForeignNextLink(t *testing.T) {
	c, err := arm.NewClient(arm.Options{Endpoint: "https://arm.example", Credential: arm.StaticToken("t"), Transport: pages{
		"/x": `{"value":[{"name":"a"}],"nextLink":"https://elsewhere.example/x?$skiptoken=1"}`,
	}})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	err = c.(arm.Lister).List(context.Background(), "/x", "1", func(items []map[string]any) error { n += len(items); return nil })
	if err == nil || !strings.Contains(err.Error(), "not on the ARM endpoint") || n != 1 {
		t.Errorf("got %d items and %v, want 1 and a refusal", n, err)
	}
}

// pages answers GETs by path.
type pages map[string]string

func (p pages) Do(req *http.Request) (*http.Response, error) {
	body, ok := p[req.URL.Path]
	status := http.StatusOK
	if !ok {
		status, body = http.StatusNotFound, `{"error":{"code":"NotFound","message":"no"}}`
	}
	return &http.Response{StatusCode: status, Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(strings.NewReader(body)), Request: req}, nil
}
