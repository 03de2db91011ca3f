package sim_test

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

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

// Where the goroutines of TestStackStatesAsGoNamesThem wait: each names
// its goroutine in the dump.
func sentIn(ch *sim.Chan[int]) { ch.Send(1) }
func selectedIn(a, b *sim.Chan[int]) {
	sim.Select(sim.OnRecv(a, func(int) {}), sim.OnRecv(b, func(int) {}))
}
func waitedIn(wg *sim.WaitGroup)              { wg.Wait() }
func rlockedIn(rw *sim.RWMutex)               { rw.RLock() }
func condWaitedIn(mu *sim.Mutex, c *sim.Cond) { mu.Lock(); c.Wait() }
func sleptIn()                                { sim.Sleep(time.Hour) }

// traces returns the traces of a dump by the function on top of each
// (below sync's method, if any), without its package's path: "sentIn"
// for the goroutine waiting in sentIn.
func traces(d string) map[string][]string {
	m := map[string][]string{}
	for _, g := range strings.Split(strings.TrimSpace(d), "\n\n") {
		lines := strings.Split(g, "\n")
		if len(lines) < 2 {
			continue
		}
		top := lines[1]
		if strings.HasPrefix(top, "sync.") && len(lines) > 3 {
			top = lines[3] // sync's method that sim's twin stands for
		}
		fn, _, _ := strings.Cut(top, "(")
		m[strings.TrimPrefix(fn, "github.com/weftdev/weft/sim_test.")] = lines
	}
	return m
}

// TestStackStatesAsGoNamesThem checks that each goroutine of the
// execution shows in its header the state go test's dump would: what it
// waits for, as Go names it, rather than the controller's own wait for
// its turn (a channel receive, whatever the goroutine waits for).
func TestStackStatesAsGoNamesThem(t *testing.T) {
	want := map[string]string{
		"parkedIn": "chan receive", "sentIn": "chan send", "selectedIn": "select",
		"lockedIn": "sync.Mutex.Lock", "waitedIn": "sync.WaitGroup.Wait",
		"rlockedIn": "sync.RWMutex.RLock", "condWaitedIn": "sync.Cond.Wait", "sleptIn": "sleep",
	}
	var d string
	r := runOnce(func() {
		a, b := sim.NewChan[int](0), sim.NewChan[int](0)
		s1, s2 := sim.NewChan[int](0), sim.NewChan[int](0)
		var mu, cmu sim.Mutex
		var rw sim.RWMutex
		var wg sim.WaitGroup
		c := sim.NewCond(&cmu)
		mu.Lock()
		rw.Lock()
		wg.Add(1)
		sim.Go(func() { parkedIn(a) })
		sim.Go(func() { sentIn(b) })
		sim.Go(func() { selectedIn(s1, s2) })
		sim.Go(func() { lockedIn(&mu) })
		sim.Go(func() { waitedIn(&wg) })
		sim.Go(func() { rlockedIn(&rw) })
		sim.Go(func() { condWaitedIn(&cmu, c) })
		sim.Go(sleptIn)
		// Until every goroutine waits, as goleak's own tests wait.
		for range 1000 {
			d = dump(true)
			if !strings.Contains(d, "[runnable]") {
				break
			}
			sim.Yield()
		}
		mu.Unlock()
		rw.Unlock()
		wg.Done()
		cmu.Lock()
		c.Signal()
		cmu.Unlock()
		b.Recv()
		a.Send(1)
		s1.Close()
	})
	if r.Failure != nil {
		t.Fatal(r.Failure.Summary())
	}
	ts := traces(d)
	for fn, state := range want {
		g, ok := ts[fn]
		if !ok {
			t.Errorf("no goroutine in %s:\n%s", fn, d)
			continue
		}
		if !strings.HasSuffix(g[0], " ["+state+"]:") {
			t.Errorf("%s: header %q, want state %q", fn, g[0], state)
		}
	}
}

// TestStackShowsGoroutinesNotYetRun checks that a goroutine started but
// not yet run is in the dump, runnable, at its function's entry, with the
// function that started it and that one's goroutine on its "created by"
// line, as go test's dump shows it: goleak found no leak in a goroutine
// that had not run yet (its TestIgnoreCurrent), and counted one goroutine
// too few (TestAll).
func TestStackShowsGoroutinesNotYetRun(t *testing.T) {
	var d string
	r := runOnce(func() {
		ch := sim.NewChan[int](0)
		sim.Go(func() { parkedIn(ch) }) // not run before the dump
		d = dump(true)                  // no scheduling point since the go statement
		ch.Send(1)
	})
	if r.Failure != nil {
		t.Fatal(r.Failure.Summary())
	}
	gs := strings.Split(strings.TrimSpace(d), "\n\n")
	root := strings.Split(gs[0], "\n")
	id := strings.Fields(root[0])[1]
	g, ok := traces(d)["TestStackShowsGoroutinesNotYetRun.func1.1"]
	if !ok || len(g) != 5 || !strings.HasSuffix(g[0], " [runnable]:") ||
		g[1] != "github.com/weftdev/weft/sim_test.TestStackShowsGoroutinesNotYetRun.func1.1()" ||
		!strings.HasSuffix(g[2], "stack_test.go:"+line(t, "// not run before the dump")) ||
		g[3] != "created by github.com/weftdev/weft/sim_test.TestStackShowsGoroutinesNotYetRun.func1 in goroutine "+id {
		t.Errorf("the goroutine not yet run, want runnable, created by the body in goroutine %s:\n%s", id, d)
	}
}

// TestStackGivesEachGoroutineItsID checks that each goroutine of the
// execution has an id of its own, though two of them run on one worker in
// turn, and that a goroutine's "created by" line names the goroutine that
// ran the go statement by that id: goleak's IgnoreCurrent remembers ids,
// and took new goroutines for the ones it had seen (TestIgnoreCurrent).
func TestStackGivesEachGoroutineItsID(t *testing.T) {
	var first, second string
	r := runOnce(func() {
		ch := sim.NewChan[int](0)
		sim.Go(func() {
			sim.Go(func() { parkedIn(ch) })
			parkedIn(ch)
		})
		for range 1000 {
			if first = dump(true); !strings.Contains(first, "[runnable]") {
				break
			}
			sim.Yield()
		}
		ch.Send(1)
		ch.Send(1)
		for range 10 {
			sim.Sleep(time.Millisecond) // the goroutines' workers go back to the pool
		}
		sim.Go(func() { parkedIn(ch) })
		second = dump(true)
		ch.Send(1)
	})
	if r.Failure != nil {
		t.Fatal(r.Failure.Summary())
	}
	ids := map[string]string{} // id: the function the goroutine runs
	for _, d := range []string{first, second} {
		for _, g := range strings.Split(strings.TrimSpace(d), "\n\n") {
			lines := strings.Split(g, "\n")
			fn := bottom(lines)
			if !strings.Contains(fn, "TestStackGivesEachGoroutineItsID") {
				continue // not the execution's: testing's goroutine 1
			}
			id := strings.Fields(lines[0])[1]
			if other, ok := ids[id]; ok && other != fn {
				t.Errorf("goroutine %s is both %s and %s:\n%s\n\n%s", id, other, fn, first, second)
			}
			ids[id] = fn
		}
	}
	var child, grandchild []string
	for _, g := range strings.Split(strings.TrimSpace(first), "\n\n") {
		lines := strings.Split(g, "\n")
		switch bottom(lines) {
		case "github.com/weftdev/weft/sim_test.TestStackGivesEachGoroutineItsID.func1.1.1()":
			grandchild = lines
		case "github.com/weftdev/weft/sim_test.TestStackGivesEachGoroutineItsID.func1.1()":
			child = lines
		}
	}
	if child == nil || grandchild == nil {
		t.Fatalf("the two goroutines are not in the dump:\n%s", first)
	}
	childID := strings.Fields(child[0])[1]
	if want := "created by github.com/weftdev/weft/sim_test.TestStackGivesEachGoroutineItsID.func1.1 in goroutine " + childID; grandchild[len(grandchild)-2] != want {
		t.Errorf("the grandchild's creator: %q, want %q", grandchild[len(grandchild)-2], want)
	}
}

// bottom returns the bottom frame's line of a goroutine's trace, above
// its "created by" line if any.
func bottom(lines []string) string {
	n := len(lines) - 2
	if n > 0 && strings.HasPrefix(lines[n], "created by ") {
		n -= 2
	}
	if n < 1 {
		return ""
	}
	return lines[n]
}

// line returns the line of this file where text is, as a string.
func line(t *testing.T, text string) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	before, _, ok := strings.Cut(string(b), text)
	if !ok {
		t.Fatalf("%q not in %s", text, file)
	}
	return strconv.Itoa(strings.Count(before, "\n") + 1)
}

// TestStackWaitGroupGoCreator checks that a goroutine started by a
// WaitGroup's Go is created by sync.(*WaitGroup).Go, as go test shows it,
// not by weft's twin.
func TestStackWaitGroupGoCreator(t *testing.T) {
	var d string
	r := runOnce(func() {
		var wg sim.WaitGroup
		ch := sim.NewChan[int](0)
		wg.Go(func() { parkedIn(ch) })
		d = dump(true)
		ch.Send(1)
		wg.Wait()
	})
	if r.Failure != nil {
		t.Fatal(r.Failure.Summary())
	}
	root := strings.Fields(d)[1]
	if want := "\ncreated by sync.(*WaitGroup).Go in goroutine " + root + "\n"; !strings.Contains(d, want) {
		t.Errorf("no %q in the dump:\n%s", want[1:], d)
	}
}
