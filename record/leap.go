package record

import "github.com/weftdev/weft/sched"

// LEAP (Huang, Liu and Zhang, FSE'10; described in CoopREP, §III-A) logs,
// for every shared location, its access vector: the indices of the threads
// that accessed it, in the order they did, reads, writes and
// synchronizations alike. A replay lets a thread access a location only
// when it is at the head of the location's remaining vector.
//
// The vector of a location is its own stream (Loc.Stream), so the recorder
// keeps no per-event state: an access appends one entry, made atomic with
// the access itself by the location's lock (Loc.Mu) for memory accesses,
// and by the primitive's own exclusion for synchronization (Sync is
// reported from inside it, so the reports are already ordered).
//
// Location stream entries (no counter: location streams have none):
//
//	LeapTagThread  args (thread)          one access by thread
//	LeapTagThread0+i, no args             one access by thread i < LeapInline: one byte
//	LeapTagRun     args (thread, count)   count ≥ 1 consecutive accesses by thread
//
// The first two forms are LEAP's faithful log, one entry per access; the
// third is written only when run-length encoding is on (LeapOptions).
const (
	LeapTagThread        = TagFirst     // one access, thread in Args[0]
	LeapTagThread0       = TagFirst + 1 // one access by thread 0; +i for thread i
	LeapTagRun     uint8 = 31           // a run of accesses: Args = (thread, count)
	// LeapInline counts the threads whose accesses take one byte.
	LeapInline = uint32(LeapTagRun - LeapTagThread0)
)

// LeapOptions configure a LEAP recorder.
type LeapOptions struct {
	// RunLength logs consecutive accesses of a location by one thread as
	// a single (thread, count) entry. LEAP logs one entry per access; the
	// replay reads both forms.
	RunLength bool
}

// NewLeap returns a LEAP recorder; New("leap") returns one with the
// default options (one entry per access, as the paper's).
func NewLeap(o LeapOptions) Recorder { return &leap{rle: o.RunLength} }

func init() {
	register("leap", func() Recorder { return NewLeap(LeapOptions{}) })
}

type leap struct {
	rle bool
}

// leapRun is a location's pending run of accesses, when run-length
// encoding: bounded state, one per location.
type leapRun struct {
	thread uint32
	count  uint64
}

func (r *leap) Algorithm() string { return "leap" }

func (r *leap) NewThread(t *Thread) {}

func (r *leap) NewLoc(l *Loc) {
	if r.rle {
		l.State = &leapRun{}
	}
}

// access appends t's access to l's vector; the caller makes it exclusive.
func (r *leap) access(t *Thread, l *Loc) {
	idx := t.Index()
	if r.rle {
		run := l.State.(*leapRun)
		if run.count > 0 && run.thread == idx {
			run.count++
			return
		}
		leapFlush(l, run)
		run.thread, run.count = idx, 1
		return
	}
	if idx < LeapInline {
		l.Stream.Put(LeapTagThread0+uint8(idx), 0)
	} else {
		l.Stream.Put(LeapTagThread, 0, uint64(idx))
	}
}

// leapFlush writes l's pending run, if any.
func leapFlush(l *Loc, run *leapRun) {
	switch {
	case run.count == 0:
	case run.count == 1 && run.thread < LeapInline:
		l.Stream.Put(LeapTagThread0+uint8(run.thread), 0)
	case run.count == 1:
		l.Stream.Put(LeapTagThread, 0, uint64(run.thread))
	default:
		l.Stream.Put(LeapTagRun, 0, uint64(run.thread), run.count)
	}
	run.count = 0
}

func (r *leap) ReadBegin(t *Thread, l *Loc) uint64 {
	l.Mu.Lock()
	r.access(t, l)
	return 0
}

func (r *leap) ReadEnd(t *Thread, l *Loc, begin uint64, value uint64) bool {
	l.Mu.Unlock()
	return false
}

func (r *leap) WriteBegin(t *Thread, l *Loc) {
	l.Mu.Lock()
	r.access(t, l)
}

func (r *leap) WriteEnd(t *Thread, l *Loc, a sched.Access, read, written uint64) {
	l.Mu.Unlock()
}

func (r *leap) Sync(t *Thread, l *Loc, a sched.Access, value uint64) {
	r.access(t, l)
}

func (r *leap) ExitThread(t *Thread) {}

func (r *leap) Close(locs []*Loc) {
	if !r.rle {
		return
	}
	for _, l := range locs {
		if run, ok := l.State.(*leapRun); ok {
			leapFlush(l, run)
		}
	}
}
