package ctxresult

import (
	"context"
	"errors"
	"slices"
	"testing"
)

func TestCollect(t *testing.T) {
	got, err := Collect(t.Context(), "a", "b")
	if err != nil || !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("got %v, %v", got, err)
	}
}

func TestCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := Collect(ctx, "a"); !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v", err)
	}
}
