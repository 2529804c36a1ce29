package arm_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/armature-dev/armature/fakearm"
	"github.com/armature-dev/armature/runtime/arm"
)

// TestListPages: a collection longer than a page is read page by page,
// following nextLink: 7 accounts in pages of 3 are 3 GETs.
func TestListPages(t *testing.T) {
	fa, c := setup(t, fakearm.Options{LROPolls: 0, PageSize: 3}, nil)
	ctx := context.Background()
	if _, err := c.Put(ctx, rg, rgV, []byte(`{"location":"westeurope"}`)); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 7; i++ {
		res, err := c.Put(ctx, fmt.Sprintf("%s/providers/Microsoft.Storage/storageAccounts/list%02d", rg, i), saV, []byte(`{"location":"westeurope","kind":"StorageV2","sku":{"name":"Standard_LRS"}}`))
		for err == nil && !res.Done() {
			res, err = c.Poll(ctx, res.Token)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	fa.ResetJournal()
	var ids []string
	pages := 0
	err := c.(arm.Lister).List(ctx, rg+"/providers/Microsoft.Storage/storageAccounts", saV, func(items []map[string]any) error {
		pages++
		for _, it := range items {
			ids = append(ids, it["name"].(string))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(ids, ","); got != "list00,list01,list02,list03,list04,list05,list06" || pages != 3 {
		t.Errorf("%d pages: %s", pages, got)
	}
	if n := fa.Count(http.MethodGet); n != 3 {
		t.Errorf("%d GETs for 3 pages", n)
	}
	err = c.(arm.Lister).List(ctx, rg+"/providers/Microsoft.Storage/storageAccounts", saV, func([]map[string]any) error { return fmt.Errorf("stop") })
	if err == nil || err.Error() != "stop" {
		t.Errorf("an error of fn ends the list: %v", err)
	}
}
