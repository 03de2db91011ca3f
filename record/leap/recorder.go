package leap

import (
	"github.com/weftdev/weft/record"
	"github.com/weftdev/weft/sched"
)

// LEAP (Huang, Liu and Zhang, FSE'10; described in CoopREP, §III-A) logs,
// for every shared location, its access vector: the indices of the threads
// that accessed it, in the order they did, reads, writes and
// synchronizations alike. A replay lets a thread access a location only
// when it is at the head of the location's remaining vector.
//
// The vector of a location is its own stream (record.Loc.Stream), so the recorder
// keeps no per-event state: an access appends one entry, made atomic with
// the access itself by the location's lock (record.Loc.Mu) for memory accesses,
// and by the primitive's own exclusion for synchronization (Sync is
// reported from inside it, so the reports are already ordered).
//
// Location stream entries (no counter: location streams have none):
//
//	tagThread  args (thread)          one access by thread
//	tagThread0+i, no args             one access by thread i < inlineThreads: one byte
//	tagRun     args (thread, count)   count ≥ 1 consecutive accesses by thread
//
// The first two forms are LEAP's faithful log, one entry per access; the
// third is written only when run-length encoding is on (Options).
const (
	tagThread        = record.TagFirst     // one access, thread in Args[0]
	tagThread0       = record.TagFirst + 1 // one access by thread 0; +i for thread i
	tagRun     uint8 = 31                  // a run of accesses: Args = (thread, count)
	// inlineThreads counts the threads whose accesses take one byte.
	inlineThreads = uint32(tagRun - tagThread0)
)

// Options configure a LEAP recorder.
type Options struct {
	// RunLength logs consecutive accesses of a location by one thread as
	// a single (thread, count) entry. LEAP logs one entry per access; the
	// replay reads both forms.
	RunLength bool
}

// New returns a LEAP recorder with options o; record.New("leap") returns
// one with the default options (one entry per access, as the paper's).
func New(o Options) record.Recorder { return &leap{rle: o.RunLength} }

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

func (r *leap) NewThread(t *record.Thread) {}

func (r *leap) NewLoc(l *record.Loc) {
	if r.rle {
		l.State = &leapRun{}
	}
}

// access appends t's access to l's vector; the caller makes it exclusive.
func (r *leap) access(t *record.Thread, l *record.Loc) {
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
	if idx < inlineThreads {
		l.Stream.Put(tagThread0+uint8(idx), 0)
	} else {
		l.Stream.Put(tagThread, 0, uint64(idx))
	}
}

// leapFlush writes l's pending run, if any.
func leapFlush(l *record.Loc, run *leapRun) {
	switch {
	case run.count == 0:
	case run.count == 1 && run.thread < inlineThreads:
		l.Stream.Put(tagThread0+uint8(run.thread), 0)
	case run.count == 1:
		l.Stream.Put(tagThread, 0, uint64(run.thread))
	default:
		l.Stream.Put(tagRun, 0, uint64(run.thread), run.count)
	}
	run.count = 0
}

func (r *leap) ReadBegin(t *record.Thread, l *record.Loc) uint64 {
	l.Mu.Lock()
	r.access(t, l)
	return 0
}

func (r *leap) ReadEnd(t *record.Thread, l *record.Loc, begin uint64, value uint64) bool {
	l.Mu.Unlock()
	return false
}

func (r *leap) WriteBegin(t *record.Thread, l *record.Loc) {
	l.Mu.Lock()
	r.access(t, l)
}

func (r *leap) WriteEnd(t *record.Thread, l *record.Loc, a sched.Access, read, written uint64) {
	l.Mu.Unlock()
}

func (r *leap) Sync(t *record.Thread, l *record.Loc, a sched.Access, value uint64) {
	r.access(t, l)
}

func (r *leap) ExitThread(t *record.Thread) {}

func (r *leap) Close(locs []*record.Loc) {
	if !r.rle {
		return
	}
	for _, l := range locs {
		if run, ok := l.State.(*leapRun); ok {
			leapFlush(l, run)
		}
	}
}
