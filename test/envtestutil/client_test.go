package envtestutil

import (
	"errors"
	"fmt"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestStreamReset(t *testing.T) {
	reset := errors.New(`Delete "https://127.0.0.1:44641/apis/x": stream error: stream ID 2299; PROTOCOL_ERROR; received from peer`)
	for _, c := range []struct {
		err  error
		want bool
	}{
		{nil, false},
		{reset, true},
		{fmt.Errorf("wrapped: %w", reset), true},
		{errors.New("stream error: stream ID 7; REFUSED_STREAM"), true},
		{errors.New("connection refused"), false},
		{apierrors.NewNotFound(schema.GroupResource{Resource: "x"}, "stream error PROTOCOL_ERROR"), false},
	} {
		if got := StreamReset(c.err); got != c.want {
			t.Errorf("StreamReset(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}

func TestAgainStopsOnAnswer(t *testing.T) {
	calls := 0
	reset := errors.New("stream error: stream ID 1; PROTOCOL_ERROR; received from peer")
	err := again(func() error {
		calls++
		if calls < 2 {
			return reset
		}
		return nil
	})
	if err != nil || calls != 2 {
		t.Fatalf("again: err %v after %d calls, want nil after 2", err, calls)
	}
	calls = 0
	if err := again(func() error { calls++; return reset }); err == nil || calls != 3 {
		t.Fatalf("again: err %v after %d calls, want the reset after 3", err, calls)
	}
}
