package helpers

import (
	"fmt"
	"sync"
	"testing"

	"example.com/helpers/instrhelp"
	"example.com/helpers/lib"
)

func TestBlank(_ *testing.T) {}

func TestUnnamed(*testing.T) { _ = Double(1) }

// check is a helper of the test file.
func check(t *testing.T, n int) {
	t.Helper()
	if Double(n) != 2*n {
		t.Fatalf("Double(%d)", n)
	}
}

func TestHelpers(t *testing.T) {
	check(t, 1)
	instrhelp.Equal(t, Double(2), 4)
	instrhelp.New(t).Wait()
	lib.Equal(t, Double(3), 6)
	lib.True(t, Double(4) == 8)
	lib.TB(t, true)
	var wg sync.WaitGroup
	for i := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			check(t, i) // from another goroutine
		}()
	}
	wg.Wait()
	for _, n := range []int{5, 6} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			check(t, n)
		})
	}
	if _, ok := t.Deadline(); ok {
		t.Log("a deadline")
	}
}

func FuzzDouble(f *testing.F) {
	f.Add(3)
	f.Fuzz(func(t *testing.T, n int) {
		check(t, n%1000)
	})
}

func BenchmarkDouble(b *testing.B) {
	for range b.N {
		Double(1)
	}
}

func ExampleDouble() {
	fmt.Println(Double(21))
	// Output: 42
}
