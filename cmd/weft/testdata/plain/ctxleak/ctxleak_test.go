package ctxleak

import (
	"context"
	"testing"
	"time"
)

func TestBug(t *testing.T) {
	Watch(context.Background(), func() error { return nil }, false)
}

func TestFixed(t *testing.T) {
	Watch(context.Background(), func() error { return nil }, true)
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	if err := Slow(ctx, 10*time.Millisecond); err != nil {
		t.Errorf("Slow = %v", err)
	}
}
