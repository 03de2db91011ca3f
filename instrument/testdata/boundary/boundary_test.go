package boundary

import (
	"testing"
	"time"
)

func TestFetch(t *testing.T) {
	ctx, err := Fetch(t.Context(), "http://example.com")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := ctx.Deadline(); !ok {
		t.Error("no deadline")
	}
	_ = time.Second
}
