package ctxiface

import (
	"context"
	"errors"
	"testing"
)

func TestLog(t *testing.T) {
	if n := Log(t.Context(), 3); n != 4 {
		t.Errorf("%d records handled, want 4", n)
	}
}

func TestThrough(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := Through(ctx, work); !errors.Is(err, context.Canceled) {
		t.Errorf("Through: %v", err)
	}
}
