// Package sched is weft's schedule controller: it runs the goroutines of an
// execution one at a time, pausing each before every operation of a weft
// primitive (an event) and asking a Strategy which enabled goroutine runs
// next, as the schedule controller of DPAC does for Java threads.
//
// Exactly one controlled goroutine runs at a time: the running goroutine
// itself makes each scheduling decision and hands the baton to the next one
// over that goroutine's own channel, so there is no scheduler goroutine and
// a switch costs about one channel handoff. Everything between two events
// runs alone, which makes an execution a deterministic function of its
// choices.
//
// The controller also owns the virtual clock, on which time passes as it can
// in Go: every event takes Tick, a timer fires when it is due or, at a
// strategy's choice, earlier, while goroutines that could run have not, and
// the clock jumps to the next deadline when nothing can run (see clock.go).
// It keeps the set of goroutines that can run incrementally, so that a
// decision costs the same with ten goroutines or a hundred thousand (see
// wait.go); counts a goroutine that polls without anything changing as
// waiting (see G.Polled); offers strategies what fairness needs
// (Decision.Starving); names goroutines by lineage so that the same program
// yields the same names on every run; and detects deadlocks, leaks,
// runaway executions and goroutines that block outside its knowledge,
// telling those apart from goroutines that merely kept running after the
// test returned.
//
// Primitives (package sim) use it through Current, G.Step, G.Touch,
// G.Recheck, G.Polled and the Waiter interface; exploration (package
// explore) through Run and Strategy.
package sched

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/weftdev/weft/internal/fnv"
	"github.com/weftdev/weft/internal/gls"
	"github.com/weftdev/weft/internal/lineage"
	"github.com/weftdev/weft/internal/race"
	"github.com/weftdev/weft/internal/racereport"
)

// Defaults for Options.
const (
	// DefaultMaxSteps admits ordinary long tests (a few million lock
	// operations) and still ends a livelock within a few seconds.
	DefaultMaxSteps     = 1 << 22
	DefaultBlockTimeout = 2 * time.Second
	// AfterFires bounds the timers that fire once the test body has
	// returned. The goroutines left run on, so that a goroutine that would
	// block for good after a last sleep is found out; but a loop on a
	// ticker never ends: goroutines still there when the bound is reached
	// kept running after the test (Result.KeptRunning), as they would
	// under go test.
	AfterFires = 64
)

// Options configure one execution.
type Options struct {
	// MaxSteps bounds the events of an execution that are explored: the
	// strategy decides up to it. Past it (and past what pending timers
	// add), the execution runs on unexplored, for Overruns times MaxSteps
	// more, then fails as a Runaway. Zero means DefaultMaxSteps.
	MaxSteps int
	// Overruns is how many budgets of MaxSteps events an execution that
	// spent its budget runs on, unexplored, before it is a Runaway. Zero
	// means OverrunBudgets; negative, none: MaxSteps is then a hard limit,
	// for replays that bound a search (minimization).
	Overruns int
	// TimeLimit bounds the virtual time of an execution whose goroutines
	// all wait: when none can run and the next timer is due past it, the
	// execution fails as a Timeout instead of firing the timer, as go
	// test fails a test that runs past its -timeout. Virtual time passes
	// no faster than real time would, so a test that passes under go
	// test with that -timeout never reaches it. Zero means no limit: the
	// clock moves on, and a ticker that keeps firing ends as a Runaway.
	TimeLimit time.Duration
	// BlockTimeout bounds how long a controlled goroutine may stay blocked
	// outside weft's knowledge before the execution fails as Blocked. Zero
	// means DefaultBlockTimeout.
	BlockTimeout time.Duration
	// Trace records every event with its call site in Result.Trace. It
	// costs about a microsecond an event. An execution of more than
	// MaxTrace events keeps its last MaxTrace.
	Trace bool
	// TraceFrom, with Trace, leaves the events before it untraced: a
	// replay of an execution of known length that keeps only its last
	// MaxTrace events (a runaway's) need not resolve the sites of the
	// millions before them.
	TraceFrom int
	// Stacks, with Trace, records the call stack of every traced event in
	// Event.Stack, for profiles (see package internal/contention).
	Stacks bool
	// Name labels the execution's goroutines in profiles, e.g. the test's
	// name.
	Name string
	// Digests fills Result.Digests with what each goroutine read (see
	// G.Observe), so that a replay can be checked against its recording.
	Digests bool
	// Epoch is the virtual clock's time when the execution starts, so
	// that executions that must agree on absolute times (the executions
	// and replays of one test) share one: weft.Check takes the wall
	// clock's time when the test starts, later than any time.Now taken at
	// package init or by an earlier test. Zero means the wall clock's time
	// when Run is called.
	Epoch time.Time
	// StrictLeaks makes goroutines that kept running after the test body
	// returned a Leak failure, as goleak would, instead of a note in
	// Result.KeptRunning.
	StrictLeaks bool
	// Rewritten says that the execution runs code that weft test
	// rewrote, whose go statements all became sim.Go: a goroutine that a
	// plain go statement started from a controlled one was then started
	// by code weft does not rewrite (a package the safety net skipped, a
	// site left alone), and it leaves the execution at its first weft
	// operation, as one the standard library started always does (see
	// G.Claim), rather than being taken for its starter. Without it, such
	// a goroutine is taken for its starter while the starter holds the
	// baton, and fails the execution as an Escape otherwise: a go
	// statement of a test that uses weft's primitives itself, which
	// should have been sim.Go.
	Rewritten bool
	// Verify checks, at every decision, the incrementally kept set of
	// enabled goroutines against every live goroutine's Waiter, and panics
	// if they differ: a primitive that changed an object without telling
	// the controller (G.Touch). It costs time linear in the number of
	// goroutines at every decision: for weft's own tests.
	Verify bool

	ungrouped  bool // no groups of waiters (see group.go): for tests that compare
	heapTimers bool // every timer in the heap, none in the queue of timers set in order (see timerqueue.go): for tests that compare
}

// Result is the outcome of one execution.
type Result struct {
	// Failure is the first failure, or nil if the execution passed.
	Failure *Failure
	// More are the failures after the first (further Errorf calls, say).
	More []*Failure
	// Steps counts the events.
	Steps int
	// Overran reports that the execution spent its budget of explored
	// events (Options.MaxSteps) and ran on unexplored to its end.
	Overran bool
	// Decisions counts the scheduling points at which the strategy chose
	// among several goroutines, or between goroutines and the clock.
	Decisions int
	// Hash digests the sequence of events (goroutine, operation, object,
	// choices): equal hashes mean, with overwhelming likelihood, equal
	// executions.
	Hash uint64
	// Goroutines counts the controlled goroutines, the root included.
	Goroutines int
	// Elapsed is the virtual time that passed.
	Elapsed time.Duration
	// KeptRunning lists the goroutines that were still running, or could
	// still be woken by a timer, when the execution ended after the test
	// body returned: AfterFires timers later, or at Options.MaxSteps. They
	// are not a failure (unless Options.StrictLeaks), as under go test.
	KeptRunning []Waiting
	// Trace holds every event, with Options.Trace (the last MaxTrace of
	// a longer execution).
	Trace []Event
	// Digests holds, with Options.Digests, a digest of the values each
	// goroutine read, by lineage.
	Digests map[string]Digest

	c *Controller // the controller it lives in, if Release may reuse it

	// The choices of the execution that differ from the default policy,
	// as Schedule returns them: built on the first call (built) from the
	// record of the controller they are from, for a long execution's
	// Schedule takes 112 bytes a choice, and most executions' are never
	// read (an exploration's passing ones). from is nil once nothing is
	// left to build.
	schedule Schedule
	from     *Controller
	built    bool // under from.schedMu
}

// A Digest chains the values a goroutine read, in order: two runs whose
// goroutines read the same values in the same order have equal digests.
type Digest struct {
	Ops   uint64 // the goroutine's operations (G.Ops), filled in Result.Digests
	Reads uint64 // how many values were observed
	Hash  uint64
}

// Add chains one more value into d.
//
//go:norace
func (d *Digest) Add(v uint64) {
	if d.Reads == 0 {
		d.Hash = fnv.Offset
	}
	d.AddPrimed(v)
}

// Prime readies d for AddPrimed: the hash of no value, as Add starts it
// at the first. A primed digest is Add's once a value was added; Sum
// gives it before.
//
//go:norace
func (d *Digest) Prime() { d.Hash = fnv.Offset }

// AddPrimed is Add on a primed digest, without Add's test for the first
// value: a recorded goroutine's reads, on the hottest path of a recording.
//
//go:norace
func (d *Digest) AddPrimed(v uint64) {
	d.Reads++
	// One multiply and a shift: each step is a bijection of the value
	// for a given hash, so one changed value always changes the hash.
	h := (d.Hash ^ v) * 0x9e3779b97f4a7c15
	d.Hash = h ^ h>>29
}

// Sum returns the digest Add would have made of the values added to d,
// primed (its hash 0 if there were none).
//
//go:norace
func (d Digest) Sum() Digest {
	if d.Reads == 0 {
		d.Hash = 0
	}
	return d
}

// An Event is one scheduling point of an execution, as recorded in a trace.
type Event struct {
	G    string // goroutine lineage
	N    int    // the goroutine's event counter
	Ops  int    // the goroutine's operation counter (see G.Ops)
	Op   string
	Obj  uint32 // the object operated on, numbered in order of first use; 0 for none
	Site string // file:line of the user code that performed the operation
	// At is the virtual time of the event, since the execution's start.
	At time.Duration
	// Stack holds the program counters of the goroutine's stack at the
	// event, innermost first (as runtime.Callers returns them), with
	// Options.Stacks; weft's own frames are among them.
	Stack []uintptr
}

var execSeq atomic.Uint64

// Executions returns how many executions this process has started: a
// test's first execution may start from what earlier ones left (package
// variables, a registry, a closed default pool).
//
//go:norace
func Executions() uint64 { return execSeq.Load() }

// A Controller runs one execution. Its state is only touched by the running
// goroutine, with the baton handoffs ordering every access; the few fields
// the watchdog reads from outside are atomic.
type Controller struct {
	strat Strategy
	obs   Observer // strat, if it observes
	hz    Horizon  // strat, if it has a horizon
	// strat, if it prioritizes and the decisions before index steady
	// may be taken without it (see Prioritizer)
	prio   Prioritizer
	steady int
	opts   Options
	seq    uint64 // the execution's number in the process

	root       *G
	all        []*G       // every goroutine, in creation order
	slab       []G        // where newG takes its next goroutines from
	slabs      [][]G      // the slabs allocated beyond slabBuf
	spare      spares     // what an earlier execution left (see reuse.go)
	sites      *siteCache // the sites of a traced execution's events
	schedMem   Schedule   // the Result's Schedule's backing array, if not schedBuf
	allBuf     [4]*G      // all's first backing array
	nlive      int        // goroutines not yet exited
	outside    int        // the process's goroutines at the start that are not weft's (G.Goroutines)
	attachment any        // a layer's state for the execution (Attachment)
	cands      candidates // the goroutines a decision may run
	decision   Decision   // scratch for decide
	rootDone   bool
	aborting   bool

	steps      int
	extra      int  // events added to the budget for pending timers (timeRunsOut)
	extensions int  // how many times
	overran    bool // the budget is spent: the execution runs on unexplored (overrun)
	sliceFrom  int  // the event at which the goroutine running unexplored began its slice
	vainFrom   int  // the event at which pollers had spent their maxRounds rounds in vain (loopsOn); 0: none
	nudges     int  // the stall rounds that moved the clock since the last change (unstall)
	clockRead  bool // a goroutine looked at the clock (G.Now) since the last stall round
	decisions  int
	hash       uint64
	objects    uint32
	choices    chunks[choice]
	trace      []tracePoint
	traced     int // events traced: past MaxTrace, trace is a ring

	// Waiting (wait.go).
	watchers    [][]watch     // by object: the goroutines whose Waiter depends on it
	watchBuf    [4][]watch    // watchers' first backing array
	grouped     [][]*group    // by object: the groups of its waiters (group.go)
	unowned     []watch       // Waiters that name no object: asked at every decision
	dirty       []uint32      // objects changed since the last decision
	woken       []*G          // goroutines woken by name since the last decision
	wokenBuf    [4]*G         // woken's first backing array
	dirtyBuf    [4]uint32     // dirty's first backing array
	stale       []*G          // pollers that wait for a change
	goStale     []*G          // pollers of Go channels alone, stale until one of theirs changes (gopoll.go)
	goStaleN    int           // those of goStale still stale
	goWaiting   goTable       // by Go channel: its stale pollers
	goLooked    int64         // the virtual time of the last round of goTick
	values      []objValue    // by object: what the controller knows of its value (spin.go)
	spinners    []*spinWaiter // by object: the Waiter of its spinners in this round
	spinObjs    []uint32      // the objects with spinners in this round
	spinRound   uint32        // stall rounds that released the spinners
	changes     uint64        // changes of the execution's state so far
	rounds      int           // stall rounds of the pollers without a change
	waited      time.Duration
	visits      int           // operations of goroutines outside the execution performed (visit.go)
	visitWait   time.Duration // real time waited for the next since the last, while nothing else could run
	visitHeld   time.Duration // all of it
	outsideMark uint64        // outsideOps when the execution started

	dueSince int // the step at which the earliest timer was first seen due, 0 if none is (fairness)
	firedAt  int // the step at which the clock last fired a timer (unexplored)
	// What starving found last: no candidate starves up to step
	// calmUntil while the candidates stay as they were at calmGen.
	calmGen   uint64
	calmUntil int
	calmOld   int32 // the index of the candidate that had waited longest then

	// The clock (clock.go).
	epoch  time.Time
	now    int64 // virtual nanoseconds since epoch
	timers timerQueue
	tseq   uint64

	afterFires  int // timers fired since the root returned
	keptRunning []Waiting

	failure *Failure
	more    []*Failure

	cur       atomic.Pointer[G] // the goroutine holding the baton
	back      backs             // goroutines away in the network (away.go)
	progress  atomic.Uint64     // the moves published to observers (see moves)
	moved     atomic.Bool       // a move was published since an observer last looked
	abandoned atomic.Bool       // the watchdog gave up on the execution
	ended     atomic.Bool       // in a sequence: the execution ended, or was abandoned (see sequence.go)
	relays    atomic.Uint64     // in a sequence: relays started during the execution
	dumping   atomic.Bool       // the controller reads every goroutine's stack (goroutineStacks)
	stuck     *G                // the goroutine the watchdog gave up on; set before abandoned
	scan      int               // where aborting looks for the next live goroutine
	done      chan struct{}     // sent to when the last goroutine exits (doneChans)
	drained   chan struct{}     // abandoned: closed when every goroutine but the stuck one exited; made by the watchdog

	// live is seq while the execution runs, for goroutines outside it
	// (Outside); 0 once its result is taken.
	live    atomic.Uint64
	escMu   sync.Mutex // guards escapes: written by goroutines that are not controlled
	escapes []*Failure
	// escapedSome: goroutines escaped the execution (its Result's failure
	// says so), and may still hold its goroutines' identities: the
	// controller is not reused (see Result.Release).
	escapedSome bool
	created     uint64 // goroutines the process had created when the execution started
	janitor     uint64 // janitors started when the execution started (see worker.go)
	end         window // what findEscapes read at the end
	metric      [1]metrics.Sample
	workers     int // workers started for the execution (see worker.go)

	// Under the race detector (see race.go):
	adv      *adviser            // the strategy's goroutine (see adviser.go)
	raceLog  *racereport.Session // its reports
	raceSeen int                 // its count of reports, as last checked
	raceJoin byte                // the address every goroutine's exit releases
	raceInit byte                // the address Run releases once the controller is set up

	// The execution's Result, its Schedule's first backing array and the
	// first slab of goroutines: in the controller, one allocation instead
	// of four for a small execution. Last, away from the fields every
	// event reads.
	res      Result
	schedMu  sync.Mutex // held by Result.Schedule as it builds res.schedule
	schedBuf [2]Choice
	slabBuf  [4]G
}

// choice is a Choice as recorded during the execution: compact and without
// pointers, so that a long execution's log costs the garbage collector
// nothing; result turns it into a Choice.
type choice struct {
	g, next int32 // goroutine indices; next is -1 for a Pick, -2 for the clock
	n       int32
	sub     int32
	value   int32
	of      int32
	op      uint32
	kind    ChoiceKind
	preempt bool
}

type tracePoint struct {
	g     *G
	n     int
	ops   int
	op    *Op
	obj   uint32
	site  string
	at    int64
	stack []uintptr
}

// A G is a controlled goroutine.
type G struct {
	c        *Controller
	id       string // lineage: "0" for the root, "0.2" for its second child
	idx      int    // creation order
	children lineage.Children
	n        int    // events (scheduling points) so far
	ops      int    // operations so far: events but for continuations
	wait     Waiter // what the pending operation waits for; nil: ready
	op       *Op    // the pending operation
	cases    []int  // the cases a select chooses among (ChooseCase)
	reads    Digest
	w        *worker // the goroutine it runs on
	self     any     // g itself, what gls.Get returns on its worker
	site     string  // the pending operation's site, if the execution is traced
	obj      uint32  // the pending operation's object
	yield    bool
	done     bool

	prio    int64  // the strategy's priority (SetPriority)
	since   int    // the step at which it last became fresh, having run since the time before
	wgen    uint32 // generation of its current wait: registrations of older ones are void
	cand    bool   // enabled: its pending operation can proceed
	fresh   bool   // enabled and not a stale poller: in the controller's candidates
	overdue bool   // fresh since it last ran, maybe not all along (see setFresh)
	stale   bool   // a poller waiting for a change

	polls     int    // its polls since the last change, in a row
	pollMark  uint64 // the controller's changes at the first of them
	readMark  uint64
	rereads   int
	readObj   uint32    // the object of its last reads in a row
	pollEvent bool      // its current event is a poll
	goChange  bool      // its current event moved a Go channel's value (Changed), whatever its operation
	outside   bool      // one of them polled something outside weft
	goPoll    bool      // they poll Go channels alone (PollGo): pollMark counts goWakes
	waits     bool      // one of them is no load (a yield, a select's default, a failed TryLock): see loopsOn
	goChans   []uintptr // the Go channels of its last PollGo
	goWakes   uint64    // the times a change of its Go channels or a stall round woke it

	spin       spin   // the spin loop it is in, if any (spin.go)
	seen       uint64 // the digest of the value its current event read (Observe)
	wrote      uint64 // the digest of the value its current event left (Wrote)
	observed   bool   // its current event read a value (Observe)
	wroteValue bool   // its current event told the value it left (Wrote)
	yieldEvent bool   // its current event is a yield (Yield)

	grp *group // the group it waits in, if any: then cand and fresh are its

	away atomic.Int32 // awayHome, awayOut or awayBack (away.go)

	sleep Timer // the timer of its sleeps (Sleep)

	// For a goroutine dump (Dump): the goroutine that started it (nil for
	// the root), the entry of the function it runs, and whether a go
	// statement started it (G.Go) rather than a timer (G.Spawn).
	parent *G
	fn     uintptr
	goStmt bool
}

// ID returns the goroutine's lineage: "0" is the root, "0.2" the root's
// second child, "0.2.1" that one's first.
//
//go:norace
func (g *G) ID() string { return g.id }

// Index returns the goroutine's position in creation order, from 0.
//
//go:norace
func (g *G) Index() int { return g.idx }

// Events returns how many events (scheduling points) the goroutine has
// reached. Schedules name their choices by it.
//
//go:norace
func (g *G) Events() int { return g.n }

// Ops returns how many operations the goroutine has begun: its events, but
// for the continuations of an operation that waits (Park). Unlike Events,
// it does not depend on whether an operation had to wait, so a free-running
// recorder counts the same: a recorded access and its replayed twin are
// the goroutine's same operation.
//
//go:norace
func (g *G) Ops() int { return g.ops }

// Site returns the file:line of the user code that performs the goroutine's
// pending operation, if the execution is traced (Options.Trace); "" if not.
//
//go:norace
func (g *G) Site() string { return g.site }

// Op returns the goroutine's pending operation.
//
//go:norace
func (g *G) Op() *Op { return g.op }

// Obj returns the object of the goroutine's pending operation, numbered in
// order of first use in the execution; 0 for none (or several: a select).
//
//go:norace
func (g *G) Obj() uint32 { return g.obj }

// Observe chains a value the goroutine read (a digest of it) into the
// goroutine's Digest; replays compare them with the recorded run's.
//
//go:norace
func (g *G) Observe(v uint64) {
	g.reads.Add(v)
	g.seen, g.observed = v, true
}

// Cases returns the case indices a select is choosing among, during a call
// to Strategy.Choose made by ChooseCase; nil otherwise.
//
//go:norace
func (g *G) Cases() []int { return g.cases }

// Attachment returns the execution's attachment, made by init at the first
// call: the state a layer over the controller keeps for one execution,
// which then lives and dies with it (sim numbers there the addresses that
// atomic functions use; a table outside the execution would hold them, and
// every execution's memory with them). Only the goroutine that holds the
// baton may call it.
//
//go:norace
func (c *Controller) Attachment(init func() any) any {
	if c.attachment == nil {
		c.attachment = init()
	}
	return c.attachment
}

// Controller returns the goroutine's controller.
//
//go:norace
func (g *G) Controller() *Controller { return g.c }

// Run executes body as the root goroutine of a new controlled execution,
// with strategy making the decisions, and returns when every controlled
// goroutine has exited, or when one has blocked outside the controller for
// longer than Options.BlockTimeout.
func Run(body func(), strategy Strategy, opts Options) *Result {
	running.Add(1) // idle workers stay (see worker.go)
	defer running.Add(-1)
	c := setup(strategy, opts, window{})
	race.Release(unsafe.Pointer(&c.raceInit))
	c.start(c.root, body)
	c.root.w.wake <- struct{}{}
	return c.finish(c.watch())
}

// setup returns a controller ready to run an execution under strategy and
// opts, its root made but not started. since, if not zero, is what
// findEscapes read at the end of the execution before, on the calling
// goroutine, which started no goroutine since: the start of this one.
func setup(strategy Strategy, opts Options, since window) *Controller {
	if opts.MaxSteps <= 0 {
		opts.MaxSteps = DefaultMaxSteps
	}
	if opts.BlockTimeout <= 0 {
		opts.BlockTimeout = DefaultBlockTimeout
	}
	if opts.Epoch.IsZero() {
		opts.Epoch = time.Now()
	}
	c := newController()
	c.strat = strategy
	c.obs, _ = strategy.(Observer)
	c.hz, _ = strategy.(Horizon)
	c.prio, c.steady = nil, 0
	if !race.Enabled {
		// Under the race detector the strategy is asked on its own
		// goroutine (adviser.go), Steady as well as Next.
		c.prio, _ = strategy.(Prioritizer)
	}
	c.opts = opts
	c.seq = execSeq.Add(1)
	c.live.Store(c.seq)
	c.outsideMark = outsideOps.Load()
	c.hash = fnv.Offset
	c.epoch = opts.Epoch.Round(0) // wall clock only: virtual times carry no monotonic reading
	c.done = doneChans.Get().(chan struct{})
	c.all = c.allBuf[:0]
	if c.spare.all != nil {
		c.all = c.spare.all
	}
	c.slab = c.slabBuf[:]
	c.slabs = c.spare.slabs[:0]
	c.values = c.spare.values
	c.watchers = c.watchBuf[:0]
	c.woken, c.dirty = c.wokenBuf[:0], c.dirtyBuf[:0]
	c.cands.init(&c.all, &c.spare.cands)
	c.timers.heapOnly = opts.heapTimers
	if opts.Trace {
		c.trace = make([]tracePoint, 0, 256)
	}
	c.outside = outsideGoroutines()
	if race.Enabled {
		c.startAdviser()
		c.raceBegin()
	}
	if since.created == 0 {
		since = window{c.goroutinesCreated(), janitors.Load()}
	}
	c.created, c.janitor = since.created, since.janitors
	c.root = c.newG(nil)
	c.cur.Store(c.root)
	return c
}

// finish returns the Result of the execution, which ended, or was
// abandoned with Result blocked.
func (c *Controller) finish(blocked *Result) *Result {
	if race.Enabled {
		c.stopAdviser()
		c.raceFinish(blocked != nil)
	}
	if blocked != nil {
		return blocked
	}
	r := c.result()
	if !race.Enabled && !c.escapedSome {
		r.c = c // no goroutine of the execution is left: it may be reused
	} else {
		// A goroutine of the execution may still use the controller (see
		// Result.c): the schedule is built while it is the execution's.
		r.Schedule()
	}
	return r
}

//go:norace
func (c *Controller) newG(parent *G) *G {
	if len(c.slab) == 0 {
		// Goroutines are allocated in slabs that double, up to 256; a
		// reused controller's come first (see spares).
		if k := len(c.slabs); k < len(c.spare.slabs) {
			c.slab = c.spare.slabs[k]
		} else {
			c.slab = make([]G, min(max(4, len(c.all)), 256))
		}
		c.slabs = append(c.slabs, c.slab)
	}
	g := &c.slab[0]
	c.slab = c.slab[1:]
	g.c, g.idx = c, len(c.all)
	g.self = g
	g.parent, g.fn, g.goStmt = parent, 0, false
	if parent == nil {
		g.id = lineage.Root
	} else {
		g.id = parent.children.Next(parent.id)
	}
	c.all = append(c.all, g)
	c.nlive++
	c.spawned(g)
	return g
}

// start gives controlled goroutine g a worker that runs f when g is first
// handed the baton.
//
//go:norace
func (c *Controller) start(g *G, f func()) {
	if _, started := acquireWorker(g, f, c.opts.Name); started {
		c.workers++
	}
}

// goroutine runs controlled goroutine g on its worker, once g is first
// handed the baton: the worker binds g's identity then, so that a hundred
// thousand goroutines started in a loop cost the loop no more than their
// go statements. It reports whether the worker may run another goroutine;
// a goroutine that ends with runtime.Goexit ends its worker too.
//
//go:norace
func (c *Controller) goroutine(g *G, f func()) (reuse bool) {
	// A goroutine that a timer starts, from inside a step, does not inherit
	// its starter's happens-before state: it needs the controller's.
	race.Acquire(unsafe.Pointer(&c.raceInit))
	if c.aborting || c.abandoned.Load() {
		reuse = !race.Enabled && !c.abandoned.Load()
		c.exit(g, reuse)
		return reuse
	}
	g.w.label(g)
	normal := false
	defer func() {
		var r any
		if !normal {
			r = recover()
		}
		if c.cur.Load() != g && !c.abandoned.Load() {
			c.rejoin(g) // back from the network to exit (away.go)
		}
		if !normal {
			// recover returns nil when the goroutine is exiting through
			// runtime.Goexit (Fatalf, or an abort). Panics raised while
			// the execution unwinds are consequences, not causes.
			if r != nil && !c.aborting && !c.abandoned.Load() {
				c.panicked(g, r)
			}
		}
		goexit := !normal && r == nil
		reuse = !goexit && !race.Enabled && !c.abandoned.Load()
		c.exit(g, reuse)
	}()
	if race.Enabled {
		raceChain(raceMark(c, g), raceIndexBits+raceSeqBits, f)
	} else {
		f()
	}
	normal = true
	return
}

//go:norace
func (c *Controller) panicked(g *G, r any) {
	site, stack := userSite(string(debug.Stack()))
	msg := fmt.Sprint(r)
	c.fail(&Failure{Kind: Panic, Goroutine: g.id, Message: msg, Site: site, Stack: stack})
	c.aborting = true
}

// Current returns the controlled goroutine the caller runs on, or nil when
// the caller is not controlled (plain mode). A goroutine started with a plain
// go statement from a controlled one inherits its parent's identity: one
// that the standard library started leaves the execution (see Claim) and
// runs in plain mode; one that other code started, if it calls a weft
// primitive while another goroutine holds the baton, fails the execution
// as an Escape and exits.
func Current() *G {
	g, _ := gls.Get().(*G)
	if g == nil || g.Runs() {
		return g
	}
	return g.c.claimSlow(g)
}

// Claim returns g, the goroutine the caller's goroutine-local value names
// (gls.Get), for callers that look the value up themselves, as Current
// does, once Runs reported false; or nil if the caller is a goroutine that
// the standard library (or, under Options.Rewritten, code weft does not
// rewrite) started from g's (a server's handler): it carries g's identity,
// but is none of the execution's, and leaves it (see stray). If another
// goroutine holds the baton, the caller is an escaped goroutine, as for
// Current: the execution fails and the caller exits.
//
// The goroutines that run controlled ones, weft's workers, are marked
// (debug.SetPanicOnFault, a flag of the goroutine's own that a go
// statement does not copy): one test of the flag, at every event, tells a
// worker from a goroutine started from it (Runs). Runs's test marks the
// caller as it tests it, so Claim does not test it again: a second Runs
// would take a goroutine started from g's for g whenever g holds the
// baton. Claim is not inlined; the hottest paths write out Runs before it.
func (g *G) Claim() *G {
	return g.c.claimSlow(g)
}

// Runs reports whether g holds the baton and the caller is a worker, whose
// goroutine-local value is g (as the caller looked it up): Claim's fast
// path, inlined. If not, Claim tells what the caller is; Runs is not to be
// asked again before (it marked the caller).
//
//go:norace
func (g *G) Runs() bool {
	return g.c.cur.Load() == g && debug.SetPanicOnFault(true)
}

// claimSlow is Claim when another goroutine holds the baton, or the
// caller is not marked as a worker: a goroutine started from g's, or g's
// own worker whose mark the code it ran cleared. Runs's test marks the
// caller if g held the baton, so the mark tells nothing here: the caller's
// stack does (OnWorker), and its mark is then set as it should be.
//
//go:norace
func (c *Controller) claimSlow(g *G) *G {
	if !OnWorker() && c.stray(g) {
		return nil
	}
	debug.SetPanicOnFault(true)
	if c.cur.Load() != g {
		c.escaped(g)
	}
	return g
}

// stray handles a goroutine that carries g's identity but is not g's: one
// started with a plain go statement from g's goroutine, or from one that
// carries its identity in turn, and now at its first weft operation. One
// that the standard library started (net/http's, running a server's
// handler; time.AfterFunc's is sim's under weft test), or under
// Options.Rewritten any code but weft's (a package the safety net
// skipped: etcd raft's rafttest runs its nodes so), leaves the execution:
// its labels are cleared, its mark too (Claim's test set it), and it runs
// in plain mode from now on, as a goroutine started at package
// initialization does; stray reports true. Any other (a plain go statement
// of a test that uses weft's primitives itself) keeps the mark and g's
// identity: its operations are g's while g holds the baton, and an escape
// otherwise (Claim); it is marked, lest each of its operations take this
// slow path.
//
//go:norace
func (c *Controller) stray(g *G) bool {
	block := string(debug.Stack())
	if stdCreator(block) == "" && (!c.opts.Rewritten || plainCreator(block) == "") {
		return false
	}
	debug.SetPanicOnFault(false)
	gls.Leave()
	c.noteLeft(block) // its sleeps are on the execution's clock (see SleepLeft)
	return true
}

func (c *Controller) escaped(g *G) {
	if c.abandoned.Load() {
		runtime.Goexit() // a goroutine of an abandoned execution, ending
	}
	if c.rejoin(g) {
		return // back from the network (away.go)
	}
	block := string(debug.Stack())
	site, stack := userSite(block)
	// Not one the standard library started: that one left the execution
	// (stray).
	msg := "a goroutine started with a plain go statement (it inherits the identity of goroutine " + g.id + ") used a weft primitive; start it with sim.Go"
	c.escMu.Lock()
	c.escapes = append(c.escapes, &Failure{
		Kind:    Escape,
		Message: msg,
		Site:    site,
		Stack:   stack,
	})
	c.escMu.Unlock()
	runtime.Goexit()
}

// Step is a scheduling point: goroutine g is about to perform op on object
// obj (0 for none), which can proceed once w is ready (nil: at once). Step
// returns when g has been chosen to run and w is ready; the caller then
// performs the operation before its next event, alone.
//
// Once the execution is aborting (it failed) or abandoned (the watchdog
// gave up on it), Step ends the goroutine (runtime.Goexit) instead: its
// deferred calls run, and each weft operation in them ends it again, so
// that a goroutine that spins, in a deferred call or not, ends at its next
// operation, and nothing blocks.
//
//go:norace
func (g *G) Step(op *Op, obj uint32, w Waiter) {
	g.ops++
	g.c.step(g, op, obj, w, noPoll)
}

// StepReady is Step for an operation that can proceed at once (a nil
// Waiter): the same event, by a shorter path.
//
//go:norace
func (g *G) StepReady(op *Op, obj uint32) {
	g.ops++
	g.c.stepOn(g, op, obj)
}

// Park is a scheduling point in the middle of the operation g began at its
// last Step: g waits for w, as a WaitGroup.Wait that finds the counter
// above zero does. It is an event, but not a new operation.
//
//go:norace
func (g *G) Park(op *Op, obj uint32, w Waiter) {
	g.c.step(g, op, obj, w, noPoll)
}

// Yield is a scheduling point at which g asks to let other goroutines run:
// a poll (see Polled).
//
//go:norace
func (g *G) Yield(op *Op) {
	g.ops++
	g.c.step(g, op, 0, nil, pollInside)
}

// Poll is a scheduling point at which g waits by polling, as Yield does:
// it lets other goroutines run and counts as waiting (see Polled). outside
// says that what g polls can change without any event of the execution (a
// Go channel that weft does not control, say): when nothing else can
// progress, the controller then waits for it in real time, up to
// Options.BlockTimeout, before the execution fails as Blocked.
//
//go:norace
func (g *G) Poll(op *Op, outside bool) {
	g.ops++
	k := pollInside
	if outside {
		k = pollOutside
	}
	g.c.step(g, op, 0, nil, k)
}

// PollGo is a scheduling point at which g waits by polling chans alone,
// Go channels that weft does not control (named by their addresses): as
// Poll with outside, but once stale, g waits for one of chans to change
// (G.Changed) or for a stall round, not for any change of the execution
// (see gopoll.go).
//
//go:norace
func (g *G) PollGo(op *Op, chans []uintptr) {
	g.ops++
	g.goChans = g.goChans[:0]
	for _, ch := range chans {
		g.goChans = append(g.goChans, ch)
	}
	g.c.step(g, op, 0, nil, pollGo)
}

// How an event polls.
type pollKind uint8

const (
	noPoll      pollKind = iota
	pollInside           // Yield, Poll: waits for the execution's goroutines or time
	pollOutside          // Poll of something outside the execution
	pollGo               // PollGo: of Go channels alone
)

// Under the race detector, everything from the check for races to the
// return is hidden from it (race.Disable): the decision, the handoff to the
// next goroutine, and the wait for the baton.
//
//go:norace
func (c *Controller) step(g *G, op *Op, obj uint32, w Waiter, poll pollKind) {
	if c.aborting || c.abandoned.Load() {
		runtime.Goexit()
	}
	g.n++
	c.steps++
	c.now += int64(Tick)
	c.mix(uint64(g.idx)<<32 ^ uint64(obj))
	c.mix(op.hash)
	if c.trace != nil && c.steps >= c.opts.TraceFrom {
		c.traceEvent(g, op, obj)
	}
	if race.Enabled && c.raceCheck(g) {
		runtime.Goexit()
	}
	race.Disable()
	c.moves()
	c.account(g)
	if c.steps > c.opts.MaxSteps+c.extra {
		c.pastBudget(g)
	}
	g.op, g.obj, g.wait, g.yield = op, obj, w, poll != noPoll
	g.yieldEvent = poll == pollInside && obj == 0
	if w == nil && g.spinning() && c.spinsAt(g, op, obj) {
		// It waits for its object to change, not for any change.
		g.obj, g.wait, g.stale = g.spin.obj, c.spinWait(g), false
	}
	if op.access == Read && obj != 0 {
		c.pollRead(g, obj)
	} else {
		g.readObj = 0
	}
	if poll != noPoll {
		c.poll(g, poll, false)
	}
	if g.polls >= 2 {
		c.makeStale(g)
	}
	g.wgen++
	g.overdue = false // it ran: its wait starts now
	if g.wait == nil {
		c.setCand(g, true)
	} else {
		c.await(g)
	}
	// The checks of a decision that lets g run on come first, inlined: most
	// decisions are, and the loop of decide costs a dozen calls.
	if c.runsOn(g) {
		g.wgen++ // run(g), for a goroutine that runs on
		g.yield = false
	} else {
		c.pass(g)
	}
	g.wait = nil
	race.Enable()
}

// stepOn is step for an event that waits for nothing and does not poll (w
// nil, noPoll), as most are: a Var's access, an atomic operation, a lock
// taken at once. It does what step does, without what a nil Waiter and
// noPoll leave moot: g.wait and g.yield are nil and false between events,
// and stay so. A change to one is a change to the other
// (TestExecutionsAreStable runs both).
//
//go:norace
func (c *Controller) stepOn(g *G, op *Op, obj uint32) {
	if c.aborting || c.abandoned.Load() {
		runtime.Goexit()
	}
	g.n++
	c.steps++
	c.now += int64(Tick)
	c.mix(uint64(g.idx)<<32 ^ uint64(obj))
	c.mix(op.hash)
	if c.trace != nil && c.steps >= c.opts.TraceFrom {
		c.traceEvent(g, op, obj)
	}
	if race.Enabled && c.raceCheck(g) {
		runtime.Goexit()
	}
	race.Disable()
	c.moves()
	if g.changing() {
		// accountChange, inlined: most events follow a change.
		obj := g.obj
		if obj != 0 {
			c.changeValue(obj, g.wrote, g.wroteValue)
		}
		g.spin = spin{}
		g.polls, g.outside = 0, false
		if g.stale && g.goPoll {
			c.goPolledOn(g)
		}
		c.progressed()
		if obj != 0 && c.watched(obj) && (len(c.dirty) == 0 || c.dirty[len(c.dirty)-1] != obj) {
			c.dirty = append(c.dirty, obj)
		}
		g.pollEvent, g.goChange, g.observed, g.wroteValue = false, false, false, false
	} else {
		c.account(g)
	}
	if c.steps > c.opts.MaxSteps+c.extra {
		c.pastBudget(g)
	}
	g.op, g.obj, g.yieldEvent = op, obj, false
	if g.spinning() && c.spinsAt(g, op, obj) {
		g.obj, g.wait, g.stale = g.spin.obj, c.spinWait(g), false
	}
	if op.access == Read && obj != 0 {
		c.pollRead(g, obj)
	} else {
		g.readObj = 0
	}
	if g.polls >= 2 {
		c.makeStale(g)
	}
	g.wgen++
	g.overdue = false
	if g.wait == nil {
		c.setCand(g, true)
	} else {
		c.await(g)
	}
	// runsOn, inlined (g does not yield): the call and its frame were a
	// tenth of an event that runs on.
	if len(c.woken)+len(c.dirty)+len(c.unowned)+c.back.out == 0 && !c.opts.Verify && !c.overran &&
		g.grp == nil && g.fresh && c.timers.empty() &&
		(c.cands.len() == 1 && len(c.stale) == 0 || c.steadyOn(g)) {
		c.dueSince = 0
		c.mix(uint64(g.idx))
		c.ran(g)
		g.wgen++
	} else {
		c.pass(g)
	}
	if g.wait != nil {
		g.wait = nil
	}
	race.Enable()
}

// traceEvent traces g's event op on obj (Options.Trace), for step.
//
//go:noinline
//go:norace
func (c *Controller) traceEvent(g *G, op *Op, obj uint32) {
	p := tracePoint{g: g, n: g.n, ops: g.ops, op: op, obj: obj, at: c.now}
	if c.opts.Stacks {
		p.stack = callers(2)
	}
	if c.sites == nil {
		c.sites = new(siteCache)
	}
	g.site = c.sites.callerSite(2)
	p.site = g.site
	c.record(p)
}

// pastBudget is step's part for an event past the execution's budget of
// steps (Options.MaxSteps).
//
//go:norace
func (c *Controller) pastBudget(g *G) {
	if c.rootDone {
		c.keepRunning()
		goexit()
	}
	if !c.timeRunsOut() && !c.overrun() {
		c.runaway(g)
	}
}

// pass is the end of g's event when the decision may not let g run on:
// decide's, and the handoff to the goroutine it chose, after which g waits
// for its turn. It ends g if nothing can run any more, or if the execution
// is aborting or abandoned once it has its turn.
//
//go:norace
func (c *Controller) pass(g *G) {
	next := c.decide(g)
	if next != nil {
		c.run(next)
	}
	g.yield = false
	if next == nil {
		goexit()
	}
	if next != g {
		c.handoff(next)
		<-g.w.wake
		if c.aborting || c.abandoned.Load() {
			goexit()
		}
	}
}

// goexit ends the calling goroutine from inside a step, showing the race
// detector its synchronization again first.
func goexit() {
	race.Enable()
	runtime.Goexit()
}

// inTheOpen shows the race detector the synchronization of the calling
// goroutine again, inside a step, until race.Disable: for describing a
// failure, once the execution is over, with library code that synchronizes
// (fmt, the goroutine profile). Whatever the goroutine learns then does not
// matter any more.
func inTheOpen() { race.Enable() }

// MaxTrace bounds the events Options.Trace keeps: a runaway's trace keeps
// its last ones, which show what loops.
const MaxTrace = 1 << 16

// record traces an event.
//
//go:norace
func (c *Controller) record(p tracePoint) {
	if len(c.trace) < MaxTrace {
		c.trace = append(c.trace, p)
	} else {
		c.trace[c.traced%MaxTrace] = p
	}
	c.traced++
}

// run records that next is about to run: its wait is over (the
// registrations of its Waiter are void), and it has not waited since (for
// the goroutine that continues, starving brings that up to date when it
// matters). It stays a candidate until its next event says otherwise.
//
//go:norace
func (c *Controller) run(next *G) {
	if next.grp != nil {
		c.ungroup(next, true)
	}
	next.wgen++
	if next != c.cur.Load() {
		c.served(next)
	}
}

// served records that candidate g runs now: it has not waited since.
//
//go:norace
func (c *Controller) served(g *G) {
	g.since = c.steps
	switch {
	case g.grp != nil:
		c.cands.updateMember(g.grp, g)
	case g.fresh:
		// g's wait is now the shortest, and no priority changed: the
		// answers kept for the candidates (see starving and highest)
		// still hold, unless g was the one that had waited longest (or
		// tied with it, at this step).
		s := &c.cands
		calm := c.calmGen == s.gen && int32(g.idx) != c.calmOld && c.calmUntil-FairBound < c.steps
		hi := s.hiGen == s.gen
		s.updateLater(g)
		if calm {
			c.calmGen = s.gen
		}
		if hi {
			s.hiGen = s.gen
		}
	}
}

// rekey updates the candidates after g's priority or since changed.
//
//go:norace
func (c *Controller) rekey(g *G) {
	switch {
	case g.grp != nil:
		c.cands.updateMember(g.grp, g)
	case g.fresh:
		c.cands.update(g)
	}
}

// handoff passes the baton to next, which is parked on its wake channel:
// the only place where one controlled goroutine resumes another.
//
//go:norace
func (c *Controller) handoff(next *G) {
	if c.back.out > 0 && c.handAway(next) {
		return
	}
	c.cur.Store(next) // also tells the watchdog the execution moves
	next.w.wake <- struct{}{}
}

// Choose returns a value in [0, n) decided by the strategy, as part of g's
// current event: sim.Intn and select use it.
//
//go:norace
func (g *G) Choose(n int) int {
	c := g.c
	if n <= 1 || c.aborting {
		return 0
	}
	if c.overran {
		// Past the budget the strategy is not asked and nothing is
		// recorded: a stress test that draws millions of random values
		// would keep a choice of each.
		return int(g.Draw(uint64(n)))
	}
	v := c.choose(g, n)
	if v < 0 || v >= n {
		panic("weft: strategy chose a value out of range")
	}
	c.mix(uint64(v) | 1<<63)
	if v != 0 {
		c.choices.add(choice{g: int32(g.idx), n: int32(g.n), kind: PickChoice, op: g.op.id, next: -1, value: int32(v), of: int32(n)})
	}
	return v
}

// Unexplored reports whether g's execution runs on past its budget,
// unexplored (see Options.Overruns): its choices are then the execution's
// own (Draw), and no schedule records them.
//
//go:norace
func (g *G) Unexplored() bool { return g.c.overran }

// Draw returns a value in [0, n), n == 0 standing for 2^64, as part of g's
// current event of an unexplored execution: a pseudo-random function of
// the execution so far (its event hash and count), which every replay of
// the execution draws again, so that no schedule records it. Package sim
// draws a random number of any width at one event this way, where an
// explored one takes a choice of the schedule for each 16 bits.
//
//go:norace
func (g *G) Draw(n uint64) uint64 {
	c := g.c
	x := c.hash + uint64(c.steps)*0x9e3779b97f4a7c15 // splitmix64
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	x ^= x >> 31
	if n != 0 {
		x %= n
	}
	c.mix(x | 1<<63)
	return x
}

// ChooseCase returns one of cases, the indices of a select's ready cases,
// decided by the strategy, which can read them with G.Cases during the call.
//
//go:norace
func (g *G) ChooseCase(cases []int) int {
	g.cases = cases
	i := g.Choose(len(cases))
	g.cases = nil
	return cases[i]
}

// Go starts f as a new controlled goroutine, a child of g. The spawn is an
// event of g; the child starts enabled and runs when a strategy picks it.
//
//go:norace
func (g *G) Go(op *Op, f func()) {
	g.StepReady(op, 0)
	g.c.spawn(g, f).goStmt = true
}

// Spawn starts f as a new controlled goroutine, a child of g, without an
// event of g: for timers that fire (time.AfterFunc). Everything else uses Go.
//
//go:norace
func (g *G) Spawn(f func()) { g.c.spawn(g, f) }

//go:norace
func (c *Controller) spawn(parent *G, f func()) *G {
	child := c.newG(parent)
	child.fn = funcEntry(f)
	c.mix(uint64(child.idx) << 16)
	c.setCand(child, true)
	c.start(child, f)
	return child
}

// Goroutines is runtime.NumGoroutine as the execution's code sees it: the
// execution's goroutines that have not ended, and the goroutines of the
// process that were neither weft's nor the caller of Run (whom the root
// stands for) when the execution started. Pooled workers and weft's other
// goroutines do not count, so a test that compares the count before and
// after its work (a check for leaked goroutines) sees only its own, the
// same in every replay.
//
//go:norace
func (g *G) Goroutines() int { return g.c.outside + g.c.nlive }

// NewObject numbers an object (a mutex, a channel, ...) at its first use in
// the execution. Numbers are part of the trace and of the event hash.
//
//go:norace
func (g *G) NewObject() uint32 {
	g.c.objects++
	return g.c.objects
}

// exit ends goroutine g, on g, and passes the baton on. keep says that g's
// worker lives on, and keeps its labels.
func (c *Controller) exit(g *G, keep bool) {
	if race.Enabled {
		c.raceExit(g)
	}
	race.Disable()
	c.leave(g, keep)
	race.Enable()
}

// leave is exit's work, hidden from the race detector.
//
//go:norace
func (c *Controller) leave(g *G, keep bool) {
	if keep {
		g.w.bind.Set(nil)
	} else {
		g.w.bind.Release()
	}
	if c.abandoned.Load() {
		c.drain(g)
		return
	}
	if !c.aborting {
		c.account(g)
	}
	g.done = true
	g.wait = nil
	if g.grp != nil {
		c.ungroup(g, false)
	}
	c.setCand(g, false)
	c.nlive--
	if g == c.root {
		c.rootDone = true
	}
	if !c.aborting {
		g.n++
		c.steps++
		c.mix(uint64(g.idx)<<32 ^ opExit.hash)
		c.progressed() // a goroutine fewer: pollers look again
		if c.nlive == 0 {
			c.done <- struct{}{}
			return
		}
		if next := c.decide(g); next != nil {
			c.run(next)
			c.handoff(next)
			return
		}
	}
	if c.abandoned.Load() {
		// Abandoned while g decided: the watchdog's drain wakes the others.
		c.drain(g)
		return
	}
	// Aborting: wake the remaining goroutines one at a time; each exits
	// as soon as it runs, and passes the baton to the next.
	if c.nlive == 0 {
		c.done <- struct{}{}
		return
	}
	if next := c.nextLive(nil); next != nil {
		c.handoff(next)
	}
	// Else the watchdog abandoned the execution while g was leaving, and
	// drained the others: nothing is left to wake.
}

// nextLive returns the first goroutine, in creation order, that has not
// exited and is not skip.
//
//go:norace
func (c *Controller) nextLive(skip *G) *G {
	for c.scan < len(c.all) && (c.all[c.scan].done || c.all[c.scan] == skip) {
		c.scan++
	}
	if c.scan == len(c.all) {
		return nil
	}
	return c.all[c.scan]
}

// drain ends g in an abandoned execution. The watchdog wakes the parked
// goroutines one at a time, and each passes the baton to the next as it
// exits; the goroutine the watchdog gave up on, if it ever gets out of
// what it blocked in, just exits.
//
//go:norace
func (c *Controller) drain(g *G) {
	if g == c.stuck {
		return
	}
	g.done = true
	if next := c.nextLive(c.stuck); next != nil {
		c.handoff(next)
		return
	}
	close(c.drained)
}

// pastLimit reports whether the next timer, the only thing that can move
// the execution on, is due past Options.TimeLimit while the test body has
// not returned.
//
//go:norace
func (c *Controller) pastLimit() bool {
	t := c.timers.first()
	return c.opts.TimeLimit > 0 && !c.rootDone && t != nil && t.when > int64(c.opts.TimeLimit)
}

// timedOut records that no goroutine can run before the time limit: the
// goroutines that wait, the timers' included.
//
//go:norace
func (c *Controller) timedOut() {
	inTheOpen()
	defer race.Disable()
	c.fail(&Failure{Kind: Timeout, Waiting: c.waiting(),
		Message: "no goroutine can run until a timer due past the time limit of " + c.opts.TimeLimit.String() +
			" (go test's -timeout), where go test would time out"})
	c.aborting = true
}

// stalled records why no goroutine can run: a deadlock, or a leak if the
// test body has returned.
//
//go:norace
func (c *Controller) stalled() {
	inTheOpen()
	defer race.Disable()
	f := &Failure{Kind: Deadlock, Waiting: c.waiting()}
	if c.rootDone {
		f.Kind = Leak
	}
	f.Message = f.Summary()
	c.fail(f)
	c.aborting = true
}

// Stress loops that run until a timer stops them (a second's AfterFunc)
// need more events than the budget at Tick each: when the budget is spent
// with a timer pending, the clock moves on to it, as real time would have,
// and the execution gets an eighth of the budget more, up to
// maxExtensions times. The step count is the same in every replay, so
// this fires the timer at the same event in each. A loop that a timer
// does not end is still a runaway, later.
const maxExtensions = 8

// timeRunsOut fires the earliest pending timer when the budget is spent,
// extending the budget; false when no timer is pending or the extensions
// are used up.
//
//go:norace
func (c *Controller) timeRunsOut() bool {
	if _, pending := c.timerIn(); !pending || c.extensions >= maxExtensions {
		return false
	}
	c.extensions++
	c.extra += c.opts.MaxSteps / 8
	c.fireNext()
	return true
}

// OverrunBudgets is how many budgets of events (Options.MaxSteps) an
// execution that spent its budget, with no timer left to fire, runs on
// before it is a runaway. A stress test of millions of calls is no
// livelock: it runs on unexplored (see Controller.unexplored), without a
// strategy, so it records no choices; if it ends, it passed, and only its
// first MaxSteps events were explored. A livelock is reported once these
// budgets too are spent.
const OverrunBudgets = 7

// overruns is the number of budgets an execution runs on unexplored
// (Options.Overruns).
//
//go:norace
func (c *Controller) overruns() int {
	if c.opts.Overruns == 0 {
		return OverrunBudgets
	}
	return max(c.opts.Overruns, 0)
}

// overrun lets an execution that spent its budget run on unexplored, once;
// false if it already did, or may not.
//
//go:norace
func (c *Controller) overrun() bool {
	if c.overran || c.overruns() == 0 {
		return false
	}
	c.overran = true
	c.extra += c.overruns() * c.opts.MaxSteps
	return true
}

// runaway ends an execution that exceeded its step budget.
//
//go:norace
func (c *Controller) runaway(g *G) {
	inTheOpen()
	c.fail(&Failure{Kind: Runaway, Goroutine: g.id, Site: CallerSite(3), Waiting: c.waiting(),
		Message: "the execution ran " + strconv.Itoa(c.steps-1) + " events without ending (" + strconv.Itoa(c.overruns()+1) + " budgets of -explore.maxsteps, and what pending timers added): a livelock, or a loop that never ends?"})
	c.aborting = true
	runtime.Goexit()
}

// keepRunning ends an execution whose goroutines kept running after the
// test body returned: as under go test, they are no failure, unless
// Options.StrictLeaks asks for goleak's strictness.
//
//go:norace
func (c *Controller) keepRunning() {
	inTheOpen()
	defer race.Disable()
	c.keptRunning = c.waiting()
	if c.opts.StrictLeaks {
		f := &Failure{Kind: Leak, Waiting: c.keptRunning, Running: true}
		f.Message = f.Summary()
		c.fail(f)
	}
	c.aborting = true
}

// blockedPolling fails the execution: a goroutine polled something outside
// weft's control for Options.BlockTimeout while nothing else could
// progress.
//
//go:norace
func (c *Controller) blockedPolling() {
	inTheOpen()
	defer race.Disable()
	var g *G
	for _, list := range [][]*G{c.stale, c.goStale} {
		for _, h := range list {
			if g == nil && h.outside && h.stale {
				g = h
			}
		}
	}
	f := &Failure{Kind: Blocked, Goroutine: g.id,
		Message: fmt.Sprintf("goroutine %s polled outside weft's control (in %s) for %v while nothing else could run: use weft's primitives (package sim) for everything that waits",
			g.id, g.op, c.opts.BlockTimeout)}
	if c.rootDone {
		// What the execution's goroutines, all waiting, no longer change:
		// eapache/channels' tests leave their buffers' loops selecting on
		// Go channels, as goleak reports under go test.
		f.Message = fmt.Sprintf("the test returned, and goroutine %s polled outside weft's control (in %s) for %v while nothing else could run: a leak, unless a goroutine weft does not control changes what it polls later",
			g.id, g.op, c.opts.BlockTimeout)
	}
	if s, ok := c.stackOf(c.goroutineStacks(), g); ok {
		f.Site, f.Stack = s.user()
	}
	c.fail(f)
}

// waiting describes every live goroutine: its pending operation, and where
// it is. Its callers run inside a step, hidden from the race detector, but
// call it in the open (see inTheOpen): the goroutine profile's labels, like
// fmt's printers, are ordered by synchronization the race detector must
// see.
//
//go:norace
func (c *Controller) waiting() []Waiting {
	c.dumping.Store(true)
	defer c.dumping.Store(false)
	stacks := workerStacks(goroutineStacks())
	ws := make([]Waiting, 0, c.nlive)
	for _, h := range c.all {
		if h.done {
			continue
		}
		_, spins := h.wait.(*spinWaiter)
		w := Waiting{Goroutine: h.id, Op: h.op.String(), Polling: h.stale || spins}
		if s, ok := stacks[h.w.num]; ok {
			w.Site, w.Stack = s.user()
		}
		ws = append(ws, w)
	}
	return ws
}

// goroutineStacks returns the process's goroutine stacks, for a report
// (see goroutineStacks). With a hundred thousand goroutines that takes
// seconds, which the watchdog must not take for a goroutine's hang (nor
// waiting's, which reads them too).
//
//go:norace
func (c *Controller) goroutineStacks() []goroutineStack {
	c.dumping.Store(true)
	defer c.dumping.Store(false)
	return goroutineStacks()
}

// Fail records a failure of the execution; the first one is the Result's
// Failure. It must be called from the running goroutine.
//
//go:norace
func (g *G) Fail(f *Failure) { g.c.fail(f) }

// Abort ends the execution after a failure: the calling goroutine exits
// (runtime.Goexit), and every other goroutine exits as soon as it is woken.
// Deferred calls run; weft operations in them that would block end their
// goroutine instead.
//
//go:norace
func (g *G) Abort() {
	g.c.aborting = true
	runtime.Goexit()
}

//go:norace
func (c *Controller) fail(f *Failure) {
	if c.failure == nil {
		c.failure = f
	} else {
		c.more = append(c.more, f)
	}
}

// schedule turns the recorded choices into a Schedule.
func (c *Controller) schedule() Schedule {
	if c.choices.len() == 0 {
		return nil
	}
	s := Schedule(c.schedBuf[:0])
	switch n := c.choices.len(); {
	case n <= len(c.schedBuf):
	case n <= cap(c.spare.schedule):
		s = c.spare.schedule
		c.schedMem = s
	default:
		// Room to grow, for a Schedule a reused controller keeps: the
		// next executions take it (see spares).
		s = make(Schedule, 0, n+max(min(n/2, spareChoices-n), 0))
		c.schedMem = s
	}
	names := opNames()
	c.choices.each(func(x *choice) {
		ch := Choice{Kind: x.kind, G: c.all[x.g].id, N: int(x.n), K: int(x.sub), Op: names[x.op], Preempt: x.preempt,
			Value: int(x.value), Of: int(x.of)}
		switch {
		case x.next >= 0:
			ch.Next = c.all[x.next].id
		case x.next == -2:
			ch.Next = Clock.id
		}
		s = append(s, ch)
	})
	return s[:len(s):len(s)]
}

// chunks is an append-only list that never copies what it holds: the
// choices of a long execution would otherwise be copied at every growth.
// Its chunks double up to maxChunk, so that a short list costs little; a
// list emptied for reuse (reset) keeps its chunks, and fills them again
// before it allocates.
type chunks[T any] struct {
	list    [][]T // the chunks, in order; past used, empty ones kept by reset
	used    int   // chunks in use: the last of them is being filled
	n       int
	first   [8]T   // the first chunk, in the list
	listBuf [4][]T // list's first backing array
}

const maxChunk = 256

//go:norace
func (l *chunks[T]) add(x T) {
	if l.used == 0 || len(l.list[l.used-1]) == cap(l.list[l.used-1]) {
		l.grow()
	}
	k := l.used - 1
	l.list[k] = append(l.list[k], x)
	l.n++
}

// grow starts the next chunk: one kept by reset, or a new one.
//
//go:norace
func (l *chunks[T]) grow() {
	switch {
	case l.used < len(l.list):
		l.list[l.used] = l.list[l.used][:0]
	case l.used == 0:
		l.list = append(l.listBuf[:0], l.first[:0])
	default:
		l.list = append(l.list, make([]T, 0, min(2*cap(l.list[l.used-1]), maxChunk)))
	}
	l.used++
}

//go:norace
func (l *chunks[T]) len() int { return l.n }

//go:norace
func (l *chunks[T]) each(f func(*T)) {
	for _, c := range l.list[:l.used] {
		for i := range c {
			f(&c[i])
		}
	}
}

// reset empties the list, keeping its chunks up to about max elements for
// what is added next. Its elements are not cleared: for pointer-free T.
//
//go:norace
func (l *chunks[T]) reset(max int) {
	n, keep := 0, 0
	for _, c := range l.list {
		if n += cap(c); n > max {
			break
		}
		keep++
	}
	clear(l.list[keep:])
	l.list = l.list[:keep]
	l.used, l.n = 0, 0
}

//go:norace
func (c *Controller) mix(v uint64) {
	c.hash = fnv.Mix(c.hash, v)
}

func (c *Controller) result() *Result {
	r := &c.res
	*r = Result{
		Failure:     c.failure,
		More:        c.more,
		Steps:       c.steps,
		Overran:     c.overran,
		Decisions:   c.decisions,
		Hash:        c.hash,
		Goroutines:  len(c.all),
		Elapsed:     time.Duration(c.now),
		KeptRunning: c.keptRunning,
	}
	visitor, refused, visited := c.endVisits()
	c.forgetLeft()
	outside, reported := c.takeOutside()
	if !reported && visited && (refused || r.Failure != nil) {
		// The first visit stands for the goroutine outside: a visit
		// refused is an outside use as Outside reports; the failure of an
		// execution that had visits is one no replay shows.
		outside, reported = outsideUse{visitFailure(visitor, refused), visitor.obj}, true
	}
	c.escMu.Lock()
	escapes := c.escapes
	c.escMu.Unlock()
	esc, std := c.findEscapes()
	if esc != nil {
		escapes = append(escapes, esc)
	}
	if len(std) > 0 {
		// The standard library's own, kept running after the test. Still
		// the labels of the worker it was started from: no other goroutine
		// may run on it.
		c.escapedSome = true
		retireIdle()
		r.KeptRunning = append(r.KeptRunning, std...)
	}
	if len(escapes) > 0 {
		c.escapedSome = true
		// An escaped goroutine carries the labels of the worker it was
		// started from: no other goroutine may run on it.
		retireIdle()
		// An escape is the root cause of whatever else went wrong.
		if r.Failure != nil {
			r.More = append([]*Failure{r.Failure}, r.More...)
		}
		r.Failure = escapes[0]
		r.More = append(escapes[1:], r.More...)
	}
	if reported {
		// A goroutine outside the execution changed what it saw: the
		// root cause of whatever else went wrong, escapes included.
		if r.Failure != nil {
			r.More = append([]*Failure{r.Failure}, r.More...)
		}
		outside.f.Waiting = c.waitingOn(outside.obj, r.More)
		r.Failure = outside.f
	}
	if c.opts.Digests {
		r.Digests = make(map[string]Digest, len(c.all))
		for _, g := range c.all {
			d := g.reads
			d.Ops = uint64(g.ops)
			r.Digests[g.id] = d
		}
	}
	if c.trace != nil {
		r.Trace = make([]Event, len(c.trace))
		first := 0 // the oldest event kept
		if len(c.trace) == MaxTrace {
			first = c.traced % MaxTrace
		}
		for i := range c.trace {
			p := c.trace[(first+i)%len(c.trace)]
			r.Trace[i] = Event{G: p.g.id, N: p.n, Ops: p.ops, Op: p.op.String(), Obj: p.obj, Site: p.site,
				At: time.Duration(p.at), Stack: p.stack}
		}
	}
	if c.choices.len() > 0 {
		r.from = c // see Schedule; finish or abandon may build it now
	}
	return r
}

// Done reports whether the goroutine has exited.
//
//go:norace
func (g *G) Done() bool { return g.done }
