package text_test

import (
	"fmt"
	"testing"

	"github.com/weftdev/weft/internal/text"
)

func TestOrDash(t *testing.T) {
	for in, want := range map[string]string{"": "-", "a.go:3": "a.go:3", "-": "-"} {
		if got := text.OrDash(in); got != want {
			t.Errorf("OrDash(%q) = %q, want %q", in, got, want)
		}
	}
}

func ExampleCount() {
	fmt.Println(text.Count(0, "test"))
	fmt.Println(text.Count(1, "test"))
	fmt.Println(text.Count(12, "distinct failure"))
	// Output:
	// 0 tests
	// 1 test
	// 12 distinct failures
}
