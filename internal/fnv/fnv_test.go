package fnv

import (
	"hash/fnv"
	"testing"
)

// TestStringIsFNV1a: String agrees with the standard library's FNV-1a.
func TestStringIsFNV1a(t *testing.T) {
	for _, s := range []string{"", "a", "weft", "goroutine 0.1 at x.go:12"} {
		h := fnv.New64a()
		h.Write([]byte(s))
		if got, want := String(s), h.Sum64(); got != want {
			t.Errorf("String(%q) = %#x, want %#x", s, got, want)
		}
	}
}
