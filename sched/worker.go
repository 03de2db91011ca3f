package sched

import (
	"runtime"
	"runtime/debug"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/weftdev/weft/internal/gls"
	"github.com/weftdev/weft/internal/race"
)

// Workers. A controlled goroutine runs on a worker: a Go goroutine that,
// once the controlled goroutine has exited, parks in the process's idle
// pool and runs the next one it is given, of this execution or a later
// one. Starting a goroutine, growing its stack to the depth of a step, and
// labelling it for the profiler (gls.Bind) cost more than the rest of a
// small execution; a worker pays them once. A worker keeps its profiler
// labels (weft.test, and weft.w, the worker's own number) while it runs
// goroutines of the same test, which the pool favours: labelling a
// goroutine allocates a label set and a map entry, so the labels name no
// controlled goroutine (the worker's weft.w does, to the controller).
//
// Under the race detector a worker runs one controlled goroutine and ends:
// the race detector would see the program order of a reused goroutine as
// synchronization between the controlled goroutines it ran.
//
// Idle workers are not goroutines of any test: they end once no execution
// has run for idleLinger, so that a leak checker run after the tests
// (goleak) finds none, and at once when an execution reports an escaped
// goroutine, which may carry one of their label sets. While an execution
// runs they stay, however long it takes: an execution of thousands of
// goroutines that starts them all, then ends them all, takes none from the
// pool for longer than that on a loaded machine, and the next one would
// start them all again.

// A worker is a goroutine that runs controlled goroutines in turn.
type worker struct {
	wake chan struct{} // the baton: a handoff to the worker's goroutine
	g    *G            // the controlled goroutine it runs next, or runs
	f    func()        // g's function, until g starts
	num  string        // the weft.w label

	// Or the sequence it carries on (see sequence.go), from the Result
	// res or the execution from whose root it takes over.
	seq  *sequence
	from *Controller
	res  *Result

	bind gls.Binding
	test string // the weft.test label it carries
}

const (
	// maxIdle bounds the idle workers kept: an execution of a hundred
	// thousand goroutines leaves no hundred thousand goroutines behind,
	// one of eight thousand reuses them all (8,192 idle workers hold about
	// 64 MB of stacks, for idleLinger).
	maxIdle = 8192
	// idleLinger is how long idle workers wait for an execution before
	// they end.
	idleLinger = 50 * time.Millisecond
	// matchDepth is how deep in the idle pool a worker that carries the
	// test's label is looked for.
	matchDepth = 8
)

// idle is the process's pool of idle workers. Its lock is taken from the
// goroutines of executions, hidden from the race detector (the pool is not
// used under it but to count).
var idle struct {
	sync.Mutex
	ws      []idleWorker // a stack: the most recently parked last
	used    bool         // the pool was used since the janitor last looked
	janitor bool         // the janitor runs
}

// An idleWorker is a worker in the idle pool, with the test label it
// carries: looking for a worker of the test reads the pool's array alone,
// not thousands of cold workers.
type idleWorker struct {
	w    *worker
	test string
}

var workerSeq atomic.Uint64

// running counts the executions under way in the process (Run).
var running atomic.Int64

// janitors counts the janitors started: goroutines that an execution
// starts and that are not its workers (see Controller.findEscapes).
var janitors atomic.Uint64

// acquireWorker returns a worker parked on its wake channel, to run g: an
// idle one if there is, a new one otherwise. newWorker reports whether it
// started a goroutine.
//
//go:norace
func acquireWorker(g *G, f func(), test string) (w *worker, started bool) {
	if !race.Enabled {
		w = takeIdle(test)
	}
	if w == nil {
		w = &worker{wake: make(chan struct{}), num: strconv.FormatUint(workerSeq.Add(1), 10)}
		started = true
	}
	w.g, w.f = g, f
	g.w = w
	if started {
		helpers.Add(1)
		go w.loop()
	}
	return w, started
}

// helpers counts weft's own goroutines: workers (running a controlled
// goroutine, or idle), their janitor, and the race detector's advisers.
// Each is counted from before its go statement to its last deferred call.
var helpers atomic.Int64

// outsideGoroutines counts the process's goroutines but weft's own and the
// caller: what G.Goroutines adds to an execution's own.
func outsideGoroutines() int {
	return max(runtime.NumGoroutine()-int(helpers.Load())-1, 0)
}

// takeIdle takes an idle worker from the pool, preferring one that carries
// test's label; nil if the pool is empty.
//
//go:norace
func takeIdle(test string) *worker {
	idle.Lock()
	defer idle.Unlock()
	n := len(idle.ws)
	if n == 0 {
		return nil
	}
	idle.used = true
	pick := n - 1
	for i := n - 1; i >= max(0, n-matchDepth); i-- {
		if idle.ws[i].test == test {
			pick = i
			break
		}
	}
	w := idle.ws[pick].w
	idle.ws[pick] = idle.ws[n-1]
	idle.ws[n-1] = idleWorker{}
	idle.ws = idle.ws[:n-1]
	return w
}

// park puts w in the idle pool; false if the pool is full.
//
//go:norace
func park(w *worker) bool {
	idle.Lock()
	defer idle.Unlock()
	if len(idle.ws) >= maxIdle {
		return false
	}
	idle.ws = append(idle.ws, idleWorker{w, w.test})
	if !idle.janitor {
		idle.janitor = true
		janitors.Add(1)
		helpers.Add(1)
		gls.Go(janitor) // not a goroutine of the execution
	}
	return true
}

// janitor ends the idle workers once the pool has not been used, and no
// execution has run, for idleLinger; then it ends itself.
func janitor() {
	defer helpers.Add(-1)
	for {
		time.Sleep(idleLinger)
		idle.Lock()
		if idle.used || running.Load() > 0 {
			idle.used = false
			idle.Unlock()
			continue
		}
		idle.janitor = false
		idle.Unlock()
		retireIdle()
		return
	}
}

// retireIdle ends every idle worker: the janitor's work, and an escape's
// (an escaped goroutine carries the label set of the worker it was started
// from, and would take the identity of the next goroutine that worker
// runs).
func retireIdle() {
	idle.Lock()
	ws := idle.ws
	idle.ws = nil
	idle.Unlock()
	for _, x := range ws {
		x.w.g = nil
		x.w.wake <- struct{}{}
	}
}

// loop is the body of a worker's goroutine: it runs the controlled
// goroutine it is given when it is first handed the baton, and then the
// next ones while it is pooled.
//
//go:norace
func (w *worker) loop() {
	defer helpers.Add(-1)
	for {
		race.Disable()
		<-w.wake
		race.Enable()
		// A pooled worker keeps nothing of the goroutine it ran: its G
		// would keep the whole execution reachable (the controller, every
		// goroutine's state and what their timers hold), one execution per
		// idle worker.
		g, f := w.g, w.f
		s, from, res := w.seq, w.from, w.res
		w.g, w.f, w.seq, w.from, w.res = nil, nil, nil, nil, nil
		var reuse bool
		switch {
		case s != nil:
			reuse = s.carry(w, from, res)
		case g != nil:
			reuse = g.c.goroutine(g, f)
		}
		if !reuse || !park(w) { // or retired
			w.bind.Release()
			return
		}
	}
}

// workerLoop is the function every worker runs, at the bottom of its
// stack.
const workerLoop = "github.com/weftdev/weft/sched.(*worker).loop"

// OnWorker reports whether the calling goroutine is one of weft's workers,
// running a controlled goroutine, rather than a goroutine started with a
// plain go statement (by code weft does not instrument), which inherits
// the identity of the controlled goroutine that started it: Current
// returns that one, which may hold the baton while the plain goroutine
// runs. It walks the caller's whole stack: for rare paths.
func OnWorker() bool {
	pcs := make([]uintptr, 64)
	for {
		n := runtime.Callers(2, pcs)
		if n < len(pcs) {
			pcs = pcs[:n]
			break
		}
		pcs = make([]uintptr, 2*len(pcs))
	}
	frames := runtime.CallersFrames(pcs)
	for {
		f, more := frames.Next()
		if f.Function == workerLoop {
			return true
		}
		if !more {
			return false
		}
	}
}

// label gives w the profiler labels of goroutine g and makes gls.Get
// return g on it.
//
//go:norace
func (w *worker) label(g *G) {
	test := g.c.opts.Name
	// The labels are checked too: a goroutine it ran may have replaced
	// them (pprof.SetGoroutineLabels), and Get would not find g.
	if !w.bind.Held() || w.test != test {
		w.bind.Release()
		w.bind = gls.Bind(nil, "weft.test", test, "weft.w", w.num)
		w.test = test
	}
	w.bind.Set(&g.self)
	// The mark of a worker's goroutine, which Claim tests: a goroutine
	// started from it carries its labels, not its mark.
	debug.SetPanicOnFault(true)
}
