package weft_test

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/weftdev/weft/sim"
	weft "github.com/weftdev/weft/testing"
)

func TestSmokeProperty(t *testing.T) {
	f, err := weft.FindCases(func(r *rapid.T) weft.Case {
		n := rapid.IntRange(1, 5).Draw(r, "n")
		return weft.Case{Inputs: "n", Body: func(t *weft.T) {
			var v sim.Var[int]
			var wg sim.WaitGroup
			for range n {
				wg.Go(func() { v.Store(v.Load() + 1) })
			}
			wg.Wait()
			if got := v.Load(); got != n {
				t.Errorf("got %d, want %d", got, n)
			}
		}}
	}, weft.Iterations(500))
	if err != nil {
		t.Fatal(err)
	}
	if f == nil {
		t.Fatal("not found")
	}
	t.Logf("%+v", f.Property)
	t.Logf("%v %v", f.Failure.Summary(), f.Nondeterminism)
	if f.Entry != nil {
		t.Logf("%s", f.Entry.Marshal())
	}
}
