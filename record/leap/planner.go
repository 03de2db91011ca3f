package leap

import (
	"fmt"

	"github.com/weftdev/weft/record"
)

// LEAP's replay (Huang, Liu and Zhang, FSE'10; CoopREP §III-A) is online:
// a goroutine's access to location x may go iff the goroutine is at the
// head of x's remaining access vector, and performing it pops the head.
// Each vector is kept as runs of one thread's consecutive accesses (the
// log's run entries, and single entries merged), so memory is bounded by
// the number of thread switches per location, not of accesses.
//
// An access whose location is not known (Access.Loc == 0: the strategy
// maps a location from the goroutine's first touch of it, so this happens
// only for an operation the recording did not log as touching anything,
// which is a departure in itself) is allowed only when the goroutine is at
// the head of exactly one vector among the locations no access has named
// yet: that access is then taken to be this one, and popped. With none or
// several such vectors it waits: other goroutines' accesses may make it
// unique, and if nothing may go the strategy runs the default goroutine
// and reports the departure. Allowing it blindly would let an access of an
// unknown location run ahead of the vector it belongs to, silently.

// leapSpan is a run of consecutive accesses of one location by a thread.
type leapSpan struct {
	thread int
	count  uint64
}

type leapOracle struct {
	vecs   [][]leapSpan // by location: the remaining runs, from pos
	pos    []int        // by location: the head run
	named  []bool       // by location: an access named it (Access.Loc)
	popped []uint64     // by location: accesses popped from the head run
}

func planLeap(log *record.Log) (record.Oracle, error) {
	nt := len(log.Threads)
	per := make([]uint64, nt) // accesses per thread, bounded by its operations
	o := &leapOracle{
		vecs:   make([][]leapSpan, len(log.Locs)),
		pos:    make([]int, len(log.Locs)),
		named:  make([]bool, len(log.Locs)),
		popped: make([]uint64, len(log.Locs)),
	}
	for loc := 1; loc < len(log.Locs); loc++ {
		var vec []leapSpan
		for i, e := range log.Locs[loc] {
			var thread, count uint64
			switch {
			case e.Tag == tagThread && len(e.Args) == 1:
				thread, count = e.Args[0], 1
			case e.Tag >= tagThread0 && e.Tag < tagRun && len(e.Args) == 0:
				thread, count = uint64(e.Tag-tagThread0), 1
			case e.Tag == tagRun && len(e.Args) == 2:
				thread, count = e.Args[0], e.Args[1]
			default:
				return nil, fmt.Errorf("location %d, entry %d: tag %d with %d arguments is no access", loc, i, e.Tag, len(e.Args))
			}
			if thread >= uint64(nt) {
				return nil, fmt.Errorf("location %d, entry %d: access by goroutine %d, of %d", loc, i, thread, nt)
			}
			if count == 0 {
				return nil, fmt.Errorf("location %d, entry %d: a run of no accesses", loc, i)
			}
			if ops := log.Threads[thread].Ops; count > ops-per[thread] {
				return nil, fmt.Errorf("location %d, entry %d: goroutine %s accesses locations more often than its %d operations", loc, i, log.Threads[thread].ID, ops)
			}
			per[thread] += count
			if n := len(vec); n > 0 && vec[n-1].thread == int(thread) {
				vec[n-1].count += count
			} else {
				vec = append(vec, leapSpan{thread: int(thread), count: count})
			}
		}
		o.vecs[loc] = vec
	}
	return o, nil
}

// head returns the thread at the head of loc's remaining vector, or -1.
func (o *leapOracle) head(loc uint32) int {
	if int(loc) >= len(o.vecs) || o.pos[loc] >= len(o.vecs[loc]) {
		return -1
	}
	return o.vecs[loc][o.pos[loc]].thread
}

// guess returns the only location not named yet whose vector has thread at
// its head, or 0.
func (o *leapOracle) guess(thread int) uint32 {
	var found uint32
	for loc := 1; loc < len(o.vecs); loc++ {
		if !o.named[loc] && o.head(uint32(loc)) == thread {
			if found != 0 {
				return 0
			}
			found = uint32(loc)
		}
	}
	return found
}

func (o *leapOracle) Allow(a record.Access) bool {
	if a.Loc == 0 {
		return o.guess(a.Thread) != 0
	}
	if int(a.Loc) >= len(o.vecs) {
		return false
	}
	o.named[a.Loc] = true
	return o.head(a.Loc) == a.Thread
}

func (o *leapOracle) Performed(a record.Access) {
	loc := a.Loc
	if loc == 0 {
		loc = o.guess(a.Thread)
	}
	if loc == 0 || o.head(loc) != a.Thread {
		// Run against the log (the strategy found no allowed goroutine):
		// the vectors stay as they are; the replay is reported unfaithful.
		return
	}
	o.popped[loc]++
	if o.popped[loc] == o.vecs[loc][o.pos[loc]].count {
		o.popped[loc] = 0
		o.pos[loc]++
	}
}
