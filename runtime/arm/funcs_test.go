package arm_test

import (
	"context"
	"strings"
	"testing"

	"github.com/armature-dev/armature/runtime/arm"
)

func TestClientFuncs(t *testing.T) {
	ctx := context.Background()
	var calls []string
	c := arm.ListerFuncs{
		ClientFuncs: arm.ClientFuncs{
			GetFn: func(_ context.Context, id, v string) (*arm.Result, error) {
				calls = append(calls, "GET "+id+" "+v)
				return &arm.Result{Status: 200, Body: map[string]any{"id": id}}, nil
			},
			PutFn: func(_ context.Context, id, _ string, body []byte) (*arm.Result, error) {
				calls = append(calls, "PUT "+id+" "+string(body))
				return &arm.Result{Status: 201, Token: "op1"}, nil
			},
		},
		ListFn: func(_ context.Context, path, _ string, page func([]map[string]any) error) error {
			calls = append(calls, "LIST "+path)
			return page([]map[string]any{{"id": "a"}})
		},
	}
	if r, err := c.Get(ctx, "/x", "2024-01-01"); err != nil || r.Body["id"] != "/x" {
		t.Fatalf("Get = %v, %v", r, err)
	}
	if r, err := c.Put(ctx, "/x", "v", []byte(`{}`)); err != nil || r.Done() {
		t.Fatalf("Put = %v, %v; want an operation in flight", r, err)
	}
	n := 0
	if err := c.List(ctx, "/p", "v", func(items []map[string]any) error { n += len(items); return nil }); err != nil || n != 1 {
		t.Fatalf("List: %v, %d items", err, n)
	}
	if want := "GET /x 2024-01-01|PUT /x {}|LIST /p"; strings.Join(calls, "|") != want {
		t.Errorf("calls %q, want %q", strings.Join(calls, "|"), want)
	}
	for name, call := range map[string]func() error{
		"Patch":  func() error { _, err := c.Patch(ctx, "/x", "v", nil); return err },
		"Delete": func() error { _, err := c.Delete(ctx, "/x", "v"); return err },
		"Poll":   func() error { _, err := c.Poll(ctx, "op1"); return err },
		"List":   func() error { return arm.ListerFuncs{}.List(ctx, "/p", "v", nil) },
	} {
		if err := call(); err == nil || !strings.Contains(err.Error(), "no "+name+" function") {
			t.Errorf("%s without a function: %v", name, err)
		}
	}
	var _ arm.Client = arm.ClientFuncs{}
	if _, ok := any(arm.ClientFuncs{}).(arm.Lister); ok {
		t.Error("ClientFuncs must not be a Lister: the reconciler would check drift by LIST")
	}
}
