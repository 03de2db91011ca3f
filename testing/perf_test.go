package weft_test

import (
	"testing"

	"github.com/weftdev/weft/sim"
	weft "github.com/weftdev/weft/testing"
)

func BenchmarkFindCorrect(b *testing.B) {
	for range b.N {
		weft.Find(correct, weft.Iterations(1))
	}
}

// BenchmarkExplore measures executions per second as weft.Check explores
// a test, the whole loop (strategy, T, controller, judging none), for the
// shapes of sched's BenchmarkExecutions: goroutines × events, each event a
// store to a shared variable, which never fails.
//
//	go test -run XXX -bench Explore -benchmem ./testing
func BenchmarkExplore(b *testing.B) {
	for _, size := range []struct{ goroutines, events int }{{2, 10}, {8, 100}} {
		name := map[int]string{2: "2x10", 8: "8x100"}[size.goroutines]
		b.Run(name, func(b *testing.B) {
			body := func(*weft.T) {
				var v sim.Var[int]
				var wg sim.WaitGroup
				for range size.goroutines {
					wg.Go(func() {
						for i := range size.events {
							v.Store(i)
						}
					})
				}
				wg.Wait()
			}
			b.ReportAllocs()
			f, err := weft.Find(body, weft.Iterations(b.N), weft.Seed(1))
			if err != nil || f != nil {
				b.Fatalf("%v, %v", f, err)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "execs/s")
		})
	}
}
