package aggreplay

import (
	"fmt"

	"github.com/weftdev/weft/record"
	"github.com/weftdev/weft/sched"
)

// The AggrePlay replayer (Pobee and Chan, ESEC/FSE 2019, Algorithm 2) as an
// oracle:
//
//   - a write (a write of W_x) may go when it is the head of W_x and
//     checkReads holds: every thread's read count of x in the replay is at
//     least the one of the RC vector logged for the write (EX_t); a write
//     with no logged vector is a null line Θ (O1, O2), and checkReads holds;
//   - a lock acquisition may go when it is the head of L_m;
//   - a read may go when x's last write in the replay is the one it read in
//     the recording (WR_x).
//
// Performed pops W_x or L_m, or counts the read (RC_t[t]++).
//
// Departures from the paper (see recorder.go for the log):
//
//   - W_x and L_m name (thread, counter), so the head is matched by the
//     access's identity; EX entries and WR entries are found by the
//     access's identity too, not by position: a write without an EX entry
//     is a null line, a read without a WR entry read the same write as the
//     thread's previous read of the location (or x's initial value, version
//     0, for a first read).
//   - The last write is named by its version, its position in the
//     location's stream, W_x and L_m together in the recorded order, which
//     the replay follows as one list.
//   - updateReadVectors is implicit: the replay keeps each thread's read
//     count per location, which is what RC_t[t'] is copied from.
//   - An operation the log does not order (a failed TryLock, an operation
//     on a location the replay cannot name) is allowed.
type aggOracle struct {
	locs map[uint32]*aggReplayLoc
	ops  map[aggKey]aggOp     // the writes and acquisitions the log orders
	ex   map[aggKey][]uint64  // RC vectors, O3 pairs resolved
	wr   map[aggKey]uint64    // a read → the version delta it read
	prev map[[2]uint32]uint64 // (thread, location) → version its last read read
}

// aggKey names an access: thread index and counter.
type aggKey struct {
	t uint32
	n uint64
}

// aggOp is a write (of W_x) or a lock acquisition (of L_m) of location loc.
type aggOp struct {
	loc   uint32
	write bool
}

type aggReplayLoc struct {
	order  []aggKey // W_x and L_m, in the recorded order
	done   uint64   // how many of order were performed: last_write's version
	counts []uint64 // reads of x by each thread in the replay
}

// planAggrePlay reads an AggrePlay log: each location's order of writes
// and acquisitions, then each goroutine's reads and RC vectors.
func planAggrePlay(log *record.Log) (record.Oracle, error) {
	o := &aggOracle{locs: map[uint32]*aggReplayLoc{}, ops: map[aggKey]aggOp{},
		ex: map[aggKey][]uint64{}, wr: map[aggKey]uint64{}, prev: map[[2]uint32]uint64{}}
	for id, es := range log.Locs {
		if id == 0 || len(es) == 0 {
			continue
		}
		if err := o.addOrder(log, uint32(id), es); err != nil {
			return nil, err
		}
	}
	for ti, tl := range log.Threads {
		if err := o.addThread(ti, tl, len(log.Threads)); err != nil {
			return nil, err
		}
	}
	for key := range o.ex {
		if op, ok := o.ops[key]; !ok || !op.write {
			return nil, fmt.Errorf("goroutine %d: RC vector of operation %d, which is no write", key.t, key.n)
		}
	}
	for key := range o.wr {
		if _, ok := o.ops[key]; ok {
			return nil, fmt.Errorf("goroutine %d: operation %d logged as a read and a write", key.t, key.n)
		}
	}
	return o, nil
}

// addOrder adds location id's stream es: its W_x and L_m, in order.
func (o *aggOracle) addOrder(log *record.Log, id uint32, es []record.Entry) error {
	nt := len(log.Threads)
	x := &aggReplayLoc{}
	o.locs[id] = x
	last := make([]uint64, nt)
	for k, e := range es {
		if len(e.Args) != 2 || e.Args[0] >= uint64(nt) {
			return fmt.Errorf("location %d: entry %d: want (thread, counter), thread below %d", id, k, nt)
		}
		t := e.Args[0]
		n := last[t] + e.Args[1]
		if n < last[t] || n > log.Threads[t].Ops {
			return fmt.Errorf("location %d: entry %d: counter out of range", id, k)
		}
		last[t] = n
		key := aggKey{uint32(t), n}
		if _, dup := o.ops[key]; dup {
			return fmt.Errorf("location %d: entry %d: access logged twice", id, k)
		}
		switch e.Tag {
		case tagW, tagL:
			x.order = append(x.order, key)
			o.ops[key] = aggOp{loc: id, write: e.Tag == tagW}
		default:
			return fmt.Errorf("location %d: entry %d: unknown tag %d", id, k, e.Tag)
		}
	}
	return nil
}

// addThread adds the reads (WR_x) and RC vectors (EX_t) of goroutine ti's
// stream, of nt goroutines.
func (o *aggOracle) addThread(ti int, tl record.ThreadLog, nt int) error {
	for k, e := range tl.Entries {
		key := aggKey{uint32(ti), e.N}
		switch e.Tag {
		case record.TagTouch, record.TagChoice:
		case tagRead:
			if _, dup := o.wr[key]; dup {
				return fmt.Errorf("goroutine %s: entry %d: read logged twice", tl.ID, k)
			}
			if len(e.Args) != 1 {
				return fmt.Errorf("goroutine %s: entry %d: malformed read", tl.ID, k)
			}
			o.wr[key] = e.Args[0]
		case tagEX:
			if len(e.Args)%2 != 0 {
				return fmt.Errorf("goroutine %s: entry %d: odd RC vector", tl.ID, k)
			}
			// O3: resolve the (c, d) pairs.
			rc := o.ex[key]
			for j := 0; j < len(e.Args); j += 2 {
				c, d := e.Args[j], e.Args[j+1]
				if d == 0 || d > uint64(nt-len(rc)) {
					return fmt.Errorf("goroutine %s: entry %d: RC vector longer than the %d goroutines", tl.ID, k, nt)
				}
				for ; d > 0; d-- {
					rc = append(rc, c)
				}
			}
			o.ex[key] = rc
		default:
			return fmt.Errorf("goroutine %s: entry %d: unknown tag %d", tl.ID, k, e.Tag)
		}
	}
	return nil
}

func (o *aggOracle) loc(id uint32) *aggReplayLoc {
	x := o.locs[id]
	if x == nil {
		x = &aggReplayLoc{}
		o.locs[id] = x
	}
	return x
}

// readsFrom returns the version of the write a's read read in the
// recording.
func (o *aggOracle) readsFrom(a record.Access) uint64 {
	v := o.prev[[2]uint32{uint32(a.Thread), a.Loc}]
	if d, ok := o.wr[aggKey{uint32(a.Thread), a.N}]; ok {
		v += d
	}
	return v
}

// Allow implements Oracle.
func (o *aggOracle) Allow(a record.Access) bool {
	key := aggKey{uint32(a.Thread), a.N}
	if op, ok := o.ops[key]; ok {
		// A write: the head of W_x, and checkReads; an acquisition: the
		// head of L_m.
		x := o.loc(op.loc)
		return x.done < uint64(len(x.order)) && x.order[x.done] == key && (!op.write || o.checkReads(key, x))
	}
	if a.Kind != sched.Read || a.Loc == 0 {
		return true
	}
	// A read: last_write(x) is the write it read.
	return o.loc(a.Loc).done == o.readsFrom(a)
}

// checkReads: the reads the writer's RC vector counts have all been
// performed; a write without a vector is a null line (O1, O2).
func (o *aggOracle) checkReads(key aggKey, x *aggReplayLoc) bool {
	for t, c := range o.ex[key] {
		if c == 0 {
			continue
		}
		if t >= len(x.counts) || x.counts[t] < c {
			return false
		}
	}
	return true
}

// Performed implements Oracle.
func (o *aggOracle) Performed(a record.Access) {
	key := aggKey{uint32(a.Thread), a.N}
	if op, ok := o.ops[key]; ok {
		x := o.loc(op.loc)
		if x.done < uint64(len(x.order)) && x.order[x.done] == key {
			x.done++
		}
		return
	}
	if a.Kind != sched.Read || a.Loc == 0 {
		return
	}
	x := o.loc(a.Loc)
	for len(x.counts) <= a.Thread {
		x.counts = append(x.counts, 0)
	}
	x.counts[a.Thread]++
	o.prev[[2]uint32{uint32(a.Thread), a.Loc}] = o.readsFrom(a)
}
