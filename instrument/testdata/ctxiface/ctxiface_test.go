package ctxiface

import (
	"context"
	"errors"
	"sync"
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

func TestLabeled(t *testing.T) {
	var mu sync.Mutex
	n := 0
	inc := func(context.Context) error { mu.Lock(); n++; mu.Unlock(); return nil }
	for range 2 {
		if err := Labeled(t.Context(), inc); err != nil {
			t.Fatal(err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if n != 2 {
		t.Errorf("n = %d", n)
	}
}

func TestHook(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := Hook(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Hook: %v", err)
	}
}

func TestSelected(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	go cancel()
	if chosen := Selected(ctx); chosen != 0 || ctx.Err() == nil {
		t.Errorf("Selected = %d, ctx.Err() = %v", chosen, ctx.Err())
	}
}

func TestLabeledCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	errc := make(chan error)
	go func() {
		errc <- Labeled(ctx, func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() })
	}()
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("Labeled: %v", err)
	}
}
