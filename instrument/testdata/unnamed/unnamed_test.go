package unnamed

import (
	"context"
	"testing"
)

func TestSubscribe(t *testing.T) {
	ch, desc, err := Subscribe(context.Background(), NewMemory("a", "b"), "t")
	if err != nil || desc == "" {
		t.Fatalf("Subscribe: %q, %v", desc, err)
	}
	var got []string
	for v := range ch {
		got = append(got, v)
	}
	if len(got) != 2 || got[1] != "b" {
		t.Fatalf("got %v", got)
	}
}
