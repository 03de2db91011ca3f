package twolockqueue

import (
	"pgregory.net/rapid"

	"github.com/weftdev/weft/lin"
)

// Dequeued is what Dequeue returns.
type Dequeued struct {
	V  int
	OK bool
}

// Spec declares the queue for lin.Check, made by newQueue (NewRacy or
// New), with a slice as its sequential model.
func Spec(newQueue func() *Queue) lin.Spec[*Queue, []int] {
	return lin.Spec[*Queue, []int]{
		New:  newQueue,
		Init: func() []int { return nil },
		Ops: []lin.Operation[*Queue, []int]{
			lin.Op("Enqueue", rapid.IntRange(1, 9),
				func(q *Queue, v int) any { q.Enqueue(v); return nil },
				func(s []int, v int) ([]int, any) { return append(s[:len(s):len(s)], v), nil }),
			lin.Op0("Dequeue",
				func(q *Queue) Dequeued { v, ok := q.Dequeue(); return Dequeued{v, ok} },
				func(s []int) ([]int, Dequeued) {
					if len(s) == 0 {
						return s, Dequeued{}
					}
					return s[1:], Dequeued{s[0], true}
				}),
			lin.Op0("Len", (*Queue).Len, func(s []int) ([]int, int) { return s, len(s) }),
		},
	}
}
