package aggreplay

import (
	"github.com/weftdev/weft/record"
	"github.com/weftdev/weft/sched"
)

// AggrePlay (Pobee and Chan, ESEC/FSE 2019, Algorithm 1) records, per
// location x:
//
//   - W_x, the order of the writes to x (a write: a Var store, an atomic
//     read-modify-write, a synchronization access of kind Write such as an
//     Unlock), in x's location stream;
//   - L_m, the order of the lock acquisitions of m (a synchronization access
//     of kind ReadWrite: Mutex.Lock; generalized to every synchronization
//     read-modify-write, a channel operation, a Once, a Cond), in m's
//     location stream too;
//   - WR_x, the write each read of x (a load, a synchronization access of
//     kind Read) read from (its last write), in the reader's thread stream,
//     keyed by the read's counter;
//   - before each write, the writer's read-count vector RC_t.x
//     (updateReadVectors), in the writer's thread stream EX_t, keyed by the
//     write's counter.
//
// With the optimizations of §5.9: O1 and O2, a write whose RC vector did not
// change but for the writer's own count since its previous write logs no
// vector (a null line Θ); O3, the vector is run-length coded as (c, d)
// pairs: d consecutive threads with read count c.
//
// Where this departs from the paper, for a compact log:
//
//   - Every access is named by (thread, counter), so entries keyed by a
//     counter need no position: a null line Θ is the absence of an EX entry
//     for the write's counter, and costs nothing.
//   - WR_x entries are matched by the read's identity (its thread and
//     counter) rather than by position in a per-location list, and name the
//     write read by its position in x's location stream (its version: 0 is
//     x's initial value), delta-coded against the version the thread's
//     previous read of x read. A read that read the same write as the
//     thread's previous read of x (or, for its first read, the initial
//     value) logs nothing.
//   - W_x and L_m of one location share its stream, in the order of the
//     accesses (all are made under record.Loc.Mu or the primitive's exclusion), and
//     the replay follows that one order.
//   - A read-modify-write (an atomic Add, a CompareAndSwap) is a write in W_x
//     and not a read: the write order fixes the value it reads.
//   - W_x and L_m entries give the thread and the counter, delta-coded per
//     thread and location.
//
// Per-location state is a handful of counters per thread (O(#threads) per
// location); nothing grows with the number of events.
type aggreplay struct{}

// Entry tags of the aggreplay log.
const (
	// tagRead (thread stream): the read N read the write of version
	// Args[0] + the version the thread's previous read of the location
	// read (versions: positions in the location stream, from 1; 0 is the
	// initial value).
	tagRead uint8 = record.TagFirst
	// tagEX (thread stream): the RC vector of the write N, as (c, d)
	// pairs; several entries with the same N continue the vector.
	tagEX uint8 = record.TagFirst + 1
	// tagW (location stream): the next write of W_x, by thread Args[0],
	// counter Args[1] + the thread's previous counter in this stream.
	tagW uint8 = record.TagFirst
	// tagL (location stream): the next acquisition of L_m, coded as tagW.
	tagL uint8 = record.TagFirst + 1
)

// aggLoc is the per-location state, guarded by record.Loc.Mu.
type aggLoc struct {
	own       []uint64 // RC_t.x[t]: reads of x by each thread
	total     uint64   // sum of own
	snapTotal []uint64 // total at each thread's last write (O1/O2)
	snapOwn   []uint64 // own[t] at t's last write
	lastN     []uint64 // each thread's last counter in the location stream
	prevRead  []uint64 // the version each thread's last read of x read
	ver       uint64   // last_write(x): its version, 0 for none
}

func (s *aggLoc) grow(i uint32) {
	for uint32(len(s.own)) <= i {
		s.own = append(s.own, 0)
		s.snapTotal = append(s.snapTotal, 0)
		s.snapOwn = append(s.snapOwn, 0)
		s.lastN = append(s.lastN, 0)
		s.prevRead = append(s.prevRead, 0)
	}
}

func (aggreplay) Algorithm() string { return "aggreplay" }

func (aggreplay) NewThread(t *record.Thread) {}

func (aggreplay) NewLoc(l *record.Loc) { l.State = &aggLoc{} }

func (aggreplay) ReadBegin(t *record.Thread, l *record.Loc) uint64 {
	// Mu is held to ReadEnd: the read and its last-write lookup are one
	// atomic step, so the read never has to be repeated.
	l.Mu.Lock()
	return 0
}

func (a aggreplay) ReadEnd(t *record.Thread, l *record.Loc, begin uint64, value uint64) bool {
	a.read(t, l.State.(*aggLoc))
	l.Mu.Unlock()
	return false
}

// read is onRead: RC_t.x[t]++, and WR_x gets ⟨lw, e⟩ (elided when lw is
// that of t's previous read of x).
func (aggreplay) read(t *record.Thread, s *aggLoc) {
	i := t.Index()
	s.grow(i)
	s.own[i]++
	s.total++
	if s.prevRead[i] == s.ver {
		return
	}
	t.Stream.Put(tagRead, t.N(), s.ver-s.prevRead[i])
	s.prevRead[i] = s.ver
}

func (a aggreplay) WriteBegin(t *record.Thread, l *record.Loc) {
	l.Mu.Lock()
	a.write(t, l, l.State.(*aggLoc), tagW)
}

func (aggreplay) WriteEnd(t *record.Thread, l *record.Loc, _ sched.Access, read, written uint64) {
	l.Mu.Unlock()
}

// write is onWrite (updateReadVectors, then W_x) for tag tagW, and
// onLockAcquire (L_m) for tagL; both make the access x's last write.
func (aggreplay) write(t *record.Thread, l *record.Loc, s *aggLoc, tag uint8) {
	i := t.Index()
	s.grow(i)
	if tag == tagW {
		// updateReadVectors: RC_t.x takes every thread's current count.
		// It changed but for t's own count (O1, O2) iff other threads
		// read x since t's previous write to it.
		others := (s.total - s.snapTotal[i]) - (s.own[i] - s.snapOwn[i])
		s.snapTotal[i], s.snapOwn[i] = s.total, s.own[i]
		if others != 0 {
			putRC(t, s.own)
		}
	}
	l.Stream.Put(tag, 0, uint64(i), t.N()-s.lastN[i])
	s.lastN[i] = t.N()
	s.ver++
}

// putRC logs the RC vector rc of t's current write, O3-coded: (c, d)
// pairs, trailing zeros left out, three pairs an entry.
func putRC(t *record.Thread, rc []uint64) {
	end := len(rc)
	for end > 0 && rc[end-1] == 0 {
		end--
	}
	var args [6]uint64
	k := 0
	for j := 0; j < end; {
		c, d := rc[j], 1
		for j+d < end && rc[j+d] == c {
			d++
		}
		j += d
		args[k], args[k+1] = c, uint64(d)
		k += 2
		if k == len(args) {
			t.Stream.Put(tagEX, t.N(), args[:k]...)
			k = 0
		}
	}
	if k > 0 {
		t.Stream.Put(tagEX, t.N(), args[:k]...)
	}
}

func (a aggreplay) Sync(t *record.Thread, l *record.Loc, acc sched.Access, value uint64) {
	// The primitive's exclusion orders the reports; Mu costs nothing
	// uncontended and keeps the state safe should a primitive report from
	// under another lock.
	l.Mu.Lock()
	s := l.State.(*aggLoc)
	switch acc {
	case sched.Read:
		a.read(t, s)
	case sched.Write:
		a.write(t, l, s, tagW)
	case sched.ReadWrite:
		a.write(t, l, s, tagL)
	}
	l.Mu.Unlock()
}

func (aggreplay) ExitThread(t *record.Thread) {}

func (aggreplay) Close(locs []*record.Loc) {}
