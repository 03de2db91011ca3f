package stride

import (
	"fmt"
	"sort"

	"github.com/weftdev/weft/record"
)

// Stride's replay (Zhou, Xiao, Zhang, ICSE'12): the log (recorder.go)
// orders each location's writes, and gives each read the digest of the
// value it returned and its bounded linkage, the latest version it can
// have read. The planner infers, under sequential consistency, the write
// each read linked to, and the oracle enforces the resulting order.
//
// Bounded-linkage inference. The write a read r read is searched back from
// r's bound: the latest write of version ≤ bound whose value digest is r's
// (Stride's search: the bound is the upper end, the value the matching
// criterion; as in OREO, the candidates are found through a dictionary of
// (location, value) → versions, so each search is a binary search). Two
// lower ends follow from sequential consistency and the goroutine's
// program order, and the search stops there: r cannot have read a version
// older than its goroutine's own last write of the location before r, nor
// older than the linkage inferred for the goroutine's previous read of the
// location. Version 0 is the location's initial value, which the log does
// not hold: when no write in range has r's value and the range reaches
// version 0, r is linked to the initial value, provided every read so
// linked read the same value (the initial value is one value). Otherwise
// the inference fails and the planner says so: Stride cannot always infer
// a linkage (a read whose bound counts writes that came after its load,
// one of which wrote the same value, is linked to the later write; that
// is Stride's imprecision, value-equal, and a schedule may then not exist,
// which the replay reports as a departure).
//
// The order. A read may go when its inferred write is the last write of
// its location performed in the replay; a write when it is the next
// version of its location and every read linked to the current version
// has been performed. Synchronization reads are linked exactly, by the
// version logged under the primitive's exclusion.

type strideKey struct {
	thread int
	n      uint64
}

type strideLocVer struct {
	loc uint32
	ver uint64
}

type strideOp struct {
	loc   uint32
	ver   uint64 // a write's version; the version a read is linked to
	write bool
}

type strideOracle struct {
	ops  map[strideKey]strideOp
	cur  []uint64             // location → writes performed so far
	need map[strideLocVer]int // (location, version) → reads linked to it not yet performed
}

type strideNV struct{ n, ver uint64 }

// stridePlan is planStride's state: the oracle it builds, and the writes
// it infers the reads' linkages from.
type stridePlan struct {
	o       *strideOracle
	nwrites []uint64                    // location → its writes
	dict    map[strideLocVer][]uint64   // (location, value digest) → versions, ascending
	own     map[strideLocVer][]strideNV // (location, goroutine) → its writes, ascending
	initial map[uint32]uint64           // location → digest of its initial value, as the reads linked to it read it
}

// planStride reads a Stride log and infers its linkages: the writes of
// every location first, then every goroutine's reads.
func planStride(log *record.Log) (record.Oracle, error) {
	nl := len(log.Locs)
	p := &stridePlan{
		o:       &strideOracle{ops: map[strideKey]strideOp{}, cur: make([]uint64, nl), need: map[strideLocVer]int{}},
		nwrites: make([]uint64, nl),
		dict:    map[strideLocVer][]uint64{},
		own:     map[strideLocVer][]strideNV{},
		initial: map[uint32]uint64{},
	}
	for loc := 1; loc < nl; loc++ {
		if err := p.addWrites(log, loc); err != nil {
			return nil, err
		}
	}
	for ti := range log.Threads {
		if err := p.addReads(log, ti); err != nil {
			return nil, err
		}
	}
	return p.o, nil
}

// addWrites adds the writes of location loc's stream, in version order.
func (p *stridePlan) addWrites(log *record.Log, loc int) error {
	lastN := map[int]uint64{}
	last := -1
	for i, e := range log.Locs[loc] {
		var thread int
		var dn, digest uint64
		switch {
		case e.Tag == tagWrite && len(e.Args) == 3:
			if e.Args[0] >= uint64(len(log.Threads)) {
				return fmt.Errorf("location %d, write %d: goroutine %d, of %d", loc, i+1, e.Args[0], len(log.Threads))
			}
			thread, dn, digest = int(e.Args[0]), e.Args[1], e.Args[2]
		case e.Tag == tagWriteSame && len(e.Args) == 2:
			if last < 0 {
				return fmt.Errorf("location %d, write %d: same goroutine as the previous write, but there is none", loc, i+1)
			}
			thread, dn, digest = last, e.Args[0], e.Args[1]
		default:
			return fmt.Errorf("location %d, entry %d: tag %d with %d arguments is not a Stride write", loc, i, e.Tag, len(e.Args))
		}
		n := lastN[thread] + dn
		if dn == 0 || n < dn {
			return fmt.Errorf("location %d, write %d: operation counter of goroutine %d does not grow", loc, i+1, thread)
		}
		lastN[thread], last = n, thread
		p.nwrites[loc]++
		ver := p.nwrites[loc]
		k := strideKey{thread, n}
		if _, dup := p.o.ops[k]; dup {
			return fmt.Errorf("operation %d of goroutine %d is logged twice", n, thread)
		}
		p.o.ops[k] = strideOp{loc: uint32(loc), ver: ver, write: true}
		dk := strideLocVer{uint32(loc), digest}
		p.dict[dk] = append(p.dict[dk], ver)
		ok := strideLocVer{uint32(loc), uint64(thread)}
		p.own[ok] = append(p.own[ok], strideNV{n, ver})
	}
	return nil
}

// strideReadEntry decodes the read entry e (entry i of goroutine t's
// stream, whose previous read was of location lastLoc) of a log of nl-1
// locations.
func strideReadEntry(t record.ThreadLog, i int, e record.Entry, lastLoc uint32, nl int) (loc uint32, digest, delta uint64, exact bool, err error) {
	switch {
	case e.Tag == tagRead && len(e.Args) == 3:
		if e.Args[0] == 0 || e.Args[0] >= uint64(nl) {
			return 0, 0, 0, false, fmt.Errorf("goroutine %s, entry %d: location %d, of %d", t.ID, i, e.Args[0], nl-1)
		}
		return uint32(e.Args[0]), e.Args[1], e.Args[2], false, nil
	case e.Tag == tagReadSame && len(e.Args) == 2:
		if lastLoc == 0 {
			return 0, 0, 0, false, fmt.Errorf("goroutine %s, entry %d: read of the previous read's location, but there is none", t.ID, i)
		}
		return lastLoc, e.Args[0], e.Args[1], false, nil
	case e.Tag == tagSyncRead && len(e.Args) == 2:
		if e.Args[0] == 0 || e.Args[0] >= uint64(nl) {
			return 0, 0, 0, false, fmt.Errorf("goroutine %s, entry %d: location %d, of %d", t.ID, i, e.Args[0], nl-1)
		}
		return uint32(e.Args[0]), 0, e.Args[1], true, nil
	}
	return 0, 0, 0, false, fmt.Errorf("goroutine %s, entry %d: tag %d with %d arguments is not a Stride read", t.ID, i, e.Tag, len(e.Args))
}

// addReads adds goroutine ti's reads, each linked to the write it read.
func (p *stridePlan) addReads(log *record.Log, ti int) error {
	t := log.Threads[ti]
	var lastLoc uint32
	bound := map[uint32]uint64{}  // location → the goroutine's last logged bound
	linked := map[uint32]uint64{} // location → the linkage inferred for its previous read
	for i, e := range t.Entries {
		if e.Tag < record.TagFirst {
			continue // touches and choices: the framework's
		}
		loc, digest, delta, exact, err := strideReadEntry(t, i, e, lastLoc, len(log.Locs))
		if err != nil {
			return err
		}
		if !exact {
			lastLoc = loc
		}
		b := bound[loc] + delta
		bound[loc] = b
		if b > p.nwrites[loc] {
			return fmt.Errorf("goroutine %s, operation %d: read of location %d bounded by version %d, of %d writes", t.ID, e.N, loc, b, p.nwrites[loc])
		}
		k := strideKey{ti, e.N}
		if _, dup := p.o.ops[k]; dup {
			return fmt.Errorf("operation %d of goroutine %s is logged twice", e.N, t.ID)
		}
		ver := b
		if !exact {
			if ver, err = p.infer(t, ti, e.N, loc, digest, b, linked[loc]); err != nil {
				return err
			}
		}
		linked[loc] = ver
		p.o.ops[k] = strideOp{loc: loc, ver: ver}
		p.o.need[strideLocVer{loc, ver}]++
	}
	return nil
}

// infer returns the version the read n of goroutine ti (t) of location loc
// linked to: the latest write of its value (digest) within its bound b,
// and no older than prev, the linkage of the goroutine's previous read of
// loc, nor than the goroutine's own last write of loc before it.
func (p *stridePlan) infer(t record.ThreadLog, ti int, n uint64, loc uint32, digest, b, prev uint64) (uint64, error) {
	lower := prev
	ws := p.own[strideLocVer{loc, uint64(ti)}]
	j := sort.Search(len(ws), func(j int) bool { return ws[j].n > n })
	if j > 0 && ws[j-1].ver > lower {
		lower = ws[j-1].ver
	}
	if lower > b {
		return 0, fmt.Errorf("Stride could not infer the linkage of read (goroutine %s, operation %d) of location %d: its bound, version %d, is older than version %d, which its goroutine had already seen", t.ID, n, loc, b, lower)
	}
	vs := p.dict[strideLocVer{loc, digest}]
	j = sort.Search(len(vs), func(j int) bool { return vs[j] > b })
	switch {
	case j > 0 && vs[j-1] >= lower:
		return vs[j-1], nil // the latest write of the value within the bound
	case lower == 0:
		if d, ok := p.initial[loc]; ok && d != digest {
			return 0, fmt.Errorf("Stride could not infer the linkage of read (goroutine %s, operation %d) of location %d: no write of versions 1..%d wrote the value it read (digest %#x), and other reads read the initial value as %#x", t.ID, n, loc, b, digest, d)
		}
		p.initial[loc] = digest
		return 0, nil
	}
	return 0, fmt.Errorf("Stride could not infer the linkage of read (goroutine %s, operation %d) of location %d: no write of versions %d..%d wrote the value it read (digest %#x)", t.ID, n, loc, lower, b, digest)
}

// Allow implements Oracle.
func (o *strideOracle) Allow(a record.Access) bool {
	op, ok := o.ops[strideKey{a.Thread, a.N}]
	if !ok {
		return true // not an access the log orders
	}
	if op.write {
		return o.cur[op.loc] == op.ver-1 && o.need[strideLocVer{op.loc, op.ver - 1}] == 0
	}
	return o.cur[op.loc] == op.ver
}

// Performed implements Oracle.
func (o *strideOracle) Performed(a record.Access) {
	k := strideKey{a.Thread, a.N}
	op, ok := o.ops[k]
	if !ok {
		return
	}
	delete(o.ops, k)
	if op.write {
		if op.ver > o.cur[op.loc] {
			o.cur[op.loc] = op.ver
		}
		return
	}
	o.need[strideLocVer{op.loc, op.ver}]--
}
