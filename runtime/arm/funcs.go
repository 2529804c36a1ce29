package arm

import (
	"context"
	"fmt"
)

// ClientFuncs is a Client made of functions, for tests and adapters (as
// crossplane-runtime's ExternalClientFns): each method calls its function,
// and a method whose function is nil fails with an error naming it, so a
// test states every call it expects.
type ClientFuncs struct {
	GetFn    func(ctx context.Context, id, apiVersion string) (*Result, error)
	PutFn    func(ctx context.Context, id, apiVersion string, body []byte) (*Result, error)
	PatchFn  func(ctx context.Context, id, apiVersion string, body []byte) (*Result, error)
	DeleteFn func(ctx context.Context, id, apiVersion string) (*Result, error)
	PollFn   func(ctx context.Context, token string) (*Result, error)
}

var _ Client = ClientFuncs{}

// errNoFunc is the error of a method without a function.
func errNoFunc(method, what string) error {
	return fmt.Errorf("arm.ClientFuncs: no %s function for %s", method, what)
}

// Get calls GetFn.
func (f ClientFuncs) Get(ctx context.Context, id, apiVersion string) (*Result, error) {
	if f.GetFn == nil {
		return nil, errNoFunc("Get", id)
	}
	return f.GetFn(ctx, id, apiVersion)
}

// Put calls PutFn.
func (f ClientFuncs) Put(ctx context.Context, id, apiVersion string, body []byte) (*Result, error) {
	if f.PutFn == nil {
		return nil, errNoFunc("Put", id)
	}
	return f.PutFn(ctx, id, apiVersion, body)
}

// Patch calls PatchFn.
func (f ClientFuncs) Patch(ctx context.Context, id, apiVersion string, body []byte) (*Result, error) {
	if f.PatchFn == nil {
		return nil, errNoFunc("Patch", id)
	}
	return f.PatchFn(ctx, id, apiVersion, body)
}

// Delete calls DeleteFn.
func (f ClientFuncs) Delete(ctx context.Context, id, apiVersion string) (*Result, error) {
	if f.DeleteFn == nil {
		return nil, errNoFunc("Delete", id)
	}
	return f.DeleteFn(ctx, id, apiVersion)
}

// Poll calls PollFn.
func (f ClientFuncs) Poll(ctx context.Context, token string) (*Result, error) {
	if f.PollFn == nil {
		return nil, errNoFunc("Poll", token)
	}
	return f.PollFn(ctx, token)
}

// ListerFuncs is ClientFuncs that can also list (a Lister): the
// reconciler then checks drift by LIST, as with the real client. ListFn
// nil fails like the other functions.
type ListerFuncs struct {
	ClientFuncs
	ListFn func(ctx context.Context, path, apiVersion string, page func(items []map[string]any) error) error
}

var _ Lister = ListerFuncs{}

// List calls ListFn.
func (f ListerFuncs) List(ctx context.Context, path, apiVersion string, page func(items []map[string]any) error) error {
	if f.ListFn == nil {
		return errNoFunc("List", path)
	}
	return f.ListFn(ctx, path, apiVersion, page)
}
