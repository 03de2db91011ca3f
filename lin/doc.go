// Package lin checks that a concurrent object is linearizable, as Lincheck
// does for the JVM: declare the object's operations, with generators of
// their arguments, and a sequential model; weft draws scenarios (a few
// operations, then several goroutines calling operations at once, then a
// few more), explores their interleavings under its schedule controller,
// and checks each execution's history of calls and returns against the
// model with porcupine (github.com/anishathalye/porcupine).
//
//	func TestQueue(t *testing.T) {
//		lin.Check(t, lin.Spec[*Queue, []int]{
//			New:  func() *Queue { return NewQueue(4) },
//			Init: func() []int { return nil },
//			Ops: []lin.Operation[*Queue, []int]{
//				lin.Op("Push", rapid.IntRange(0, 9), (*Queue).Push, func(s []int, v int) ([]int, bool) {
//					if len(s) == 4 {
//						return s, false
//					}
//					return append(s[:len(s):len(s)], v), true
//				}),
//				lin.Op0("Pop", (*Queue).Pop, func(s []int) ([]int, Popped) {
//					if len(s) == 0 {
//						return s, Popped{}
//					}
//					return s[1:], Popped{s[0], true}
//				}),
//			},
//		})
//	}
//
// Scenarios and schedules are drawn together by pgregory.net/rapid (see
// weft.PropertyCases), so a failure shrinks to few operations, goroutines
// and preemptions at once; it is saved and replayed like every weft
// failure, and reported with the history as columns, one per goroutine,
// the interleaving that produced it, and an HTML visualization of the
// history.
package lin
