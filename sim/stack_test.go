package sim_test

import (
	"runtime"
	"strings"
	"testing"

	"github.com/weftdev/weft/sim"
)

// dump reads sim.Stack as goleak does: with a buffer that grows until the
// dump fits.
func dump(all bool) string {
	buf := make([]byte, 64)
	for {
		n := sim.Stack(buf, all)
		if n < len(buf) {
			return string(buf[:n])
		}
		buf = make([]byte, 2*len(buf))
	}
}

// parkedIn is where a goroutine of the tests below waits: the function a
// leak checker would name.
func parkedIn(ch *sim.Chan[int]) { ch.Recv() }

// weftFrames returns the lines of a dump that name weft's runtime
// packages' functions.
func weftFrames(d string) []string {
	var out []string
	for _, line := range strings.Split(d, "\n") {
		for _, dir := range []string{"sim.", "sched.", "testing.", "explore.", "internal/"} {
			if strings.Contains(line, "github.com/weftdev/weft/"+dir) {
				out = append(out, line)
			}
		}
	}
	return out
}

// TestStackUnderControl checks that a controlled goroutine's trace begins
// with its own function, as go test shows it, and that no frame or
// goroutine of weft's runtime is in the dump.
func TestStackUnderControl(t *testing.T) {
	var d string
	r := runOnce(func() {
		ch := sim.NewChan[int](0)
		sim.Go(func() { parkedIn(ch) })
		sim.Sleep(1) // the goroutine parks
		d = dump(true)
		ch.Send(1)
	})
	if r.Failure != nil {
		t.Fatal(r.Failure.Summary())
	}
	if w := weftFrames(d); len(w) > 0 {
		t.Errorf("weft's frames in the dump: %q\n%s", w, d)
	}
	top := false
	for _, g := range strings.Split(d, "\n\n") {
		lines := strings.Split(g, "\n")
		if len(lines) > 1 && strings.HasPrefix(lines[1], "github.com/weftdev/weft/sim_test.parkedIn(") {
			top = true
		}
	}
	if !top {
		t.Errorf("no goroutine with parkedIn on top:\n%s", d)
	}
	// The current goroutine comes first, in dump, called by the body.
	first, _, _ := strings.Cut(d, "\n\n")
	if lines := strings.Split(first, "\n"); len(lines) != 5 || !strings.HasSuffix(lines[0], "[running]:") ||
		!strings.HasPrefix(lines[1], "github.com/weftdev/weft/sim_test.dump(") ||
		!strings.HasPrefix(lines[3], "github.com/weftdev/weft/sim_test.TestStackUnderControl.func1(") {
		t.Errorf("the dump does not begin with the body's goroutine:\n%s", d)
	}
}

// TestStackPlain checks that outside executions, after some (their idle
// workers wait in weft's pool), the dump holds the process's goroutines
// but none of weft's; and that a buffer too small is filled, as
// runtime.Stack fills it.
func TestStackPlain(t *testing.T) {
	runOnce(func() {
		var wg sim.WaitGroup
		for range 4 {
			wg.Go(func() {})
		}
		wg.Wait()
	})
	block := make(chan struct{})
	defer close(block)
	go func() { <-block }()
	runtime.Gosched()
	d := dump(true)
	if w := weftFrames(d); len(w) > 0 {
		t.Errorf("weft's frames in the dump: %q\n%s", w, d)
	}
	if !strings.Contains(d, "sim_test.TestStackPlain.func") {
		t.Errorf("the test's own goroutine is missing:\n%s", d)
	}
	buf := make([]byte, 10)
	if n := sim.Stack(buf, true); n != len(buf) || string(buf) != d[:10] {
		t.Errorf("a 10-byte buffer: %d bytes, %q; want 10, %q", n, buf[:n], d[:10])
	}
}

// lockedIn is where a goroutine of TestStackShowsSyncMethod waits for a
// lock.
func lockedIn(mu *sim.Mutex) { mu.Lock() }

// TestStackShowsSyncMethod checks that a goroutine waiting in one of sim's
// twins of sync's types shows, above its own function, the method of sync
// that the rewrite replaced, as go test's dump does: otter's tests wait
// until runtime.Stack shows a goroutine in sync.(*Mutex).Lock called by
// their cache's hash map.
func TestStackShowsSyncMethod(t *testing.T) {
	var d string
	r := runOnce(func() {
		var mu sim.Mutex
		mu.Lock()
		done := sim.NewChan[int](0)
		sim.Go(func() { lockedIn(&mu); mu.Unlock(); done.Close() })
		sim.Sleep(1) // the goroutine waits for the lock
		d = dump(true)
		mu.Unlock()
		done.Recv()
	})
	if r.Failure != nil {
		t.Fatal(r.Failure.Summary())
	}
	if w := weftFrames(d); len(w) > 0 {
		t.Errorf("weft's frames in the dump: %q\n%s", w, d)
	}
	found := false
	for _, g := range strings.Split(d, "\n\n") {
		lines := strings.Split(g, "\n")
		if len(lines) > 3 && strings.HasPrefix(lines[1], "sync.(*Mutex).Lock(") &&
			strings.HasPrefix(lines[3], "github.com/weftdev/weft/sim_test.lockedIn(") {
			found = true
		}
	}
	if !found {
		t.Errorf("no goroutine in sync.(*Mutex).Lock called by lockedIn:\n%s", d)
	}
}
