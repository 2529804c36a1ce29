package envtestutil

import (
	"context"
	"errors"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
)

// Client is a client for a test's own calls to the apiserver. It sends a
// write again when the apiserver reset its HTTP/2 stream before answering
// (RST_STREAM PROTOCOL_ERROR or REFUSED_STREAM, seen about once in a few
// thousand requests when the test and the operator share one connection
// with many watches open): the request never reached a handler, so sending
// it again is what any client would do, and a test must not fail on it.
// Answers from the apiserver itself (conflicts, not found, denials) are
// returned unchanged.
func Client(cfg *rest.Config, opts client.Options) (client.Client, error) {
	c, err := client.NewWithWatch(cfg, opts)
	if err != nil {
		return nil, err
	}
	return interceptor.NewClient(c, interceptor.Funcs{
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			return again(func() error { return c.Create(ctx, obj, opts...) })
		},
		Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			return again(func() error { return c.Update(ctx, obj, opts...) })
		},
		Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, p client.Patch, opts ...client.PatchOption) error {
			return again(func() error { return c.Patch(ctx, obj, p, opts...) })
		},
		Delete: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
			return again(func() error { return c.Delete(ctx, obj, opts...) })
		},
		Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			return again(func() error { return c.Get(ctx, key, obj, opts...) })
		},
		List: func(ctx context.Context, c client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
			return again(func() error { return c.List(ctx, list, opts...) })
		},
	}), nil
}

// again calls f up to three times while it fails with a reset stream.
func again(f func() error) error {
	var err error
	for range 3 {
		if err = f(); !StreamReset(err) {
			return err
		}
	}
	return err
}

// StreamReset reports whether err is an HTTP/2 stream the apiserver reset
// before answering, not an answer of the apiserver.
func StreamReset(err error) bool {
	if err == nil {
		return false
	}
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		return false
	}
	msg := err.Error()
	return strings.Contains(msg, "stream error") &&
		(strings.Contains(msg, "PROTOCOL_ERROR") || strings.Contains(msg, "REFUSED_STREAM"))
}
