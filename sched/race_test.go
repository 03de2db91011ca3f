package sched

import (
	"testing"

	"github.com/weftdev/weft/internal/racereport"
)

// The frames raceChain leaves below a goroutine's function spell its mark,
// which a report's stack gives back.
func TestRaceMark(t *testing.T) {
	c := &Controller{seq: 1<<raceSeqBits + 5} // numbers wrap
	for i := range 3 {
		c.all = append(c.all, &G{c: c, idx: i, id: []string{"0", "0.1", "0.2"}[i]})
	}
	g := c.all[2]
	var frames []racereport.Frame
	for m, bits := raceMark(c, g), 0; bits < raceIndexBits+raceSeqBits; bits++ {
		// Outermost last, as a report lists them.
		frames = append([]racereport.Frame{{Func: raceBitNames[m&1]}, {Func: funcName(raceChain)}}, frames...)
		m >>= 1
	}
	frames = append([]racereport.Frame{{Func: "example.com/p.TestX.func1", File: "/p/x_test.go", Line: 7}}, frames...)
	if got := c.markedBy(frames); got != g {
		t.Errorf("the frames are goroutine %v's, want %s's", got, g.id)
	}
	other := &Controller{seq: 6, all: c.all}
	if got := other.markedBy(frames); got != nil {
		t.Errorf("another execution's frames are goroutine %s's", got.id)
	}
	if got := c.markedBy(frames[:len(frames)-4]); got != nil {
		t.Errorf("a cut mark names goroutine %s", got.id)
	}
	site, stack := userFrames(frames)
	if site != "x_test.go:7" || stack != "example.com/p.TestX.func1\n\t/p/x_test.go:7" {
		t.Errorf("user frames: %q, %q", site, stack)
	}
}

// A report whose every access is in weft's own state, below the runtime,
// is weft's bug, not the test's; one access in the test's code makes it
// the test's.
func TestControllerState(t *testing.T) {
	access := func(funcs ...string) racereport.Access {
		var a racereport.Access
		for _, f := range funcs {
			a.Frames = append(a.Frames, racereport.Frame{Func: f})
		}
		return a
	}
	grow := access("runtime.slicecopy", "github.com/weftdev/weft/sched.(*candidates).grow", "example.com/p.TestX.func1")
	next := access("github.com/weftdev/weft/internal/lineage.(*Children).Next", "github.com/weftdev/weft/sched.(*Controller).newG")
	user := access("example.com/p.TestX.func1", "github.com/weftdev/weft/sched.(*Controller).goroutine")
	if fn, ok := controllerState([]racereport.Access{grow, next}); !ok || fn != "github.com/weftdev/weft/sched.(*candidates).grow" {
		t.Errorf("controller's accesses: %q, %v", fn, ok)
	}
	if fn, ok := controllerState([]racereport.Access{next, user}); ok {
		t.Errorf("an access of the test's is weft's own state, in %s", fn)
	}
}
