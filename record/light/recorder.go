package light

// Light (Liu et al., PLDI'15): record the flow dependences (which write each
// read read) without synchronizing the readers, and let the replayer solve
// for a schedule that preserves them.
//
// # What is recorded
//
// Every location's Word holds the identity of its last write, packed as
// (thread index << 40 | counter) + 1, so that 0 is the initial value. A
// write takes one of 2^10 striped locks (hashed by location id) in
// WriteBegin, marks the Word busy (a seqlock bit, so that a racing optimistic
// read that saw the old value cannot attribute the new one to the old
// writer) and stores its identity in WriteEnd before unlocking. A read is
// optimistic: ReadBegin loads the Word, ReadEnd reloads it and asks for a
// retry if it changed or was busy. Sync accesses (locks etc.) are made under
// the primitive's own exclusion and use the Word with no further lock: a
// ReadWrite is a read then a write of the ghost location, a Write a write.
//
// Flow dependences go to the reading goroutine's own state, with no
// synchronization. Lemma 4.3 and prec: per (thread, location) the thread
// keeps one open interval, writer w and first..last read counters; a read
// of the same writer extends it, a read of another closes it into the log
// (tagRead) and opens a new one; ExitThread logs the open ones.
//
// Lemma 4.3 for own accesses: a read of the goroutine's own last write of
// the location, and a write that overwrites it, are not logged at all
// (program order orders them); the read is published in the location
// (lightLoc.ownRead) for the other goroutine's write that overwrites it,
// which logs it with its predecessor.
//
// Unlike the paper, writes are logged too (tagWrite; tagWriteOwn
// is no longer written, the replay still reads it): the replay must perform
// every user write, and a write the solver does not know about could land
// inside a dependence interval. Each logged write names its predecessor in
// the location's write order (the value it overwrote, which for a ReadWrite
// is also the flow dependence of its read); the writes over the goroutine's
// own are not logged, as said above, and the replay holds them while
// logged reads of their predecessor are pending (see planner.go).
//
// Lemma 4.2, at run time. A location whose data accesses are always made
// while the accessing goroutine holds one and the same mutex (its guard) has
// its accesses ordered by the mutex's logged acquire/release dependences, so
// they are not logged at all. A mutex is recognized by its Sync pattern
// (ReadWrite by a goroutine while nobody holds it, Write by the holder);
// any other use poisons it, and it is no guard from then on. A location's
// guard is the first valid mutex its first accessor holds; the guard check
// and the access are made under the location's stripe lock (reads too,
// while the location is not broken). The first access without the guard
// held breaks the location for good: from then on every access is logged,
// and the skipped accesses are tied to the logged ones by a barrier: the
// location remembers the last skipped access (all skipped accesses are
// totally ordered by the guard's logged order, so the last one follows all
// others), and each goroutine's first logged access after the break logs
// tagBarrier (it comes after that access). The first logged write
// after the break names its skipped predecessor explicitly. So a broken
// location costs one barrier entry per goroutine, and a location that stays
// guarded costs nothing: in the lock-protected counters and banks the Var
// entries vanish and only lock dependences are left.

import (
	"slices"
	"sync"
	"sync/atomic"

	"github.com/weftdev/weft/record"
	"github.com/weftdev/weft/record/internal/table"
	"github.com/weftdev/weft/sched"
)

// Light's entry tags.
const (
	// tagRead: N = first read; args: location, writer code, writer
	// counter, last-first. Writer code 0: the initial value; 1: the same
	// goroutine, counter given as N - counter; k+2: goroutine k, counter
	// given as the zigzag delta to the counter of goroutine k that the
	// previous such code of this stream named (0 at first). A location
	// is given as the zigzag delta to the stream's previous entry's
	// location (0 at first). The replay decodes a stream's entries in
	// order, as they were written. The location and the writer code
	// share an argument (see lightThread.where), in this entry and in
	// tagWrite's and tagBarrier's.
	tagRead uint8 = record.TagFirst + iota
	// tagWrite: N = the write; args: location, predecessor code and
	// counter, coded as a read's writer, and, if the predecessor's
	// goroutine read its own write (reads that are not logged), how many
	// operations after the predecessor its last such read came.
	tagWrite
	// tagWriteOwn: N = the write; args: location. Its predecessor is
	// the goroutine's previous logged write to the location.
	tagWriteOwn
	// tagBarrier: N = an access; args: location, goroutine code and
	// counter, coded as a read's writer: the access comes after that one.
	tagBarrier
	// tagGuarded: location stream: the location stayed guarded by
	// location args[0] and none of its accesses were logged; args[1]
	// counts them.
	tagGuarded
	// tagStart: N = the goroutine's first access; args: its parent
	// and the counter of the operation that started it, coded as a
	// read's writer (the start edge of §4.3: the start is a write the
	// goroutine's first access reads).
	tagStart
)

// tagRepeat+j, j < dictSize: N = an access; the entry is the one
// of the stream's last dictSize distinct entries (tags and arguments as
// coded) that is j-th most recently used, repeated at N. A stream's
// periodic entries, as a pipeline stage's, cost a byte and N's.
const (
	tagRepeat uint8 = 16
	dictSize        = 16
)

// tagCopy: N = the last entry's; args: d, k: the k entries (tags
// and arguments as logged, repeats not expanded, and the differences of
// their counters to their predecessors') that come d entries before
// each, d ≤ copyWindow: a run of the stream's period costs an entry.
// Only Light's entries count.
const (
	tagCopy      uint8 = 14
	copyWindow         = 64
	lightMinCopy       = 3 // a copy of fewer entries costs more than they
)

// NewThread sizes a goroutine's counters of the goroutines it names (see
// tagRead) for lightSiblings more than its index, at most
// lightMaxSiblings: a goroutine mostly names those started near it.
const (
	lightSiblings    = 4
	lightMaxSiblings = 64
)

const (
	lightStripes = 1 << 10
	lightBusy    = 1 << 62 // Word bit: a write is in progress
	lightSkip    = 1 << 63 // ReadBegin result: a guarded read, stripe held
)

// Location guard modes.
const (
	lightFresh uint32 = iota
	lightGuarded
	lightBroken
)

type light struct {
	stripes [lightStripes]sync.Mutex
	// lastLoc is the id of the run's newest location (see NewThread).
	lastLoc atomic.Uint32
}

// lightLoc is Light's state of a location.
type lightLoc struct {
	// As a mutex (Sync accesses): its holder (index+1) and whether it
	// was used otherwise than as a mutex.
	holder   atomic.Uint32
	poisoned atomic.Bool
	// As a data location: the guard mode; guard, last and skipped are
	// guarded by the stripe lock, barrier is written before mode turns
	// lightBroken and read after seeing it.
	mode    atomic.Uint32
	guard   *record.Loc
	last    uint64 // identity of the last skipped access
	skipped uint64
	barrier uint64
	// ownRead is the identity of the last read of a goroutine's own last
	// write (Lemma 4.3: not logged). The write that overwrites it, by
	// another goroutine, logs it as its predecessor's last reader. The
	// reader stores it between loading the Word and loading the value,
	// and validates the Word after: a writer, which marks the Word busy
	// before loading ownRead, sees every read that validated before it.
	ownRead atomic.Uint64
}

// lightThread is Light's state of a goroutine.
type lightThread struct {
	held []*record.Loc        // mutexes held
	locs table.Table[lightTL] // per location
	skip bool                 // the pending write is a guarded one
	// start holds the arguments of the goroutine's tagStart entry,
	// logged with its first access; pending says it is not logged yet.
	start   [2]uint64
	pending bool
	// The coding state of the stream (see tagRead): the counter
	// last named of each goroutine, by index, and the last location.
	prevN   []uint64
	prevLoc uint32
	// dict holds the stream's last ndict distinct entries (see
	// tagRepeat), in slots; order lists the slots, most recently used
	// first.
	dict  [dictSize]lightEntry
	dh    [dictSize]uint64 // the entries' hashes, by slot, to scan
	order [dictSize]uint8
	ndict int
	// hist holds the last copyWindow entries as logged, a ring (see
	// back), nhist how many were logged; the last ml of them are
	// pending: they repeat the entries md before them (see tagCopy).
	// lastN is the counter of the last one.
	hist   *[copyWindow]lightRaw
	hh     [copyWindow]uint64 // hist's keys (rawKey), to scan
	nhist  int
	md, ml int
	lastN  uint64
	// deferred holds the entries put until the release of the
	// primitive they were reported in (see put).
	deferred record.Deferred
}

// lightRaw is an entry as logged (tagCopy), but for its counter n.
type lightRaw struct {
	e  lightEntry
	dn uint64 // n minus the previous entry's
	n  uint64
}

// lightEntry is a coded entry, but for its counter. h hashes the others:
// comparisons look at it first.
type lightEntry struct {
	h    uint64
	tag  uint8
	argc uint8
	args [4]uint64
}

// newLightEntry returns the entry of tag and args, hashed.
func newLightEntry(tag uint8, args []uint64) lightEntry {
	e := lightEntry{tag: tag, argc: uint8(len(args))}
	copy(e.args[:], args)
	e.h = uint64(tag)<<8 | uint64(e.argc)
	for _, a := range e.args {
		e.h = (e.h ^ a) * 0x9e3779b97f4a7c15
	}
	return e
}

// put logs an entry of t's stream once t releases the primitive it is in
// (record.Deferred): the entry's arguments are what they are now, the
// coding against the stream's previous entries (a repeat, a copy) is made
// then, outside the program's critical section, in the same order. Coding
// an entry costs tens of nanoseconds; made inside the critical section,
// where almost every entry of a lock-bound program is reported, it made
// Light hide the bug it records (internal/workload's buggy bank and cache).
func (ts *lightThread) put(t *record.Thread, tag uint8, n uint64, args ...uint64) {
	if ts.deferred.Full() {
		ts.drain(t)
	}
	ts.deferred.Put(t, tag, n, args...)
}

// drain codes the deferred entries, in order.
func (ts *lightThread) drain(t *record.Thread) {
	for i := range ts.deferred.Len() {
		tag, n, args := ts.deferred.Entry(i)
		ts.code1(t, tag, n, args...)
	}
	ts.deferred.Reset()
}

// Released codes the entries t deferred inside the critical section it
// left (see put).
func (r *light) Released(t *record.Thread) { t.State.(*lightThread).drain(t) }

// code1 logs an entry of t's stream, as a repeat of one of the last
// distinct ones if it is one of them (see tagRepeat).
func (ts *lightThread) code1(t *record.Thread, tag uint8, n uint64, args ...uint64) {
	e := newLightEntry(tag, args)
	for j, slot := range ts.order[:ts.ndict] {
		if ts.dh[slot] == e.h && ts.dict[slot] == e {
			copy(ts.order[1:j+1], ts.order[:j])
			ts.order[0] = slot
			r := newLightEntry(tagRepeat+uint8(j), nil)
			ts.raw(t, &r, n)
			return
		}
	}
	// A new entry takes a free slot, or the least recently used one.
	slot := uint8(ts.ndict)
	if ts.ndict < dictSize {
		ts.ndict++
	} else {
		slot = ts.order[dictSize-1]
	}
	copy(ts.order[1:ts.ndict], ts.order[:ts.ndict-1])
	ts.order[0] = slot
	ts.dict[slot], ts.dh[slot] = e, e.h
	ts.raw(t, &e, n)
}

// raw logs entry e at counter n, as part of a copy if it repeats the
// window's entries (see tagCopy).
func (ts *lightThread) raw(t *record.Thread, e *lightEntry, n uint64) {
	dn := n - ts.lastN
	ts.lastN = n
	key := rawKey(e, dn)
	if ts.md > 0 {
		if ts.hh[(ts.nhist-ts.md)%copyWindow] == key && ts.back(ts.md).same(e, dn) {
			ts.ml++
			ts.push(e, key, dn, n)
			return
		}
		ts.flush(t)
	}
	for d := 1; d <= min(copyWindow, ts.nhist); d++ {
		if ts.hh[(ts.nhist-d)%copyWindow] == key && ts.back(d).same(e, dn) {
			ts.md, ts.ml = d, 1
			ts.push(e, key, dn, n)
			return
		}
	}
	t.Stream.Put(e.tag, n, e.args[:e.argc]...)
	ts.push(e, key, dn, n)
}

// rawKey hashes an entry as logged, but for its counter: equal ones have
// equal keys.
func rawKey(e *lightEntry, dn uint64) uint64 { return (e.h ^ dn) * 0xbf58476d1ce4e5b9 }

func (r *lightRaw) same(e *lightEntry, dn uint64) bool { return r.dn == dn && r.e == *e }

// back returns the entry logged d ≤ copyWindow entries before the next.
func (ts *lightThread) back(d int) *lightRaw {
	return &ts.hist[(ts.nhist-d)%copyWindow]
}

// push adds an entry to the window, over the oldest: a copy reaches back
// copyWindow entries at most, and the pending entries a flush logs one by
// one are the last ones.
func (ts *lightThread) push(e *lightEntry, key, dn, n uint64) {
	ts.hist[ts.nhist%copyWindow] = lightRaw{e: *e, dn: dn, n: n}
	ts.hh[ts.nhist%copyWindow] = key
	ts.nhist++
}

// flush logs the pending entries: a copy, or each if they are few.
func (ts *lightThread) flush(t *record.Thread) {
	if ts.ml == 0 {
		return
	}
	if ts.ml >= lightMinCopy {
		t.Stream.Put(tagCopy, ts.back(1).n, uint64(ts.md), uint64(ts.ml))
	} else {
		for d := ts.ml; d >= 1; d-- {
			r := ts.back(d)
			t.Stream.Put(r.e.tag, r.n, r.e.args[:r.e.argc]...)
		}
	}
	ts.md, ts.ml = 0, 0
}

// lightTL is a goroutine's state for one location.
type lightTL struct {
	w           uint64 // writer of the open interval
	first, last uint64
	open        bool
	synced      bool // barrier handled
}

func (*light) Algorithm() string { return "light" }

// NewThread is called by the parent goroutine (in Go), the root's by none.
//
// It makes what the goroutine's first accesses need, so that they
// allocate and code as little as they can: they are made inside the
// program's critical sections, at the goroutine's start, when it races with
// the siblings started with it. Microseconds spent there (allocations,
// growing the window an entry at a time) let a sibling that waits for the
// lock give up spinning and sleep, and the goroutines that should race run
// one after the other: Light's free runs hid the lost update of the buggy
// bank (internal/workload) more often than plain runs did, the probe
// effect. So: the copy window whole, the lock list, the counters of the
// goroutines started near it, the page of the per-location table where the
// run's newest locations are, and the tagStart entry coded (its coding
// depends on nothing the goroutine does).
func (r *light) NewThread(t *record.Thread) {
	ts := &lightThread{hist: new([copyWindow]lightRaw), held: make([]*record.Loc, 0, 4),
		prevN: make([]uint64, min(t.Index()+lightSiblings, lightMaxSiblings))}
	if p := record.Current(); p != nil && p.Run() == t.Run() {
		c, v := ts.code(t, 0, packID(p))
		ts.start, ts.pending = [2]uint64{c, v}, true
	}
	if id := r.lastLoc.Load(); id != 0 {
		ts.locs.Get(id)
	}
	t.State = ts
}

// started logs, at t's first access, the operation that started t.
func (ts *lightThread) started(t *record.Thread) {
	if ts.pending {
		ts.pending = false
		ts.put(t, tagStart, t.N(), ts.start[0], ts.start[1])
	}
}

func (r *light) NewLoc(l *record.Loc) {
	l.State = &lightLoc{}
	r.lastLoc.Store(l.ID())
}

func packID(t *record.Thread) uint64 { return uint64(t.Index())<<40 | t.N() + 1 }

func (r *light) stripe(l *record.Loc) *sync.Mutex {
	h := l.ID() * 0x9e3779b1
	return &r.stripes[h>>22]
}

func (ts *lightThread) tl(l *record.Loc) *lightTL { return ts.locs.Get(l.ID()) }

// guarded decides, under l's stripe lock, whether t's access to l is a
// guarded one, not logged; if not, the location is broken from now on.
func (ls *lightLoc) guarded(t *record.Thread, ts *lightThread) bool {
	switch ls.mode.Load() {
	case lightFresh:
		for _, m := range ts.held {
			if validMutex(m, t) {
				ls.guard = m
				ls.mode.Store(lightGuarded)
				return true
			}
		}
		ls.mode.Store(lightBroken)
		return false
	case lightGuarded:
		if validMutex(ls.guard, t) {
			return true
		}
		ls.barrier = ls.last
		ls.mode.Store(lightBroken)
	}
	return false
}

func validMutex(m *record.Loc, t *record.Thread) bool {
	ms := m.State.(*lightLoc)
	return !ms.poisoned.Load() && ms.holder.Load() == t.Index()+1
}

// logged prepares a logged access of t to l: the barrier, once per
// goroutine after l broke.
func (ls *lightLoc) logged(t *record.Thread, ts *lightThread, l *record.Loc, tl *lightTL) {
	if tl.synced {
		return
	}
	tl.synced = true
	if b := ls.barrier; b != 0 {
		var a [4]uint64
		ts.put(t, tagBarrier, t.N(), ts.where(t, &a, l.ID(), t.N(), b)...)
	}
}

// code codes identity w (0 the initial value) for an entry of t's stream
// at counter base (see tagRead).
func (ts *lightThread) code(t *record.Thread, base, w uint64) (code, v uint64) {
	if w == 0 {
		return 0, 0
	}
	w--
	idx, n := uint32(w>>40), w&(1<<40-1)
	if idx == t.Index() && n <= base {
		return 1, base - n
	}
	for int(idx) >= len(ts.prevN) {
		ts.prevN = append(ts.prevN, 0)
	}
	d := int64(n - ts.prevN[idx])
	ts.prevN[idx] = n
	return uint64(idx) + 2, zigzag(d)
}

// loc codes location id for an entry of t's stream (see tagRead).
func (ts *lightThread) loc(id uint32) uint64 {
	d := int64(id) - int64(ts.prevLoc)
	ts.prevLoc = id
	return zigzag(d)
}

// where codes location id and identity w for an entry of t's stream at
// counter base, in a (see tagRead): the location and the writer
// code packed in one argument, location<<3 | code, if the code is below
// 7, else location<<3 | 7 and code-7.
func (ts *lightThread) where(t *record.Thread, a *[4]uint64, id uint32, base, w uint64) []uint64 {
	lc := ts.loc(id)
	c, v := ts.code(t, base, w)
	if c < 7 {
		a[0], a[1] = lc<<3|c, v
		return a[:2]
	}
	a[0], a[1], a[2] = lc<<3|7, c-7, v
	return a[:3]
}

func zigzag(d int64) uint64 { return uint64(d<<1) ^ uint64(d>>63) }

func (r *light) ReadBegin(t *record.Thread, l *record.Loc) uint64 {
	ls := l.State.(*lightLoc)
	ts := t.State.(*lightThread)
	ts.started(t)
	if ls.mode.Load() != lightBroken {
		mu := r.stripe(l)
		mu.Lock()
		if ls.guarded(t, ts) {
			return lightSkip
		}
		mu.Unlock()
	}
	w := l.Word.Load()
	if w&lightBusy == 0 && lightOwn(t, w) {
		// A read of t's own last write: published before the value is
		// loaded, so that a write that overwrites it after ReadEnd
		// validated the read sees it (see lightLoc.ownRead).
		ls.ownRead.Store(packID(t))
	}
	return w
}

// lightOwn reports that identity w names one of t's writes.
func lightOwn(t *record.Thread, w uint64) bool { return w != 0 && uint32((w-1)>>40) == t.Index() }

func (r *light) ReadEnd(t *record.Thread, l *record.Loc, begin uint64, value uint64) bool {
	ls := l.State.(*lightLoc)
	if begin == lightSkip {
		ls.last = packID(t)
		ls.skipped++
		r.stripe(l).Unlock()
		return false
	}
	if begin&lightBusy != 0 || l.Word.Load() != begin {
		return true
	}
	r.read(t, l, ls, begin)
	return false
}

// read logs (or extends) t's dependence on write w of l.
func (r *light) read(t *record.Thread, l *record.Loc, ls *lightLoc, w uint64) {
	ts := t.State.(*lightThread)
	tl := ts.tl(l)
	ls.logged(t, ts, l, tl)
	if lightOwn(t, w) {
		// Program order and the chain of writes order it: no entry.
		return
	}
	if tl.open && tl.w == w {
		tl.last = t.N()
		return
	}
	if tl.open {
		lightEmit(t, ts, l.ID(), tl)
	}
	tl.open, tl.w, tl.first, tl.last = true, w, t.N(), t.N()
}

func lightEmit(t *record.Thread, ts *lightThread, loc uint32, tl *lightTL) {
	var a [4]uint64
	ts.put(t, tagRead, tl.first, append(ts.where(t, &a, loc, tl.first, tl.w), tl.last-tl.first)...)
	tl.open = false
}

func (r *light) WriteBegin(t *record.Thread, l *record.Loc) {
	ls := l.State.(*lightLoc)
	ts := t.State.(*lightThread)
	ts.started(t)
	r.stripe(l).Lock()
	ts.skip = ls.mode.Load() != lightBroken && ls.guarded(t, ts)
	l.Word.Store(l.Word.Load() | lightBusy)
}

func (r *light) WriteEnd(t *record.Thread, l *record.Loc, a sched.Access, read, written uint64) {
	ls := l.State.(*lightLoc)
	ts := t.State.(*lightThread)
	prev := l.Word.Load() &^ lightBusy
	if ts.skip {
		ts.skip = false
		ls.last = packID(t)
		ls.skipped++
	} else {
		r.write(t, l, ls, ts, prev)
	}
	l.Word.Store(packID(t))
	r.stripe(l).Unlock()
}

// write logs t's write to l, whose predecessor is prev.
func (r *light) write(t *record.Thread, l *record.Loc, ls *lightLoc, ts *lightThread, prev uint64) {
	tl := ts.tl(l)
	ls.logged(t, ts, l, tl)
	if prev != 0 && uint32((prev-1)>>40) == t.Index() {
		// It overwrites t's own previous write of l: program order
		// orders the two, and the replay holds it while reads of its
		// predecessor are pending (see planner.go).
		return
	}
	var a [4]uint64
	args := ts.where(t, &a, l.ID(), t.N(), prev)
	if or := ls.ownRead.Load(); prev != 0 && or != 0 && (or-1)>>40 == (prev-1)>>40 && or > prev {
		// prev's goroutine read prev after writing it: this write
		// comes after its last such read.
		args = append(args, or-prev)
	}
	ts.put(t, tagWrite, t.N(), args...)
}

func (r *light) Sync(t *record.Thread, l *record.Loc, a sched.Access, value uint64) {
	ls := l.State.(*lightLoc)
	ts := t.State.(*lightThread)
	ts.started(t)
	me := t.Index() + 1
	switch a {
	case sched.ReadWrite:
		if ls.holder.Load() != 0 {
			ls.poisoned.Store(true)
		} else {
			ls.holder.Store(me)
			ts.held = append(ts.held, l)
		}
	case sched.Write:
		if ls.holder.Load() != me {
			ls.poisoned.Store(true)
		} else {
			ls.holder.Store(0)
			if i := slices.Index(ts.held, l); i >= 0 {
				ts.held = slices.Delete(ts.held, i, i+1)
			}
		}
	default:
		ls.poisoned.Store(true)
	}
	// Sync accesses are always logged; the ghost location is not a
	// guarded data location.
	if ls.mode.Load() != lightBroken {
		mu := r.stripe(l)
		mu.Lock()
		if ls.mode.Load() == lightGuarded {
			ls.barrier = ls.last
		}
		ls.mode.Store(lightBroken)
		mu.Unlock()
	}
	prev := l.Word.Load()
	switch a {
	case sched.Read:
		if lightOwn(t, prev) {
			ls.ownRead.Store(packID(t))
		}
		r.read(t, l, ls, prev)
		return
	case sched.ReadWrite, sched.Write:
		r.write(t, l, ls, ts, prev)
		l.Word.Store(packID(t))
	}
}

func (r *light) ExitThread(t *record.Thread) {
	ts := t.State.(*lightThread)
	ts.locs.Each(func(id uint32, tl *lightTL) {
		if tl.open {
			lightEmit(t, ts, id, tl)
		}
	})
	ts.drain(t)
	ts.flush(t)
}

func (r *light) Close(locs []*record.Loc) {
	for _, l := range locs {
		ls := l.State.(*lightLoc)
		if ls.mode.Load() == lightGuarded {
			l.Stream.Put(tagGuarded, 0, uint64(ls.guard.ID()), ls.skipped)
		}
	}
}
