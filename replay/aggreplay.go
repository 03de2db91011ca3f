package replay

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
// Departures from the paper (see record/aggreplay.go for the log):
//
//   - W_x and L_m name (thread, counter), so the head is matched by the
//     access's identity; EX entries and WR entries are found by the
//     access's identity too, not by position: a write without an EX entry
//     is a null line, a read without a WR entry read the same write as the
//     thread's previous read of the location (or x's initial value, write
//     0, for a first read).
//   - updateReadVectors is implicit: the replay keeps each thread's read
//     count per location, which is what RC_t[t'] is copied from.
//   - An operation the log does not order (a failed TryLock, an operation
//     on a location the replay cannot name) is allowed.
type aggOracle struct {
	locs   map[uint32]*aggReplayLoc
	writes map[aggKey]uint32 // a write of W_x → x
	locks  map[aggKey]uint32 // an acquisition of L_m → m
	ex     map[aggKey][]uint64
	wr     map[aggKey]aggKey // a read → the write it read ({0, 0}: the initial value)
	prev   map[[2]uint32]aggKey
}

// aggKey names an access: thread index + 1 and counter; {0, 0} is a
// location's initial value.
type aggKey struct {
	t uint32
	n uint64
}

type aggReplayLoc struct {
	w, l   []aggKey // W_x and L_m, heads first
	lw     aggKey   // last write in the replay
	counts []uint64 // reads of x by each thread in the replay
}

func init() { register("aggreplay", planAggrePlay) }

func planAggrePlay(log *record.Log) (Oracle, error) {
	nt := len(log.Threads)
	o := &aggOracle{locs: map[uint32]*aggReplayLoc{}, writes: map[aggKey]uint32{}, locks: map[aggKey]uint32{},
		ex: map[aggKey][]uint64{}, wr: map[aggKey]aggKey{}, prev: map[[2]uint32]aggKey{}}
	for id, es := range log.Locs {
		if id == 0 || len(es) == 0 {
			continue
		}
		x := &aggReplayLoc{}
		o.locs[uint32(id)] = x
		last := make([]uint64, nt)
		for k, e := range es {
			if len(e.Args) != 2 || e.Args[0] >= uint64(nt) {
				return nil, fmt.Errorf("location %d: entry %d: want (thread, counter), thread below %d", id, k, nt)
			}
			t := e.Args[0]
			n := last[t] + e.Args[1]
			if n < last[t] || n > log.Threads[t].Ops {
				return nil, fmt.Errorf("location %d: entry %d: counter out of range", id, k)
			}
			last[t] = n
			key := aggKey{uint32(t) + 1, n}
			if _, dup := o.writes[key]; dup {
				return nil, fmt.Errorf("location %d: entry %d: access logged twice", id, k)
			}
			if _, dup := o.locks[key]; dup {
				return nil, fmt.Errorf("location %d: entry %d: access logged twice", id, k)
			}
			switch e.Tag {
			case record.AggW:
				x.w = append(x.w, key)
				o.writes[key] = uint32(id)
			case record.AggL:
				x.l = append(x.l, key)
				o.locks[key] = uint32(id)
			default:
				return nil, fmt.Errorf("location %d: entry %d: unknown tag %d", id, k, e.Tag)
			}
		}
	}
	for ti, tl := range log.Threads {
		for k, e := range tl.Entries {
			key := aggKey{uint32(ti) + 1, e.N}
			switch e.Tag {
			case record.TagTouch, record.TagChoice:
			case record.AggRead:
				if _, dup := o.wr[key]; dup {
					return nil, fmt.Errorf("goroutine %s: entry %d: read logged twice", tl.ID, k)
				}
				switch {
				case len(e.Args) == 1 && e.Args[0] == 0:
					o.wr[key] = aggKey{}
				case len(e.Args) == 2 && e.Args[0] >= 1 && e.Args[0] <= uint64(nt):
					o.wr[key] = aggKey{uint32(e.Args[0]), e.Args[1]}
				default:
					return nil, fmt.Errorf("goroutine %s: entry %d: malformed read", tl.ID, k)
				}
			case record.AggEX:
				if len(e.Args)%2 != 0 {
					return nil, fmt.Errorf("goroutine %s: entry %d: odd RC vector", tl.ID, k)
				}
				// O3: resolve the (c, d) pairs.
				rc := o.ex[key]
				for j := 0; j < len(e.Args); j += 2 {
					c, d := e.Args[j], e.Args[j+1]
					if d == 0 || d > uint64(nt-len(rc)) {
						return nil, fmt.Errorf("goroutine %s: entry %d: RC vector longer than the %d goroutines", tl.ID, k, nt)
					}
					for ; d > 0; d-- {
						rc = append(rc, c)
					}
				}
				o.ex[key] = rc
			default:
				return nil, fmt.Errorf("goroutine %s: entry %d: unknown tag %d", tl.ID, k, e.Tag)
			}
		}
	}
	for key := range o.ex {
		if _, ok := o.writes[key]; !ok {
			return nil, fmt.Errorf("goroutine %d: RC vector of operation %d, which is no write", key.t-1, key.n)
		}
	}
	return o, nil
}

func (o *aggOracle) loc(id uint32) *aggReplayLoc {
	x := o.locs[id]
	if x == nil {
		x = &aggReplayLoc{}
		o.locs[id] = x
	}
	return x
}

// readsFrom returns the write a's read read in the recording.
func (o *aggOracle) readsFrom(a Access) aggKey {
	if w, ok := o.wr[aggKey{uint32(a.Thread) + 1, a.N}]; ok {
		return w
	}
	return o.prev[[2]uint32{uint32(a.Thread), a.Loc}]
}

// Allow implements Oracle.
func (o *aggOracle) Allow(a Access) bool {
	key := aggKey{uint32(a.Thread) + 1, a.N}
	if id, ok := o.writes[key]; ok {
		x := o.loc(id)
		return len(x.w) > 0 && x.w[0] == key && o.checkReads(key, x)
	}
	if id, ok := o.locks[key]; ok {
		x := o.loc(id)
		return len(x.l) > 0 && x.l[0] == key
	}
	if a.Kind != sched.Read || a.Loc == 0 {
		return true
	}
	return o.loc(a.Loc).lw == o.readsFrom(a)
}

// checkReads: the reads the writer's RC vector counts have all been
// performed; no vector is a null line.
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
func (o *aggOracle) Performed(a Access) {
	key := aggKey{uint32(a.Thread) + 1, a.N}
	if id, ok := o.writes[key]; ok {
		x := o.loc(id)
		if len(x.w) > 0 && x.w[0] == key {
			x.w = x.w[1:]
		}
		x.lw = key
		return
	}
	if id, ok := o.locks[key]; ok {
		x := o.loc(id)
		if len(x.l) > 0 && x.l[0] == key {
			x.l = x.l[1:]
		}
		x.lw = key
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
