package light

// The Light replayer (Liu et al., PLDI'15, §4.2): build the constraints of
// the log and solve them offline into a total order of the logged accesses,
// which the oracle then enforces.
//
// # Constraints
//
// Events are the logged accesses, identified by (goroutine, counter): the
// first and last read of each dependence interval, every write that
// overwrote another goroutine's write (or the initial value), and every
// access that carries a barrier or a start edge. The constraints are:
//
//   - program order: a goroutine's events in counter order;
//   - a dependence interval w → [first, last] of location ℓ: w before
//     first, and last before the write whose predecessor is w (the next
//     write of ℓ), so that no write falls between w and the last read;
//   - a write with predecessor p: p before it, and every interval reading
//     p before it (non-interference of intervals on ℓ: two intervals of
//     different writers are separated by the writes between them);
//   - sync accesses are accesses of their ghost location, the same rules;
//   - a goroutine's first access after the operation that started it
//     (§4.3: the start is a write its first access reads);
//   - a barrier (the first logged access of a goroutine to a location whose
//     Lemma 4.2 guard broke, see recorder.go): the named access before.
//
// "x before y" where x is not itself a logged event (a guarded access, or a
// write that was not logged, see below) becomes: the last logged event of
// x's goroutine at or before x, before y; and at replay time y also waits
// until x's goroutine has performed x (its unlogged accesses run freely).
//
// # Writes, and the ones that are not logged
//
// The paper does not replay writes nobody reads. We must replay every user
// write, and an unknown write could fall inside a dependence interval and
// change what it reads. So every location's write order is known to the
// replay: each logged write names its predecessor, and a write that is not
// logged is one that overwrote its own goroutine's previous write of the
// location (recorder.go drops those: a goroutine's runs of writes to a
// location, a lock's release after its acquire, an atomic counter's
// uncontended increments cost nothing). Such a write w' with predecessor w,
// both of goroutine t, is ordered as follows:
//
//   - after w, by program order;
//   - after every interval reading w: the oracle holds any write of ℓ while
//     some logged interval reading ℓ's current last write in the replay
//     (tracked from Performed, logged or not) has not performed its last
//     read. In a faithful replay prefix ℓ's last write is w, the intervals
//     on w all ended before w' in the recording, and the hold is exactly
//     the missing edge "last → w'" (it applies to logged writes too,
//     which have that edge already);
//   - before the write w'' that overwrote it: w'' is logged unless it is
//     t's own again, and names w' by identity, so it waits until t has
//     performed w' (a runtime wait);
//   - before every interval reading w': their first read names w' and
//     waits for it likewise, and w'' waits for their last reads (the
//     interval edges by key, as for guarded writes).
//
// Reads of a goroutine's own last write are not logged either (Lemma 4.3):
// program order puts them after the write, and the write w'' of another
// goroutine that overwrote it names, with its predecessor, the last such
// read (recorder.go publishes it in the location for the writer), and
// waits for it like for an unlogged write. A publication may be spurious:
// the read raced with w'' and was retried, reading w'' or a later write;
// it is then a logged interval's first read, and w'' waits for the
// operation before it instead.
//
// So every link of ℓ's write chain is either a logged precedence or program
// order, and the replay's write order is the recording's. A read-modify-
// write (an atomic Add, a Lock) that overwrote its own goroutine's write
// also read it: its flow dependence is program order plus the chain, and
// the interval rule keeps the other goroutines' reads of the write it
// overwrites before it. A location under Lemma 4.2 is untouched: guarded
// accesses are unlogged anyway, and a goroutine's first access after the
// guard broke logs its barrier even when its write is an own one (the
// barrier is then an event of its own, at that write). Start edges only
// matter to the solver (a child cannot run before it is started).
//
// The constraint system the solver sees is the static part: a DAG (the
// recorded execution is a topological order of it), solved by Kahn's
// algorithm in linear time with no search or backtracking: the greedy
// simulation that executes any goroutine's head event whose predecessors
// are done never gets stuck on a consistent log. A cycle means a corrupt
// log, reported as an error. The order prefers to go on with the same
// goroutine (a depth-first choice), so that the replay switches goroutines
// rarely. The solver's total order does not see the unlogged writes, and it
// need not: it is a proof that the logged constraints are consistent, not
// the schedule. The oracle enforces the partial order (static edges,
// runtime waits and holds), and every one of its constraints is one the
// recording satisfied, so the recorded order is always a linearization:
// in a faithful prefix, the recording's earliest access not yet performed
// is allowed (its predecessors all came earlier), and the replay cannot
// get stuck.
//
// # The oracle
//
// A goroutine's logged access may run only when its predecessors in the
// constraints ran (and the unlogged accesses it waits for were performed):
// the total order is one such execution, and the solver's proof that the
// log is consistent, but the oracle admits every one (see lightOracle); its
// unlogged accesses (the inner reads of an interval, which read the same
// write as its ends and which no write can separate from them; accesses to
// a location that stayed guarded, ordered by the guard's logged
// lock order) run freely, and its unlogged writes under the hold above.
//
// # Limitations
//
// Channels are ghost locations whose operations are read-writes, as the
// primitives report them. An operation on an unbuffered channel is its
// arrival (sim/chanrec.go), so the log's order of a channel's operations
// fixes which of several waiting receivers a send hands its value to (the
// first arrived). A select is one access of the one channel it completed
// on: its arrival is not ordered with the operations of its other
// channels, so a replay of selects on both sides of channels may pair them
// otherwise and be reported unfaithful (see selectRecorded).

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/weftdev/weft/record"
	"github.com/weftdev/weft/sched"
)

// lightUnpack returns e with its location and writer code in two
// arguments, as recorder.go's lightThread.where packs them in one (or
// two, for a code of 7 or more).
func lightUnpack(e record.Entry) (record.Entry, error) {
	if len(e.Args) == 0 {
		return e, fmt.Errorf("operation %d: entry tag %d with no arguments", e.N, e.Tag)
	}
	a := e.Args[0]
	code, k := a&7, 1
	if code == 7 {
		if len(e.Args) < 2 {
			return e, fmt.Errorf("operation %d: entry tag %d with no writer code", e.N, e.Tag)
		}
		code, k = 7+e.Args[1], 2
	}
	args := append([]uint64{a >> 3, code}, e.Args[k:]...)
	return record.Entry{Tag: e.Tag, N: e.N, Args: args}, nil
}

// lightUncopy returns the Light entries of a goroutine's stream that
// performed ops operations, copies expanded.
func lightUncopy(es []record.Entry, ops uint64) ([]record.Entry, error) {
	var out []record.Entry
	limit := 4*ops + 4 // an operation logs a few entries at most
	for _, e := range es {
		if e.Tag < record.TagFirst {
			continue
		}
		if e.Tag != tagCopy {
			out = append(out, e)
			continue
		}
		if len(e.Args) != 2 || e.Args[0] == 0 || e.Args[0] > copyWindow || e.Args[0] > uint64(len(out)) || e.Args[1] == 0 || e.Args[1] > limit-uint64(len(out)) {
			return nil, fmt.Errorf("operation %d: malformed copy %v of %d entries", e.N, e.Args, len(out))
		}
		d := int(e.Args[0])
		for range e.Args[1] {
			k := len(out) - d
			var dn uint64
			if k > 0 {
				dn = out[k].N - out[k-1].N
			} else {
				dn = out[k].N
			}
			var n uint64
			if len(out) > 0 {
				n = out[len(out)-1].N
			}
			out = append(out, record.Entry{Tag: out[k].Tag, N: n + dn, Args: out[k].Args})
		}
		if out[len(out)-1].N != e.N {
			return nil, fmt.Errorf("operation %d: copy ends at operation %d", e.N, out[len(out)-1].N)
		}
	}
	if uint64(len(out)) > limit {
		return nil, fmt.Errorf("%d entries for %d operations", len(out), ops)
	}
	return out, nil
}

// lightID names an access: goroutine t (-1: the initial value) and counter.
type lightID struct {
	t int32
	n uint64
}

type lightKey struct {
	loc uint64
	w   lightID
}

// lightPlan is a solved log.
type lightPlan struct {
	base  []int32  // first event of each goroutine
	ns    []uint64 // events' counters, by goroutine then counter
	evT   []int32  // events' goroutines
	order []int32  // the solution
	// runtime waits: event e waits for goroutine waitT[k] to have
	// performed waitN[k], k in [waitAt[e], waitAt[e+1]).
	waitAt []int32
	waitT  []int32
	waitN  []uint64
	// the cross edges: event e precedes out[outAt[e]:outAt[e+1]]; indeg
	// counts each event's predecessors among them.
	outAt []int32
	out   []int32
	indeg []int32
	// the dependence intervals, by key (location, write read): ivKey
	// numbers the keys, ivOpen counts each key's intervals, and the
	// intervals whose last read is event e end keys ivEnd[ivEndAt[e]:
	// ivEndAt[e+1]].
	ivKey   map[lightKey]int32
	ivOpen  []int32
	ivEndAt []int32
	ivEnd   []int32
}

type lightEdge struct{ from, to int32 }

// lightStream is the decoding state of one goroutine's stream: the
// counter last named of each goroutine and the last location (see
// tagRead).
type lightStream struct {
	prevN   []uint64
	prevLoc uint64
	dict    []record.Entry // most recently used first, N unused
}

// expand returns e, a repeat expanded, and keeps the stream's last
// distinct entries.
func (st *lightStream) expand(e record.Entry) (record.Entry, error) {
	if e.Tag >= tagRepeat {
		j := int(e.Tag - tagRepeat)
		if j >= len(st.dict) || len(e.Args) != 0 {
			return e, fmt.Errorf("operation %d: repeat %d of %d entries", e.N, j, len(st.dict))
		}
		d := st.dict[j]
		copy(st.dict[1:j+1], st.dict[:j])
		st.dict[0] = d
		return record.Entry{Tag: d.Tag, N: e.N, Args: d.Args}, nil
	}
	if len(st.dict) < dictSize {
		st.dict = append(st.dict, record.Entry{})
	}
	copy(st.dict[1:], st.dict[:len(st.dict)-1])
	st.dict[0] = e
	return e, nil
}

// loc decodes a location.
func (st *lightStream) loc(v uint64) uint64 {
	st.prevLoc += uint64(unzigzag(v))
	return st.prevLoc
}

func unzigzag(v uint64) int64 { return int64(v>>1) ^ -int64(v&1) }

// lightDecode decodes a writer code relative to counter n of goroutine t.
func lightDecode(log *record.Log, st *lightStream, t int, n, code, v uint64) (lightID, error) {
	switch {
	case code == 0:
		return lightID{t: -1}, nil
	case code == 1:
		if v >= n {
			return lightID{}, fmt.Errorf("goroutine %d, operation %d: own access %d back", t, n, v)
		}
		return lightID{t: int32(t), n: n - v}, nil
	case code-2 < uint64(len(log.Threads)):
		u := int(code - 2)
		st.prevN[u] += uint64(unzigzag(v))
		v = st.prevN[u]
		if v == 0 || v > log.Threads[u].Ops {
			return lightID{}, fmt.Errorf("goroutine %d, operation %d: access %d of goroutine %d, which performed %d", t, n, v, u, log.Threads[u].Ops)
		}
		return lightID{t: int32(u), n: v}, nil
	}
	return lightID{}, fmt.Errorf("goroutine %d, operation %d: goroutine code %d out of range", t, n, code)
}

func planLight(log *record.Log) (record.Oracle, error) {
	p, err := solveLight(log)
	if err != nil {
		return nil, err
	}
	return newLightOracle(p), nil
}

// solveLight builds and solves the constraints of log, in phases: decode
// each goroutine's stream (resolving the predecessors of its own writes),
// order the writes, order the dependence intervals and the barriers, then
// solve.
func solveLight(log *record.Log) (*lightPlan, error) {
	p, threads, err := decodeLight(log)
	if err != nil {
		return nil, err
	}
	b := &lightBuilder{p: p}
	if err := b.orderWrites(threads); err != nil {
		return nil, err
	}
	ivEnds, err := b.orderReads(threads)
	if err != nil {
		return nil, err
	}
	p.indexIntervals(ivEnds)
	p.indexWaits(b.waits)
	p.link(b.edges)
	return p, p.sort()
}

// lightWrite is a logged write.
type lightWrite struct {
	n, loc uint64
	prev   lightID
	own    bool
	// ownRead: the predecessor's goroutine's last read of its own write
	// (its counter; 0: none logged)
	ownRead uint64
}

// lightRead is a dependence interval: reads first..last of loc read w.
type lightRead struct {
	loc, first, last uint64
	w                lightID
}

// lightBarrier is a barrier or a start edge: access n comes after b.
type lightBarrier struct {
	n     uint64
	loc   uint64
	b     lightID
	start bool // b started the goroutine: no runtime wait
}

// lightThreadLog is one goroutine's decoded stream.
type lightThreadLog struct {
	reads    []lightRead
	writes   []lightWrite
	barriers []lightBarrier
	ns       []uint64 // the counters of its events, sorted
}

// decodeLight decodes every goroutine's stream and numbers the events.
func decodeLight(log *record.Log) (*lightPlan, []*lightThreadLog, error) {
	nt := len(log.Threads)
	threads := make([]*lightThreadLog, nt)
	p := &lightPlan{base: make([]int32, nt+1)}
	for i := range log.Threads {
		tl, err := decodeLightThread(log, i)
		if err != nil {
			return nil, nil, err
		}
		if len(p.ns)+len(tl.ns) > 1<<31-1 {
			return nil, nil, fmt.Errorf("too many events")
		}
		p.base[i] = int32(len(p.ns))
		p.ns = append(p.ns, tl.ns...)
		if err := resolveOwnWrites(i, tl.writes); err != nil {
			return nil, nil, err
		}
		threads[i] = tl
	}
	p.base[nt] = int32(len(p.ns))
	p.evT = make([]int32, len(p.ns))
	for i := 0; i < nt; i++ {
		for e := p.base[i]; e < p.base[i+1]; e++ {
			p.evT[e] = int32(i)
		}
	}
	return p, threads, nil
}

// decodeLightThread decodes goroutine i's stream.
func decodeLightThread(log *record.Log, i int) (*lightThreadLog, error) {
	th := log.Threads[i]
	st := &lightStream{prevN: make([]uint64, len(log.Threads))}
	es, err := lightUncopy(th.Entries, th.Ops)
	if err != nil {
		return nil, fmt.Errorf("goroutine %d: %v", i, err)
	}
	tl := &lightThreadLog{}
	for _, e := range es {
		if e.N == 0 || e.N > th.Ops {
			return nil, fmt.Errorf("goroutine %d: entry at operation %d, of %d", i, e.N, th.Ops)
		}
		e, err := st.next(e)
		if err != nil {
			return nil, fmt.Errorf("goroutine %d: %v", i, err)
		}
		if err := tl.add(log, st, i, e); err != nil {
			return nil, err
		}
	}
	slices.Sort(tl.ns)
	tl.ns = slices.Compact(tl.ns)
	return tl, nil
}

// next returns the entry e stands for, a repeat expanded and its location
// and writer code unpacked, checking its arguments.
func (st *lightStream) next(e record.Entry) (record.Entry, error) {
	e, err := st.expand(e)
	if err != nil {
		return e, err
	}
	if e.Tag == tagRead || e.Tag == tagWrite || e.Tag == tagBarrier {
		if e, err = lightUnpack(e); err != nil {
			return e, err
		}
	}
	want := 0
	switch e.Tag {
	case tagRead:
		want = 4
	case tagWrite, tagBarrier:
		want = 3
	case tagWriteOwn:
		want = 1
	case tagStart:
		want = 2
	}
	if want == 0 {
		return e, fmt.Errorf("unknown entry tag %d", e.Tag)
	}
	if e.Tag == tagWrite && len(e.Args) == 4 {
		want = 4
	}
	if len(e.Args) != want {
		return e, fmt.Errorf("entry tag %d with %d arguments, want %d", e.Tag, len(e.Args), want)
	}
	return e, nil
}

// add adds the entry e of goroutine i's stream, decoded by st.
func (tl *lightThreadLog) add(log *record.Log, st *lightStream, i int, e record.Entry) error {
	ops := log.Threads[i].Ops
	switch e.Tag {
	case tagRead:
		loc := st.loc(e.Args[0])
		w, err := lightDecode(log, st, i, e.N, e.Args[1], e.Args[2])
		if err != nil {
			return err
		}
		if e.Args[3] > ops-e.N {
			return fmt.Errorf("goroutine %d: interval from operation %d past its end", i, e.N)
		}
		r := lightRead{loc: loc, first: e.N, last: e.N + e.Args[3], w: w}
		tl.reads = append(tl.reads, r)
		tl.ns = append(tl.ns, r.first, r.last)
	case tagWrite:
		loc := st.loc(e.Args[0])
		w, err := lightDecode(log, st, i, e.N, e.Args[1], e.Args[2])
		if err != nil {
			return err
		}
		wr := lightWrite{n: e.N, loc: loc, prev: w}
		if len(e.Args) == 4 {
			if w.t < 0 || e.Args[3] == 0 || e.Args[3] > log.Threads[w.t].Ops-w.n {
				return fmt.Errorf("goroutine %d: write %d names a read of its predecessor out of range", i, e.N)
			}
			wr.ownRead = w.n + e.Args[3]
		}
		tl.writes = append(tl.writes, wr)
		tl.ns = append(tl.ns, e.N)
	case tagWriteOwn:
		tl.writes = append(tl.writes, lightWrite{n: e.N, loc: st.loc(e.Args[0]), own: true})
		tl.ns = append(tl.ns, e.N)
	case tagBarrier:
		loc := st.loc(e.Args[0])
		b, err := lightDecode(log, st, i, e.N, e.Args[1], e.Args[2])
		if err != nil {
			return err
		}
		tl.barriers = append(tl.barriers, lightBarrier{n: e.N, loc: loc, b: b})
		tl.ns = append(tl.ns, e.N)
	case tagStart:
		b, err := lightDecode(log, st, i, e.N, e.Args[0], e.Args[1])
		if err != nil {
			return err
		}
		tl.barriers = append(tl.barriers, lightBarrier{n: e.N, b: b, start: true})
		tl.ns = append(tl.ns, e.N)
	}
	return nil
}

// resolveOwnWrites sets the predecessor of goroutine i's own writes (those
// logged as tagWriteOwn): its previous write of the location.
func resolveOwnWrites(i int, ws []lightWrite) error {
	byN := func(a, b lightWrite) int {
		return cmp.Compare(a.n, b.n)
	}
	if !slices.IsSortedFunc(ws, byN) { // logged in order: sorted already
		slices.SortFunc(ws, byN)
	}
	lastW := map[uint64]uint64{}
	for k := range ws {
		if ws[k].own {
			n, ok := lastW[ws[k].loc]
			if !ok {
				return fmt.Errorf("goroutine %d: write %d of location %d follows no write of it", i, ws[k].n, ws[k].loc)
			}
			ws[k].prev = lightID{t: int32(i), n: n}
		}
		lastW[ws[k].loc] = ws[k].n
	}
	return nil
}

// exact returns the event of goroutine t's access n, or -1.
func (p *lightPlan) exact(t int, n uint64) int32 {
	ns := p.ns[p.base[t]:p.base[t+1]]
	k, ok := slices.BinarySearch(ns, n)
	if !ok {
		return -1
	}
	return p.base[t] + int32(k)
}

// atOrBefore returns goroutine t's last event at or before its access n,
// or p.base[t]-1 if there is none.
func (p *lightPlan) atOrBefore(t int, n uint64) int32 {
	ns := p.ns[p.base[t]:p.base[t+1]]
	k, ok := slices.BinarySearch(ns, n)
	if ok {
		return p.base[t] + int32(k)
	}
	return p.base[t] + int32(k) - 1 // -1 relative: none when k == 0
}

// lightWait is a runtime wait: event e waits for goroutine t to have
// performed its access n.
type lightWait struct {
	e int32
	t int32
	n uint64
}

// lightBuilder collects the constraints of a log's events.
type lightBuilder struct {
	p     *lightPlan
	edges []lightEdge
	waits []lightWait
	// The successor of each write: by the write's event (succEv), or by
	// key for the initial value and for skipped (guarded) writes.
	succEv  []int32
	succKey map[lightKey]int32
}

// after makes event e come after access x; with norun, in the solution
// only (x is an operation the oracle does not see).
func (b *lightBuilder) after(e int32, x lightID, norun bool) {
	p := b.p
	if x.t < 0 || int(x.t) == int(p.evT[e]) {
		return
	}
	if f := p.exact(int(x.t), x.n); f >= 0 {
		b.edges = append(b.edges, lightEdge{f, e})
		return
	}
	if f := p.atOrBefore(int(x.t), x.n); f >= p.base[x.t] {
		b.edges = append(b.edges, lightEdge{f, e})
	}
	if !norun {
		b.waits = append(b.waits, lightWait{e, x.t, x.n})
	}
}

// succOf returns where the successor of the logged write w is kept, or nil
// if w is no event.
func (b *lightBuilder) succOf(w lightID) *int32 {
	if w.t >= 0 {
		if e := b.p.exact(int(w.t), w.n); e >= 0 {
			return &b.succEv[e]
		}
	}
	return nil
}

// orderWrites orders each write after its predecessor (and the reads of
// it the recorder published), and records it as the predecessor's
// successor.
func (b *lightBuilder) orderWrites(threads []*lightThreadLog) error {
	p := b.p
	b.succEv = make([]int32, len(p.ns))
	for k := range b.succEv {
		b.succEv[k] = -1
	}
	b.succKey = make(map[lightKey]int32)
	firsts := map[lightKey]bool{} // the first reads of intervals, by location
	for i, tl := range threads {
		for _, r := range tl.reads {
			firsts[lightKey{r.loc, lightID{int32(i), r.first}}] = true
		}
	}
	for i, tl := range threads {
		for _, w := range tl.writes {
			e := p.exact(i, w.n)
			b.after(e, w.prev, false)
			if w.ownRead != 0 {
				// A read whose publication raced with this write
				// (recorder.go) was retried and read this write
				// or a later one: it is logged, and only what came
				// before it precedes this write.
				n := w.ownRead
				if firsts[lightKey{w.loc, lightID{w.prev.t, n}}] {
					n--
				}
				b.after(e, lightID{w.prev.t, n}, false)
			}
			if sp := b.succOf(w.prev); sp != nil {
				if *sp >= 0 {
					return fmt.Errorf("two writes of location %d follow the same write", w.loc)
				}
				*sp = e
				continue
			}
			k := lightKey{w.loc, w.prev}
			if _, dup := b.succKey[k]; dup {
				return fmt.Errorf("two writes of location %d follow the same write", w.loc)
			}
			b.succKey[k] = e
		}
	}
	return nil
}

// orderReads orders each dependence interval after the write it read and
// before that write's successor, and each barrier after the access it
// names; it numbers the intervals' keys (p.ivKey, p.ivOpen) and returns the
// intervals' ends as (last read's event, key).
func (b *lightBuilder) orderReads(threads []*lightThreadLog) ([]lightEdge, error) {
	p := b.p
	p.ivKey = map[lightKey]int32{}
	var ivEnds []lightEdge
	for i, tl := range threads {
		for _, r := range tl.reads {
			if r.w.t == int32(i) && r.w.n >= r.first {
				return nil, fmt.Errorf("goroutine %d reads its own later write", i)
			}
			k, ok := p.ivKey[lightKey{r.loc, r.w}]
			if !ok {
				k = int32(len(p.ivOpen))
				p.ivKey[lightKey{r.loc, r.w}] = k
				p.ivOpen = append(p.ivOpen, 0)
			}
			p.ivOpen[k]++
			ivEnds = append(ivEnds, lightEdge{p.exact(i, r.last), k})
			b.after(p.exact(i, r.first), r.w, false)
			s := int32(-1)
			if sp := b.succOf(r.w); sp != nil {
				s = *sp
			} else if e, ok := b.succKey[lightKey{r.loc, r.w}]; ok {
				s = e
			}
			if s >= 0 {
				b.edges = append(b.edges, lightEdge{p.exact(i, r.last), s})
			}
		}
		for _, br := range tl.barriers {
			b.after(p.exact(i, br.n), br.b, br.start)
		}
	}
	return ivEnds, nil
}

// indexIntervals indexes the intervals' ends by event (p.ivEndAt, p.ivEnd).
func (p *lightPlan) indexIntervals(ivEnds []lightEdge) {
	ne := len(p.ns)
	slices.SortFunc(ivEnds, func(a, b lightEdge) int { return int(a.from) - int(b.from) })
	p.ivEndAt = make([]int32, ne+1)
	p.ivEnd = make([]int32, len(ivEnds))
	for k, iv := range ivEnds {
		p.ivEndAt[iv.from+1]++
		p.ivEnd[k] = iv.to
	}
	for e := 0; e < ne; e++ {
		p.ivEndAt[e+1] += p.ivEndAt[e]
	}
}

// indexWaits indexes the runtime waits by event (p.waitAt, waitT, waitN).
func (p *lightPlan) indexWaits(waits []lightWait) {
	ne := len(p.ns)
	slices.SortFunc(waits, func(a, b lightWait) int { return int(a.e) - int(b.e) })
	p.waitAt = make([]int32, ne+1)
	for _, w := range waits {
		p.waitAt[w.e+1]++
		p.waitT = append(p.waitT, w.t)
		p.waitN = append(p.waitN, w.n)
	}
	for e := 0; e < ne; e++ {
		p.waitAt[e+1] += p.waitAt[e]
	}
}

// link indexes the cross edges by their first event (p.outAt, p.out) and
// counts each event's predecessors among them (p.indeg).
func (p *lightPlan) link(edges []lightEdge) {
	ne := len(p.ns)
	p.outAt = make([]int32, ne+1)
	p.indeg = make([]int32, ne)
	for _, ed := range edges {
		p.outAt[ed.from+1]++
		p.indeg[ed.to]++
	}
	for e := 0; e < ne; e++ {
		p.outAt[e+1] += p.outAt[e]
	}
	p.out = make([]int32, len(edges))
	fill := slices.Clone(p.outAt[:ne])
	for _, ed := range edges {
		p.out[fill[ed.from]] = ed.to
		fill[ed.from]++
	}
}

// sort solves the constraints into p.order by Kahn's algorithm over the
// cross edges, program order by heads, going on with the same goroutine
// while it can; it fails if they are cyclic.
func (p *lightPlan) sort() error {
	nt, ne := len(p.base)-1, len(p.ns)
	indeg := slices.Clone(p.indeg)
	head := make([]int32, nt)
	var stack []int32
	for i := 0; i < nt; i++ {
		head[i] = p.base[i]
		if head[i] < p.base[i+1] && indeg[head[i]] == 0 {
			stack = append(stack, int32(i))
		}
	}
	p.order = make([]int32, 0, ne)
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		e := head[i]
		p.order = append(p.order, e)
		for _, x := range p.out[p.outAt[e]:p.outAt[e+1]] {
			indeg[x]--
			if t := p.evT[x]; indeg[x] == 0 && head[t] == x && t != i {
				stack = append(stack, t)
			}
		}
		head[i]++
		if head[i] < p.base[i+1] && indeg[head[i]] == 0 {
			stack = append(stack, i)
		}
	}
	if len(p.order) != ne {
		return fmt.Errorf("the log's constraints are cyclic: %d of %d events ordered", len(p.order), ne)
	}
	return nil
}

// lightOracle enforces a lightPlan: an event may run when its goroutine
// reached it and its predecessors ran, which the total order satisfies, but
// also any other linearization of the constraints. Insisting on the one
// total order deadlocks on blocking operations: an unbuffered send that the
// log orders before its receive can only run once the receiver waits,
// after the receiver's own earlier events, which the solution may have put
// after the send; the constraints do not order them, so a replay may.
type lightOracle struct {
	p      *lightPlan
	cursor []int32  // each goroutine's next logged event
	doneN  []uint64 // each goroutine's last performed operation
	indeg  []int32  // predecessors not yet performed
	open   []int32  // intervals of each key whose last read is not performed
	// lastW is each location's last write in the replay, logged or not
	// (absent: the initial value).
	lastW map[uint32]lightID
}

func newLightOracle(p *lightPlan) *lightOracle {
	nt := len(p.base) - 1
	o := &lightOracle{p: p, cursor: slices.Clone(p.base[:nt]), doneN: make([]uint64, nt), indeg: slices.Clone(p.indeg),
		open: slices.Clone(p.ivOpen), lastW: map[uint32]lightID{}}
	return o
}

func isWrite(a record.Access) bool { return a.Kind == sched.Write || a.Kind == sched.ReadWrite }

// held reports that a is a write of a location whose last write in the
// replay still has dependence intervals to be read: a write that is not
// logged (it overwrites its goroutine's own previous write) has no other
// constraint that keeps it out of them, and a logged one has one anyway.
func (o *lightOracle) held(a record.Access) bool {
	if !isWrite(a) || a.Loc == 0 {
		return false
	}
	w, ok := o.lastW[a.Loc]
	if !ok {
		w = lightID{t: -1}
	}
	k, ok := o.p.ivKey[lightKey{uint64(a.Loc), w}]
	return ok && o.open[k] > 0
}

// event returns the logged event of a, or -1.
func (o *lightOracle) event(a record.Access) int32 {
	if a.Thread < 0 || a.Thread >= len(o.cursor) {
		return -1
	}
	c := o.cursor[a.Thread]
	if c < o.p.base[a.Thread+1] && o.p.ns[c] == a.N {
		return c
	}
	return -1
}

func (o *lightOracle) Allow(a record.Access) bool {
	if o.held(a) {
		return false
	}
	e := o.event(a)
	if e < 0 {
		return true
	}
	if o.indeg[e] > 0 {
		return false
	}
	for k := o.p.waitAt[e]; k < o.p.waitAt[e+1]; k++ {
		if o.doneN[o.p.waitT[k]] < o.p.waitN[k] {
			return false
		}
	}
	return true
}

func (o *lightOracle) Performed(a record.Access) {
	if a.Thread < 0 || a.Thread >= len(o.cursor) {
		return
	}
	if a.N > o.doneN[a.Thread] {
		o.doneN[a.Thread] = a.N
	}
	if isWrite(a) && a.Loc != 0 {
		o.lastW[a.Loc] = lightID{t: int32(a.Thread), n: a.N}
	}
	end := o.p.base[a.Thread+1]
	for c := o.cursor[a.Thread]; c < end && o.p.ns[c] <= a.N; c++ {
		for _, x := range o.p.out[o.p.outAt[c]:o.p.outAt[c+1]] {
			o.indeg[x]--
		}
		for _, k := range o.p.ivEnd[o.p.ivEndAt[c]:o.p.ivEndAt[c+1]] {
			o.open[k]--
		}
		o.cursor[a.Thread] = c + 1
	}
}
