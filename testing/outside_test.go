package weft_test

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/weftdev/weft/sched"
	"github.com/weftdev/weft/sim"
	weft "github.com/weftdev/weft/testing"
)

// janitor is a package-level background goroutine, started in plain mode
// at package initialization, before any execution, as a library's
// janitor or purge loop is: it runs what it is handed, in real time.
var janitor = startJanitor()

// A background runs the functions handed to it on a goroutine of its own.
type background struct {
	work chan func()
	done chan struct{}
}

// purger is another, started the way weft test rewrites a go statement
// in a package's init: with sim.Go, in plain mode, a real goroutine.
var purger = startPurger()

func startPurger() *background {
	b := &background{work: make(chan func()), done: make(chan struct{})}
	sim.Go(func() { b.loop() }) // the purger's go statement
	return b
}

func startJanitor() *background {
	b := &background{work: make(chan func()), done: make(chan struct{})}
	go b.loop() // the janitor's go statement
	return b
}

func (b *background) loop() {
	for f := range b.work {
		f()
		b.done <- struct{}{}
	}
}

// do runs f on the background goroutine and waits for it: a raw channel
// round trip, which the execution waits for outside weft's knowledge
// (hence the long block timeout of the tests that call it).
func (b *background) do(f func()) {
	b.work <- f
	<-b.done
}

// outsideOptions run one execution, with room for a loaded machine to run
// the background goroutine.
var outsideOptions = []weft.Option{weft.Iterations(1), weft.BlockTimeout(time.Minute)}

// checkOutside checks that f is an Outside failure of op, reported at
// the janitor's call of site, naming the goroutine's go statement, and
// not saved.
func checkOutside(t *testing.T, f *weft.Finding, err error, op, what string) {
	t.Helper()
	if err != nil || f == nil {
		t.Fatalf("no failure: %v", err)
	}
	if f.Failure.Kind != sched.Outside {
		t.Fatalf("got %s, want an outside failure\n%s", f.Failure.Summary(), f.Failure.Message)
	}
	summary := f.Failure.Summary()
	for _, want := range []string{op + " on a " + what + " of the execution", "outside_test.go:" + outsideLine(t, "the janitor's go statement"),
		"by goroutine 1 (package initialization"} {
		if !strings.Contains(summary, want) {
			t.Errorf("summary without %q:\n%s", want, summary)
		}
	}
	for _, want := range []string{"start it inside the test, or disable it in tests", "not saved"} {
		if !strings.Contains(f.Failure.Message, want) {
			t.Errorf("message without %q:\n%s", want, f.Failure.Message)
		}
	}
	if !strings.Contains(f.Failure.Stack, "outside_test.go") || !strings.HasPrefix(f.Failure.Site, "outside_test.go:") {
		t.Errorf("site %s, stack:\n%s", f.Failure.Site, f.Failure.Stack)
	}
	if f.Entry != nil || f.Minimized.Runs != 0 || f.Nondeterminism != nil {
		t.Errorf("saved or replayed: entry %v, %d replays, %v", f.Entry, f.Minimized.Runs, f.Nondeterminism)
	}
}

// The case of ants' default pool: a worker of the execution waits on its
// channel, and the pool's purge goroutine, started at init, sends it the
// stop signal from outside. The execution never receives it, and would end
// with the worker leaked: the report says why instead.
func TestOutsideGoroutineSendingOnAnExecutionsChannelIsReported(t *testing.T) {
	t.Parallel()
	f, err := weft.Find(func(t *weft.T) {
		tasks := sim.NewChan[int](1)
		sim.Go(func() { // the worker, until it is sent 0
			for v := range tasks.All() {
				if v == 0 {
					return
				}
			}
		})
		tasks.Send(1) // a task
		janitor.do(func() {
			tasks.Send(0) // the janitor's send
		})
	}, outsideOptions...)
	checkOutside(t, f, err, "Chan.Send", "sim.Chan[int]")
	if !strings.HasSuffix(f.Failure.Site, ":"+outsideLine(t, "the janitor's send")) {
		t.Errorf("site %s", f.Failure.Site)
	}
	// What followed, the worker left waiting, comes after; the report
	// names it as the execution's side of the channel.
	if len(f.Final.More) == 0 || f.Final.More[0].Kind != sched.Leak {
		t.Errorf("then: %v", f.Final.More)
	}
	if ws := f.Failure.Waiting; len(ws) != 1 || ws[0].Goroutine != "0.1" || ws[0].Op != "Chan.Recv" || !strings.Contains(ws[0].Stack, "outside_test.go") {
		t.Errorf("waiting on the channel: %+v", ws)
	}
}

func TestOutsideGoroutineLockingAnExecutionsMutexIsReported(t *testing.T) {
	t.Parallel()
	f, err := weft.Find(func(t *weft.T) {
		var mu sim.Mutex
		mu.Lock()
		mu.Unlock()
		janitor.do(func() {
			mu.Lock() // the janitor's lock: the plain mutex, at once
			mu.Unlock()
		})
	}, outsideOptions...)
	checkOutside(t, f, err, "Mutex.Lock", "sim.Mutex")
	if !strings.HasSuffix(f.Failure.Site, ":"+outsideLine(t, "the janitor's lock")) {
		t.Errorf("site %s", f.Failure.Site)
	}
}

// A goroutine started by sim.Go has sim.Go for its creator: the report
// names the function it runs, on the go statement's line.
func TestOutsideGoroutineStartedBySimGoIsNamed(t *testing.T) {
	t.Parallel()
	f, err := weft.Find(func(t *weft.T) {
		var wg sim.WaitGroup
		wg.Add(1)
		purger.do(func() { wg.Add(1) })
		wg.Done()
	}, outsideOptions...)
	if err != nil || f == nil || f.Failure.Kind != sched.Outside {
		t.Fatalf("got %v, %v", f, err)
	}
	want := "running github.com/weftdev/weft/testing_test.startPurger.func1 (outside_test.go:" + outsideLine(t, "the purger's go statement") + ")"
	if s := f.Failure.Summary(); !strings.Contains(s, "WaitGroup.Add on a sim.WaitGroup") || !strings.Contains(s, want) {
		t.Errorf("summary without %q:\n%s", want, s)
	}
}

// The same janitor, working on objects of its own, made in plain mode,
// while executions run: no failure.
func TestOutsideGoroutineWithItsOwnObjectsPasses(t *testing.T) {
	t.Parallel()
	var mu sim.Mutex
	own := sim.NewChan[int](1)
	f, err := weft.Find(func(t *weft.T) {
		ch := sim.NewChan[int](1)
		sim.Go(func() { ch.Send(1) })
		janitor.do(func() {
			mu.Lock()
			own.Send(1)
			own.Recv()
			mu.Unlock()
		})
		ch.Recv()
	}, weft.Iterations(20), weft.BlockTimeout(time.Minute))
	if err != nil || f != nil {
		t.Fatalf("got %v, %v", f, err)
	}
}

// outsideLine returns the number of the line of this file holding marker,
// as lineOf does for check_test.go.
func outsideLine(t *testing.T, marker string) string {
	t.Helper()
	data, err := os.ReadFile("outside_test.go")
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(string(data), "\n") {
		if strings.Contains(line, marker) && !strings.Contains(line, "outsideLine(") {
			return strconv.Itoa(i + 1)
		}
	}
	t.Fatalf("marker %q not found", marker)
	return ""
}
