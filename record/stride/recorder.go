package stride

import (
	"github.com/weftdev/weft/record"
	"github.com/weftdev/weft/record/internal/table"
	"github.com/weftdev/weft/sched"
)

// Stride (Zhou, Xiao, Zhang, ICSE'12): search-based replay through bounded
// linkages.
//
// Writes are ordered per location under synchronization: a write holds
// record.Loc.Mu around the store, takes the next version of the location and
// appends itself to the location's stream (Stride's LW_x), so a write's
// version is its rank in that stream, implicit. Synchronization accesses
// (a Lock, an Unlock, ...) are writes of their location too, ordered by the
// primitive's own exclusion (Stride's lock order LA_l).
//
// Reads take no lock and are never repeated: a read logs, in its
// goroutine's stream (Stride's TR_i), the digest of the value it returned
// and its bounded linkage: the latest version of the location the read can
// possibly have read, loaded from the location's version word just after
// the value (OREO: "the latest version of write that read can possibly link
// to"; AggrePlay: the version is "the upper" bound and the value "the
// matching criterion"). The replay (planner.go) searches back from
// that bound for a write of the same value.
//
// The version word (record.Loc.Word) counts twice per write, as a sequence lock
// does: odd while a write's store is in progress, even once it is done; the
// version is Word/2 rounded up. The bound logged is therefore exact: a read
// that ends while a store is in progress may have read it (bound = that
// write), and one that ends with an even word has read a completed write.
//
// A read-modify-write (atomics) and a synchronization read-write are writes
// under the location's exclusion: they read the previous version, exactly,
// and log nothing more. A synchronization read alone (exclusive too) logs
// its exact version.
//
// Entries. Location stream (one per location, in version order):
//
//	tagWrite     goroutine, ΔN, value digest
//	tagWriteSame ΔN, value digest            (same goroutine as the previous write)
//
// ΔN is the operation counter minus that of the goroutine's previous write
// of the location. Goroutine streams (counter delta-coded by the stream):
//
//	tagRead      location, value digest, Δbound
//	tagReadSame  value digest, Δbound        (same location as the goroutine's previous read)
//	tagSyncRead  location, Δversion          (exact)
//
// Δbound is the bound minus the one of the goroutine's previous read of the
// location (versions a goroutine sees only grow), modulo 2^64.
//
// State is bounded: per goroutine, the last bound seen per location; per
// location, the last counter per goroutine and the last writer.
const (
	tagWrite     uint8 = record.TagFirst
	tagWriteSame uint8 = record.TagFirst + 1
	tagRead      uint8 = record.TagFirst + 2
	tagReadSame  uint8 = record.TagFirst + 3
	tagSyncRead  uint8 = record.TagFirst + 4
)

type strideRecorder struct{}

// strideThread is a goroutine's Stride state, its own.
type strideThread struct {
	lastLoc uint32              // location of the previous read, 0 for none
	bound   table.Table[uint64] // location → last version logged by a read
	// deferred holds the read entries of the goroutine's stream logged
	// once it releases the primitive it is in (see put).
	deferred record.Deferred
	// inside: the goroutine's last synchronization report was a
	// ReadWrite (a Lock's), not a Write (an Unlock's): its reads are
	// deferred (see put).
	inside bool
}

// put logs an entry of t's stream once t releases the primitive it is in
// (record.Deferred): a read made inside a critical section is appended to
// the stream after the release, in order, so that what the section costs
// stays inside it and the gap between two sections, where a race between
// them is decided, grows instead (the probe effect, internal/workload). A
// location stream's entries stay under the location's exclusion: their
// order is the writes'.
// Outside a critical section (after a Write report, or before any
// ReadWrite one), with nothing deferred, ReadEnd appends at once.
func (st *strideThread) put(t *record.Thread, tag uint8, n uint64, args ...uint64) {
	if st.deferred.Full() {
		st.drain(t)
	}
	st.deferred.Put(t, tag, n, args...)
}

// drain appends the deferred entries to t's stream.
func (st *strideThread) drain(t *record.Thread) {
	for i := range st.deferred.Len() {
		tag, n, args := st.deferred.Entry(i)
		t.Stream.Put(tag, n, args...)
	}
	st.deferred.Reset()
}

// Released appends the entries t deferred (see put).
func (strideRecorder) Released(t *record.Thread) { t.State.(*strideThread).drain(t) }

// strideLoc is a location's Stride state, guarded by record.Loc.Mu (Var writes) or
// by the primitive's exclusion (synchronization).
type strideLoc struct {
	lastThread uint32   // goroutine of the previous write, +1 (0: none)
	lastN      []uint64 // goroutine index → counter of its previous write here
}

func (strideRecorder) Algorithm() string { return "stride" }

func (strideRecorder) NewThread(t *record.Thread) {
	t.State = &strideThread{}
}

func (strideRecorder) NewLoc(l *record.Loc) { l.State = &strideLoc{} }

// ReadBegin returns the version word before the load; Stride logs the one
// after it.
func (strideRecorder) ReadBegin(t *record.Thread, l *record.Loc) uint64 { return l.Word.Load() }

func (strideRecorder) ReadEnd(t *record.Thread, l *record.Loc, begin uint64, value uint64) bool {
	w := l.Word.Load()
	bound := (w + 1) / 2
	st := t.State.(*strideThread)
	id := l.ID()
	b := st.bound.Get(id)
	delta := bound - *b
	*b = bound
	later := st.inside || st.deferred.Len() > 0
	switch {
	case st.lastLoc == id && !later:
		t.Stream.Put(tagReadSame, t.N(), value, delta)
	case st.lastLoc == id:
		st.put(t, tagReadSame, t.N(), value, delta)
	case !later:
		st.lastLoc = id
		t.Stream.Put(tagRead, t.N(), uint64(id), value, delta)
	default:
		st.lastLoc = id
		st.put(t, tagRead, t.N(), uint64(id), value, delta)
	}
	return false
}

func (strideRecorder) WriteBegin(t *record.Thread, l *record.Loc) {
	l.Mu.Lock()
	l.Word.Add(1) // odd: the store is in progress
}

func (strideRecorder) WriteEnd(t *record.Thread, l *record.Loc, a sched.Access, read, written uint64) {
	l.Word.Add(1)
	strideLogWrite(t, l, written)
	l.Mu.Unlock()
}

func (strideRecorder) Sync(t *record.Thread, l *record.Loc, a sched.Access, value uint64) {
	if a == sched.Read {
		// Exclusive: the version is exact.
		v := l.Word.Load() / 2
		st := t.State.(*strideThread)
		id := l.ID()
		b := st.bound.Get(id)
		delta := v - *b
		*b = v
		st.put(t, tagSyncRead, t.N(), uint64(id), delta)
		return
	}
	st := t.State.(*strideThread)
	st.inside = a == sched.ReadWrite
	l.Word.Add(2)
	strideLogWrite(t, l, 0)
}

// strideLogWrite appends t's write to l's stream; l is exclusive.
func strideLogWrite(t *record.Thread, l *record.Loc, digest uint64) {
	ls := l.State.(*strideLoc)
	idx := t.Index()
	for uint32(len(ls.lastN)) <= idx {
		ls.lastN = append(ls.lastN, 0)
	}
	dn := t.N() - ls.lastN[idx]
	ls.lastN[idx] = t.N()
	if ls.lastThread == idx+1 {
		l.Stream.Put(tagWriteSame, 0, dn, digest)
	} else {
		ls.lastThread = idx + 1
		l.Stream.Put(tagWrite, 0, uint64(idx), dn, digest)
	}
}

func (strideRecorder) ExitThread(t *record.Thread) { t.State.(*strideThread).drain(t) }

func (strideRecorder) Close(locs []*record.Loc) {}
