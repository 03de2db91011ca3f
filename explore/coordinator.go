package explore

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/weftdev/weft/sched"
)

// The coordinator hands out chunks of executions to the workers and
// commits their results in index order, so that the outcome is the one
// of a sequential exploration whatever the number of workers.
//
// The only state an execution takes from the ones before it is PCT's
// estimate of decisions (the most decisions of an earlier execution). A
// chunk is handed out with the best guess of that estimate, and checked
// when every execution before it has been committed: a chunk that ran PCT
// with another estimate than the exact one runs again, now with the exact
// one. The estimate stops growing after a few executions, so re-runs are
// rare.
type coordinator struct {
	cfg      Config
	plan     Plan
	body     func()
	start    time.Time
	deadline time.Time // zero: none
	// overtime is the end of the work past the deadline: the executions a
	// failure's commit needs and the search for an execution that crashed
	// its worker.
	overtime time.Time

	mu        sync.Mutex
	cond      *sync.Cond
	next      int             // first index never handed out
	limit     int             // the iteration budget: indices at or past it do not run
	todo      []Chunk         // ranges to run (again), by Start
	pending   map[int]outcome // finished chunks above the committed prefix, by Start
	committed int             // the executions below it are final
	prefix    int             // the most decisions among them
	events    int             // the events of the chunks handed out and finished (Config.Events)
	running   int             // chunks handed out and not finished
	judging   bool            // Accept is running
	done      bool
	ran       int             // executions run, runs again included
	procs     []Worker        // the worker processes, for closing them
	helpers   int             // worker processes running or starting
	oneProc   bool            // start worker processes with GOMAXPROCS=1
	differs   bool            // a worker process ran an execution differently: no more of them
	probe     []uint64        // the hashes of the calling process's first executions
	judged    int             // failures judged
	known     map[string]bool // Config.Continue: the signatures judged, and Known
	stopping  bool            // Config.Stop is closed
	sum       Summary
}

type outcome struct {
	c Chunk
	r ChunkResult
}

// Chunk sizes: a chunk should take about chunkTarget, so that a worker
// process costs one round trip per few thousand executions, and the last
// chunks end together.
const (
	chunkTarget = 10 * time.Millisecond
	maxChunk    = 1 << 16
)

// Past the deadline, the work a found failure needs runs for a tenth of
// the budget more at most, and at least minOvertime.
const minOvertime = time.Second

func newCoordinator(body func(), cfg Config) *coordinator {
	co := &coordinator{
		cfg: cfg,
		plan: Plan{Strategy: cfg.Strategy, Seed: cfg.Seed, Depth: cfg.Depth, Lag: cfg.Lag, Options: cfg.Options,
			Shard: cfg.Shard, Shards: cfg.Shards},
		body:    body,
		start:   time.Now(),
		limit:   cfg.Iterations,
		pending: map[int]outcome{},
		oneProc: true,
		probe:   make([]uint64, probeSize),
	}
	if co.limit <= 0 {
		co.limit = int(^uint(0) >> 1)
	}
	if cfg.Duration > 0 {
		co.deadline = co.start.Add(cfg.Duration)
		co.overtime = co.deadline.Add(max(cfg.Duration/10, minOvertime))
	}
	if cfg.Continue {
		co.known = map[string]bool{}
		for _, sig := range cfg.Known {
			co.learn(sig)
		}
	}
	co.cond = sync.NewCond(&co.mu)
	return co
}

// learn adds a signature to those a continued exploration only counts.
func (co *coordinator) learn(sig string) {
	if !co.known[sig] {
		co.known[sig] = true
		co.plan.Known = append(co.plan.Known[:len(co.plan.Known):len(co.plan.Known)], sig)
	}
}

func (co *coordinator) run() Summary {
	var wg sync.WaitGroup
	if co.cfg.Spawn != nil && co.cfg.Workers > 1 {
		co.helpers = co.cfg.Workers
		for range co.cfg.Workers {
			wg.Go(co.spawned)
		}
	}
	wg.Go(func() {
		co.work(&local{body: co.body, executed: co.executed}, true)
	})
	stopProgress := co.progress()
	stopWatching := co.watchStop()

	co.mu.Lock()
	for !co.done {
		co.cond.Wait()
	}
	procs := co.procs
	co.mu.Unlock()
	// Ends the worker processes: a chunk in flight past the outcome is not
	// needed.
	var closing sync.WaitGroup
	for _, w := range procs {
		closing.Go(func() { w.Close() })
	}
	closing.Wait()
	wg.Wait()
	stopProgress()
	stopWatching()

	co.sum.Executions = co.committed
	if co.sum.Stopped {
		co.sum.Executions = co.ran // the executions between the finished chunks did not run
	}
	co.sum.Elapsed = time.Since(co.start)
	return co.sum
}

// executed sees the executions of the calling process: the first ones are
// what worker processes are checked against.
func (co *coordinator) executed(i int, r *sched.Result) {
	if i < probeSize {
		co.mu.Lock()
		co.probe[i] = r.Hash
		co.mu.Unlock()
	}
	if co.cfg.Executed != nil {
		co.cfg.Executed(i, r)
	}
}

// spawned runs one worker process for as long as there is work, and
// starts another in its place if it dies, unless it died without running
// anything three times in a row.
func (co *coordinator) spawned() {
	defer func() {
		co.mu.Lock()
		co.helpers--
		co.cond.Broadcast()
		co.mu.Unlock()
	}()
	for deaths := 0; deaths < 3; {
		co.mu.Lock()
		oneProc, done := co.oneProc, co.done
		co.mu.Unlock()
		if done {
			return
		}
		w, err := co.cfg.Spawn(oneProc)
		co.mu.Lock()
		if err != nil {
			co.sum.Lost = append(co.sum.Lost, err.Error())
			co.mu.Unlock()
			return
		}
		co.procs = append(co.procs, w)
		co.mu.Unlock()
		end, ran := co.check(w, oneProc)
		if end == 0 {
			end, ran = co.work(w, false)
		}
		w.Close()
		switch {
		case end == ended || end == unready || end == differs:
			return
		case ran:
			deaths = 0
		case end == died:
			deaths++
		}
	}
}

// probeSize is how many executions a new worker process runs first, to be
// compared with the calling process's.
const probeSize = 8

// check runs a new worker process's first executions and compares them
// with the calling process's. A worker process runs executions faster with
// GOMAXPROCS=1 (handing the baton to another goroutine wakes no idle
// processor), but a test that reads GOMAXPROCS may then run differently:
// if the first executions differ, every worker process runs with the
// test's GOMAXPROCS from then on. If they still differ, the test depends
// on something else of its process (its identifier, its environment): the
// failures a worker process finds would not replay in the test's, so the
// exploration goes on there alone. It returns 0 if w can go on, mismatch
// if it must be replaced, or how it ended.
func (co *coordinator) check(w Worker, oneProc bool) (end int, ran bool) {
	co.mu.Lock()
	for !co.done && co.committed < min(probeSize, co.limit) && co.judged == 0 {
		co.cond.Wait()
	}
	n := min(len(co.probe), co.committed, co.limit)
	done, plan := co.done, co.plan
	co.mu.Unlock()
	if done || n == 0 {
		return ended, false
	}
	r, err := w.Run(Chunk{Plan: plan, Start: 0, Count: n, Deadline: co.overtime, Hashes: true})
	co.mu.Lock()
	defer co.mu.Unlock()
	switch {
	case co.done:
		co.hang(err)
		return ended, false
	case errors.Is(err, errUnready):
		co.sum.Lost = append(co.sum.Lost, err.Error())
		return unready, false
	case err != nil:
		co.sum.Lost = append(co.sum.Lost, err.Error())
		return died, false
	}
	for i := range min(len(r.Hashes), n) {
		if r.Hashes[i] == co.probe[i] {
			continue
		}
		if oneProc {
			if co.oneProc {
				co.oneProc = false
				co.sum.Notes = append(co.sum.Notes, fmt.Sprintf("execution %d ran differently in a worker process with GOMAXPROCS=1: worker processes run with the test's GOMAXPROCS", i))
			}
			return mismatch, true
		}
		if !co.differs {
			co.differs = true
			co.sum.Notes = append(co.sum.Notes, fmt.Sprintf("execution %d ran differently in a worker process than in the test's: the test depends on something weft does not control (package-level state, the environment): it runs in the test's process alone", i))
			co.cond.Broadcast()
		}
		return differs, true
	}
	return 0, true
}

// How a worker's work ends.
const (
	ended    = iota + 1 // the exploration is over
	died                // the worker died or hung
	unready             // the worker died before it could run anything
	mismatch            // the worker ran executions differently with GOMAXPROCS=1
	differs             // the worker ran executions differently with the test's GOMAXPROCS
)

// work runs chunks on w until the exploration ends or w dies, and reports
// which, and whether w finished a chunk.
func (co *coordinator) work(w Worker, local bool) (end int, ran bool) {
	size := 1
	if local {
		size = probeSize
	}
	for {
		c, ok := co.take(size, local)
		if !ok {
			return ended, ran
		}
		r, err := w.Run(c)
		if err != nil {
			return co.lose(c, err), ran
		}
		ran = true
		co.finish(c, r)
		switch {
		case r.Ran == c.Count && r.Elapsed < chunkTarget/2:
			size = min(2*size, maxChunk)
		case r.Elapsed > 2*chunkTarget:
			size = max(size/2, 1)
		}
	}
}

// take hands out the next chunk of at most size executions, waiting while
// there is none yet; false means the exploration is over.
func (co *coordinator) take(size int, local bool) (Chunk, bool) {
	co.mu.Lock()
	defer co.mu.Unlock()
	for {
		if co.done {
			return Chunk{}, false
		}
		// With worker processes, the calling process runs the first
		// executions (Executed sees them, and the workers are checked
		// against them), and then only if they could not start or ran
		// executions differently.
		if !local && co.differs {
			return Chunk{}, false
		}
		turn := co.next > 0
		if local {
			turn = co.next < probeSize || co.helpers == 0
		}
		if co.stopping && !co.judging {
			if co.running == 0 {
				co.drain()
				co.done = true
				co.cond.Broadcast()
				return Chunk{}, false
			}
		} else if !co.judging && turn {
			if c, ok := co.nextChunk(size); ok {
				co.running++
				return c, true
			}
			if co.running == 0 {
				co.settleLate()
				co.done = true
				co.cond.Broadcast()
				return Chunk{}, false
			}
		}
		co.cond.Wait()
	}
}

// nextChunk picks what to run: ranges to run again first, lowest first,
// then new executions. Nothing runs past the lowest failure known, which
// ends the exploration if Accept takes it. Past the deadline, only what a
// failure's commit needs runs, and the search for an execution that
// crashed its worker, until the overtime ends.
func (co *coordinator) nextChunk(size int) (Chunk, bool) {
	now := time.Now()
	late := !co.deadline.IsZero() && now.After(co.deadline)
	if late && now.After(co.overtime) {
		return Chunk{}, false
	}
	stop, failing := co.stop()
	if co.cfg.Iterations > 0 && !late {
		// The last chunks shrink so that the workers end together.
		size = max(min(size, (co.limit-co.next)/(2*max(co.cfg.Workers, 1))), 1)
	}
	for i, c := range co.todo {
		if c.Start >= stop {
			break
		}
		if late && !failing && !c.crashed {
			continue
		}
		if c.Count > size {
			co.todo[i].Start += size
			co.todo[i].Count -= size
			c.Count = size
		} else {
			co.todo = slices.Delete(co.todo, i, i+1)
		}
		return co.assign(c, late), true
	}
	if late || co.next >= stop {
		return Chunk{}, false
	}
	if co.cfg.Events > 0 && co.events >= co.cfg.Events {
		return Chunk{}, false
	}
	c := Chunk{Start: co.next, Count: min(size, stop-co.next)}
	co.next += c.Count
	return co.assign(c, false), true
}

// stop is the lowest index of a failure known and not yet committed, or
// the iteration budget if there is none. A continued exploration does not
// stop at failures: only past the deadline, where what their commit needs
// still runs.
func (co *coordinator) stop() (stop int, failing bool) {
	stop = co.limit
	for _, o := range co.pending {
		if co.cfg.Continue {
			failing = failing || o.r.Failure != nil
			continue
		}
		if o.r.Failure != nil && o.r.Failure.Iteration < stop {
			stop, failing = o.r.Failure.Iteration, true
		}
	}
	return stop, failing
}

// assign completes a chunk with the plan, the deadline, and the estimate:
// exact if every execution before it is committed, else the most
// decisions known below it. A chunk handed out late runs until the
// overtime ends: with the deadline, which has passed, its worker would run
// none of it, and it would be handed out again, forever.
func (co *coordinator) assign(c Chunk, late bool) Chunk {
	c.Plan, c.Deadline = co.plan, co.deadline
	if late {
		c.Deadline = co.overtime
	}
	c.Estimate = co.prefix
	if co.cfg.Events > 0 {
		// A range run again after a rejected failure is bounded too.
		c.Events = max(co.cfg.Events-co.events, 1)
	}
	for _, o := range co.pending {
		if o.c.Start < c.Start {
			c.Estimate = max(c.Estimate, o.r.Decisions)
		}
	}
	return c
}

// push adds a range to run (again).
func (co *coordinator) push(c Chunk) {
	i, _ := slices.BinarySearchFunc(co.todo, c.Start, func(a Chunk, s int) int { return a.Start - s })
	co.todo = slices.Insert(co.todo, i, c)
}

// finish takes a chunk's result and commits what it can.
func (co *coordinator) finish(c Chunk, r ChunkResult) {
	co.mu.Lock()
	defer co.mu.Unlock()
	co.running--
	co.ran += r.Ran
	co.events += r.Events
	if c.Events > 0 && r.Events >= c.Events {
		// The events budget ended in this chunk: its executions are the
		// last that run.
		co.limit = min(co.limit, c.Start+r.Ran)
		c.Count = r.Ran
	}
	if r.Ran == 0 {
		co.push(c)
	} else {
		co.pending[c.Start] = outcome{c, r}
		if rest := c.Count - r.Ran; rest > 0 {
			co.push(Chunk{Start: c.Start + r.Ran, Count: rest, crashed: c.crashed})
		}
	}
	co.commit()
	co.cond.Broadcast()
}

// lose takes the chunk of a worker that died or hung. A chunk of one
// execution is a crash of that execution; a longer one is run again one
// execution at a time, to find the one that crashes. A worker that died
// before it was ready ran nothing, and a hang (a worker that stopped
// answering, or lost its chunk, or was sent SIGQUIT) is the worker's, not
// an execution's: the chunk runs elsewhere, and the hang with its stacks
// is reported in Summary.Lost.
func (co *coordinator) lose(c Chunk, err error) int {
	co.mu.Lock()
	defer co.mu.Unlock()
	defer co.cond.Broadcast()
	co.running--
	if co.done {
		co.hang(err)
		return ended
	}
	co.sum.Lost = append(co.sum.Lost, err.Error())
	switch {
	case errors.Is(err, errUnready):
		co.push(c)
		return unready
	case isHang(err):
		co.push(c)
		return died
	case c.Count > 1:
		for i := range c.Count {
			co.push(Chunk{Start: c.Start + i, Count: 1, crashed: true})
		}
		return died
	}
	f := newFinding(c.Plan, c.Start, c.Estimate)
	if !errors.As(err, &f.Crash) {
		f.Crash = &WorkerError{Doing: "running " + c.String(), Why: err.Error()}
	}
	co.ran++
	co.pending[c.Start] = outcome{c, ChunkResult{Ran: 1, UsedEstimate: usesPCT(c.Plan.Strategy, f.Seed), Failure: f}}
	co.commit()
	return died
}

// hang reports a worker that hung once the exploration is over: its end
// is no effect of the outcome (Close ends workers without it).
func (co *coordinator) hang(err error) {
	if isHang(err) {
		co.sum.Lost = append(co.sum.Lost, err.Error())
	}
}

// isHang reports whether err is a worker that hung.
func isHang(err error) bool {
	var we *WorkerError
	return errors.As(err, &we) && we.Hung
}

// commit moves the committed prefix over the finished chunks that follow
// it, in order, judging their failures with Accept. Called with co.mu
// held; Accept runs without it.
func (co *coordinator) commit() {
	for !co.judging && !co.done {
		o, ok := co.pending[co.committed]
		if !ok {
			return
		}
		delete(co.pending, co.committed)
		if o.r.UsedEstimate && o.c.Estimate != co.prefix {
			co.push(Chunk{Start: o.c.Start, Count: o.r.Ran, crashed: o.c.crashed})
			return
		}
		co.committed += o.r.Ran
		co.prefix = max(co.prefix, o.r.Decisions)
		co.settle(o)
	}
}

// settle takes in a committed chunk's result: its note of goroutines kept
// running, its repeats, and its failure, judged. Called with co.mu held;
// Accept runs without it.
func (co *coordinator) settle(o outcome) {
	if co.sum.KeptRunning == nil {
		co.sum.KeptRunning = o.r.KeptRunning
	}
	co.sum.Repeats += o.r.Repeats
	f := o.r.Failure
	if f == nil {
		return
	}
	if co.cfg.Continue {
		sig := "crash"
		if f.Result != nil {
			sig = f.Result.Failure.Signature()
		}
		if co.known[sig] {
			co.sum.Repeats++
			return
		}
		co.learn(sig)
	}
	co.judging = true
	co.judged++
	co.mu.Unlock()
	ok := co.cfg.Accept == nil || co.cfg.Accept(f)
	co.mu.Lock()
	co.judging = false
	switch {
	case co.cfg.Continue:
	case ok:
		co.sum.Finding = f
		co.done = true
	default:
		co.sum.Rejected = append(co.sum.Rejected, f)
	}
}

// drain settles the chunks finished above the committed prefix, in index
// order, as if the executions between had passed: the exploration stops
// early (Config.Stop), and nothing more runs. Called with co.mu held.
func (co *coordinator) drain() {
	co.sum.Stopped = true
	starts := make([]int, 0, len(co.pending))
	for s := range co.pending {
		starts = append(starts, s)
	}
	slices.Sort(starts)
	for _, s := range starts {
		if co.done {
			return
		}
		o := co.pending[s]
		delete(co.pending, s)
		co.committed = max(co.committed, s+o.r.Ran)
		co.settle(o)
	}
}

// watchStop marks the exploration as stopping once Config.Stop closes,
// until the returned function is called.
func (co *coordinator) watchStop() func() {
	if co.cfg.Stop == nil {
		return func() {}
	}
	end := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		select {
		case <-co.cfg.Stop:
			co.mu.Lock()
			co.stopping = true
			co.cond.Broadcast()
			co.mu.Unlock()
		case <-end:
		}
	})
	return func() { close(end); wg.Wait() }
}

// settleLate judges the failures left uncommitted once nothing more runs:
// the overtime ended before every execution below them ran. They are
// judged lowest first, as commit would have. Called with co.mu held and
// nothing running; Accept runs without it.
func (co *coordinator) settleLate() {
	var starts []int
	for start, o := range co.pending {
		if o.r.Failure != nil {
			starts = append(starts, start)
		}
	}
	slices.Sort(starts)
	for _, start := range starts {
		if co.done {
			return
		}
		o := co.pending[start]
		delete(co.pending, start)
		judged := co.judged
		co.settle(o)
		if co.judged > judged {
			co.sum.Notes = append(co.sum.Notes, fmt.Sprintf("the budget ended before every execution below execution %d ran: its failure is judged without them", o.r.Failure.Iteration))
		}
	}
}

// progress calls Config.Progress every ProgressEvery until the returned
// function is called.
func (co *coordinator) progress() func() {
	if co.cfg.Progress == nil {
		return func() {}
	}
	every := co.cfg.ProgressEvery
	if every <= 0 {
		every = 3 * time.Second
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				co.mu.Lock()
				n := co.ran
				co.mu.Unlock()
				co.cfg.Progress(time.Since(co.start), n)
			}
		}
	})
	return func() { close(stop); wg.Wait() }
}

func (c Chunk) String() string {
	if c.Count == 1 {
		return fmt.Sprintf("execution %d", c.Start)
	}
	return fmt.Sprintf("executions %d to %d", c.Start, c.Start+c.Count-1)
}
