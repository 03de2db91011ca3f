package gostmts

import (
	"fmt"
	"testing"
)

func TestStarts(t *testing.T) {
	got := fmt.Sprint(Starts())
	if want := "[true true 3 3 6 2 4 5 true 9 true 3 3]"; got != want {
		t.Errorf("Starts = %s, want %s", got, want)
	}
}
