package batchcounter

import "github.com/weftdev/weft/lin"

// Spec declares the counter for lin.Check, made by newCounter (NewRacy or
// New), with an int as its sequential model.
func Spec(newCounter func() *Counter) lin.Spec[*Counter, int] {
	return lin.Spec[*Counter, int]{
		New:  newCounter,
		Init: func() int { return 0 },
		Ops: []lin.Operation[*Counter, int]{
			lin.Op0("Inc", func(c *Counter) any { c.Inc(); return nil }, func(n int) (int, any) { return n + 1, nil }),
			lin.Op0("Get", (*Counter).Get, func(n int) (int, int) { return n, n }),
		},
	}
}
