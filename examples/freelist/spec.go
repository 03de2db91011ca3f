package freelist

import (
	"pgregory.net/rapid"

	"github.com/weftdev/weft/lin"
)

// Popped is what Pop returns.
type Popped struct {
	V  int
	OK bool
}

// Spec declares the stack for lin.Check, made by newStack (NewRacy or New),
// with a slice as its sequential model, the top last.
func Spec(newStack func() *Stack) lin.Spec[*Stack, []int] {
	return lin.Spec[*Stack, []int]{
		New:  newStack,
		Init: func() []int { return nil },
		Ops: []lin.Operation[*Stack, []int]{
			lin.Op("Push", rapid.IntRange(1, 9),
				func(s *Stack, v int) any { s.Push(v); return nil },
				func(m []int, v int) ([]int, any) { return append(m[:len(m):len(m)], v), nil }),
			lin.Op0("Pop",
				func(s *Stack) Popped { v, ok := s.Pop(); return Popped{v, ok} },
				func(m []int) ([]int, Popped) {
					if len(m) == 0 {
						return m, Popped{}
					}
					return m[:len(m)-1], Popped{m[len(m)-1], true}
				}),
		},
		InitOps: 3, OpsPerGoroutine: 4,
	}
}
