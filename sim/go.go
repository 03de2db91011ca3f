package sim

import (
	"runtime"

	"github.com/weftdev/weft/sched"
)

// Go starts f in a new goroutine. Under control the goroutine is known to
// the controller, named by its lineage (the n-th goroutine started by its
// parent), and runs only when the controller picks it. A goroutine started
// with a plain go statement from a controlled one escapes the controller:
// weft reports it.
func Go(f func()) {
	g, t := who()
	if g != nil {
		g.Go(opGo, f)
		return
	}
	if t != nil {
		t.Op(nil)
		t.Go(f)
		return
	}
	sched.NotePlainGo()
	go f()
}

// Yield is an explicit scheduling point: under control, the goroutine asks
// to let the others run, as a spin loop should. In plain mode it calls
// runtime.Gosched.
func Yield() {
	g, t := who()
	if g != nil {
		g.Yield(opYield)
		return
	}
	if t != nil {
		t.Op(nil)
	}
	runtime.Gosched()
}

// NumGoroutine is runtime.NumGoroutine. Under control it counts the
// execution's goroutines that have not ended, and the process's other
// goroutines when the execution started, but weft's own (see
// sched.G.Goroutines): a test that compares the count before and after its
// work sees its own goroutines only, the same in every replay. Recording
// and in plain mode, it is runtime.NumGoroutine.
func NumGoroutine() int {
	if g, _ := who(); g != nil {
		return g.Goroutines()
	}
	return runtime.NumGoroutine()
}
