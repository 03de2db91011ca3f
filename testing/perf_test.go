package weft_test

import (
	"testing"

	weft "github.com/weftdev/weft/testing"
)

func BenchmarkFindCorrect(b *testing.B) {
	for range b.N {
		weft.Find(correct, weft.Iterations(1))
	}
}
