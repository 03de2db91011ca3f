// Package weft runs concurrent tests under weft's schedule controller: it
// explores their interleavings until one fails, shrinks the failing one to
// a minimal schedule, saves it to a corpus next to the test, and replays the
// corpus on every later go test. Import it as weft:
//
//	import weft "github.com/weftdev/weft/testing"
//
//	func TestCounter(t *testing.T) {
//		weft.Check(t, func(t *weft.T) {
//			var n sim.Var[int]
//			var wg sim.WaitGroup
//			for range 2 {
//				wg.Go(func() { n.Store(n.Load() + 1) })
//			}
//			wg.Wait()
//			if got := n.Load(); got != 2 {
//				t.Errorf("counter = %d, want 2", got)
//			}
//		})
//	}
//
// The body uses package sim's primitives; every operation on them is a
// point where the controller may switch goroutines.
//
// Plain go test replays each saved schedule of the test as a subtest
// (TestCounter/<id>), then runs a small exploration (TestCounter/explore)
// whose seeds derive from the test's name, so that it is deterministic from
// run to run. go test -run TestCounter -explore explores until a failure or
// the budget ends (-explore.iters, -explore.time). A failure is minimized to
// the fewest preemptions, checked for determinism by replaying it, saved
// under testdata/weft/<TestName>/<id>, and reported with a timeline and the
// command that replays it.
package weft
