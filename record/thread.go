package record

import (
	"runtime/debug"
	"strings"

	"github.com/weftdev/weft/internal/gls"
	"github.com/weftdev/weft/internal/lineage"
	"github.com/weftdev/weft/sched"
)

// A Thread is a goroutine of a recorded execution. Its counter and its
// stream are its own: only the goroutine itself touches them, but for a
// goroutine blocked in a synchronization operation, which the partner that
// completes the operation may report on its behalf (see Sync), before
// waking it.
type Thread struct {
	run      *Session
	rec      Recorder // run.rec
	id       string
	idx      uint32
	n        uint64 // operations begun, as sched.G.Ops counts
	children lineage.Children
	reads    sched.Digest // primed (see Observe)
	bit      uint64       // 1<<idx, or 0 for idx ≥ 64
	rng      uint64
	bind     gls.Binding
	// deferred: the recorder deferred work to after the current
	// release (Defer).
	deferred bool
	touches  TouchDecoder // the state of touch's coding, which decoding replays
	// seen caches locations the goroutine touched, by id: Access's
	// test, with no atomic load of the location's touched bits.
	seen [seenSize]*Loc
	// Stream is the goroutine's own log stream.
	Stream Stream
	// State is the recorder's per-thread state, set by NewThread.
	State any
}

// Current returns the Thread of a recorded execution the caller runs on, or
// nil.
func Current() *Thread {
	t, _ := gls.Get().(*Thread)
	return t
}

// ID returns the goroutine's lineage, as the controller names it.
func (t *Thread) ID() string { return t.id }

// Index returns the goroutine's number in the run, in creation order from 0.
func (t *Thread) Index() uint32 { return t.idx }

// N returns the counter of the goroutine's current operation: how many it
// has begun.
func (t *Thread) N() uint64 { return t.n }

// Recorder returns the run's recorder.
func (t *Thread) Recorder() Recorder { return t.rec }

// Op begins a new operation of t, on location l (nil for none), and
// returns t's recorder. It counts the operation, and logs l the first time
// t touches it, so that a replay can tell which of its objects l is.
func (t *Thread) Op(l *Loc) Recorder {
	if l != nil {
		return t.Access(l)
	}
	t.n++
	return t.rec
}

// Access is Op on a location l that is not nil. It is inlined into the
// recorded memory accesses: in the common case, a location t touched
// recently, it costs an increment, a load and a comparison.
func (t *Thread) Access(l *Loc) Recorder {
	if t.n++; t.seen[l.id&(seenSize-1)] != l {
		t.touchFirst(l)
	}
	return t.rec
}

// Defer asks that the recorder, a Releaser, have Released called on t
// once t releases the primitive it reports on (see Releaser), and before
// anything else is written to t's stream.
func (t *Thread) Defer() { t.deferred = true }

// Released is called by a primitive once t released it (a sim.Mutex's
// Unlock, after the mutex is free): it runs the work the recorder deferred
// (Defer), if any. Inlined: a load and a test when there is none.
func (t *Thread) Released() {
	if t.deferred {
		t.release()
	}
}

// release runs the recorder's deferred work.
func (t *Thread) release() {
	t.deferred = false
	t.rec.(Releaser).Released(t)
}

// touchFirst logs l if t touches it for the first time (every time, for
// the goroutines past the 64th, which have no bit in Loc.touched), and
// caches it in t.seen.
func (t *Thread) touchFirst(l *Loc) {
	switch {
	case t.bit == 0:
		t.touch(l)
		return
	case l.touched.Load()&t.bit == 0:
		l.touched.Or(t.bit)
		t.touch(l)
	}
	t.seen[l.id&(seenSize-1)] = l
}

// seenSize is the size of Thread.seen.
const seenSize = 64

// Touch logs that t's current operation accessed l, whether or not t
// touched l before: a select logs the channel it completed on this way.
func (t *Thread) Touch(l *Loc) { t.touch(l) }

// touch logs a touch entry of l. Runs of locations (an array's) are coded
// short if their ids take more than a byte: of the locations of t's last
// two touch entries, l may follow the one that the previous run followed
// (run2; 0 the last's, as in one run, 1 the one before, as in two
// interleaved runs): no argument; or the other: argument 0, the other one
// becoming the run's. Else the argument is l's id. The location l
// follows is replaced by l, the last's kept before it.
func (t *Thread) touch(l *Loc) {
	id := l.id
	d := &t.touches
	var arg [1]uint64
	e := Entry{Args: arg[:0]}
	switch {
	case id >= 1<<7 && id == d.touched[d.run2]+1:
	case id >= 1<<7 && id == d.touched[1-d.run2]+1:
		e.Args = arg[:1]
	default:
		arg[0] = uint64(id)
		e.Args = arg[:1]
	}
	t.Released() // the recorder's deferred entries come first
	t.Stream.Put(TagTouch, t.n, e.Args...)
	d.Next(e) // the coder's state moves as the decoder's will
}

// A TouchDecoder decodes the TagTouch entries of one goroutine's stream, in
// order, as Thread.touch codes them.
type TouchDecoder struct {
	touched [2]uint32
	run2    int
}

// Next returns the location of the touch entry e.
func (d *TouchDecoder) Next(e Entry) uint32 {
	if len(e.Args) > 0 && e.Args[0] != 0 {
		id := uint32(e.Args[0])
		d.touched = [2]uint32{id, d.touched[0]}
		return id
	}
	if len(e.Args) > 0 {
		d.run2 = 1 - d.run2
	}
	id := d.touched[d.run2] + 1
	if d.run2 == 0 {
		d.touched[0] = id
	} else {
		d.touched = [2]uint32{id, d.touched[0]}
	}
	return id
}

// NoAccess logs that t's current operation touched no location after all:
// a TryLock that failed. A replay does not order it.
func (t *Thread) NoAccess() {
	t.Released()
	t.Stream.Put(TagNoAccess, t.n)
}

// ops returns t.n for the run's watchdog, on another goroutine: a racy
// read, hidden from the race detector, of a word only t writes. A torn or
// stale value only delays the watchdog's verdict by a tick, and it spares
// every operation an atomic store.
//
//go:norace
func (t *Thread) ops() uint64 { return t.n }

// counts returns t's counter and read digest for the log's trailer, when
// t has ended, or was abandoned blocked in a run that made no progress:
// then, as for ops, nothing orders its last writes before this read.
//
//go:norace
func (t *Thread) counts() (uint64, sched.Digest) { return t.n, t.reads.Sum() }

// Observe chains a digest of a value t read into its read digest, which a
// replay must reproduce. The digest is primed when t is made.
func (t *Thread) Observe(v uint64) { t.reads.AddPrimed(v) }

// Choose returns a random value in [0, n) for t's current operation (a
// random draw, the case a select picks among ready ones) and logs it, so
// that a replay makes the same choice.
func (t *Thread) Choose(n int) int {
	if n <= 1 {
		return 0
	}
	// splitmix64: the goroutine's own generator, no synchronization.
	t.rng += 0x9e3779b97f4a7c15
	z := t.rng
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	z ^= z >> 31
	v := int(z % uint64(n))
	t.Log(v)
	return v
}

// Log logs a value t's current operation chose (see Choose).
func (t *Thread) Log(v int) {
	t.Released()
	t.Stream.Put(TagChoice, t.n, uint64(v))
}

// NewLoc returns a new location of t's run.
func (t *Thread) NewLoc() *Loc { return t.run.newLoc() }

// Run returns the thread's run.
func (t *Thread) Run() *Session { return t.run }

// Go starts f as a new goroutine of the run, a child of t named by lineage.
func (t *Thread) Go(f func()) {
	child := t.run.newThread(t.children.Next(t.id))
	t.run.live.Add(1)
	go t.run.goroutine(child, f)
}

// Fail records a failure of the run.
func (t *Thread) Fail(f *sched.Failure) {
	if f.Goroutine == "" {
		f.Goroutine = t.id
	}
	t.run.fail(f)
}

// goroutine is the body of every goroutine of the run.
func (r *Session) goroutine(t *Thread, f func()) {
	defer r.live.Done()
	t.bind = gls.Bind(t, "weft.record", r.label, "weft.test", r.opts.Name, "weft.g", t.id)
	defer t.bind.Release()
	defer r.exit(t)
	defer func() {
		if v := recover(); v != nil {
			stack := string(debug.Stack())
			r.fail(&sched.Failure{Kind: sched.Panic, Goroutine: t.id, Message: panicMessage(v), Site: userSite(stack), Stack: stack})
		}
	}()
	f()
}

func panicMessage(v any) string {
	if e, ok := v.(error); ok {
		return e.Error()
	}
	if s, ok := v.(string); ok {
		return s
	}
	return strings.TrimSpace(sprint(v))
}
