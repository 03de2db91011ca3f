package sim

import (
	"math/rand/v2"
	"sync"

	"github.com/weftdev/weft/record"
	"github.com/weftdev/weft/sched"
)

// Channels recording. A channel's state for the run (chanState, as under
// control) is a monitor: its buffer and its queues of waiters are guarded
// by its mutex, and every operation is reported with Sync under it, once.
// A goroutine that must wait queues a waiter, whose selection it shares
// with the other cases of its select, and blocks on the selection's wake
// channel; the partner that completes it claims the selection with a
// compare-and-swap (so that two partners on different channels never both
// complete a select), and signals wake (a channel with room for that one
// signal, reused with the selection).
//
// When an operation is reported follows what its Step is under control
// (chan.go, select.go), so that a replay, which orders the Steps as the
// log orders the reports, pairs the same partners:
//
//   - A send or receive on an unbuffered channel is reported at its
//     arrival: when it completes at once (with the waiting partner it
//     completes, or on a closed channel), or when it queues its waiter. A
//     receive that waits reports value 0: the value it will receive is not
//     known at its arrival. (No recorder needs it: Stride logs no value for
//     a synchronization read-write, and the value the receiver reads is
//     checked through its read digest, Thread.Observe, which does not
//     depend on the order of the reports.) The partner that completes it
//     later does not report it again.
//   - An operation on a buffered channel is reported at its completion:
//     one that waits (for room, for a value) is reported by the partner
//     that completes it, on its behalf, after the partner's own access.
//   - A select that completes a case at once is reported at its arrival;
//     one that waits, at its completion, by the partner that completes it,
//     on its behalf: on an unbuffered channel, just before the partner's
//     own access (so that a replay lets it arrive, and wait, before the
//     partner arrives and finds it), on a buffered one after it (see
//     selectRecorded).
//
// A select locks its channels in the order of their locations.

// recStatus is the outcome of a recorded channel operation attempt.
type recStatus uint8

const (
	recDone    recStatus = iota
	recBlocked           // no partner, no room or no value: the caller waits
	recClosed            // a send on a closed channel: the caller panics
)

// recState returns c's state for t's run, with its capacity.
func (c *Chan[T]) recState(t *record.Thread) *chanState[T] {
	return recState(&c.st, t)
}

// lock locks s's monitor; the capacity is set under it.
func (s *chanState[T]) lock(capacity int) {
	s.mu.Lock()
	s.cap = capacity
}

// recClaim removes and returns the first waiter of q, not of sel, whose
// selection it could claim; waiters claimed elsewhere are dropped (their
// owner's dequeue tolerates it). nil if none.
func recClaim[T any](q *[]*waiter[T], sel *selection) *waiter[T] {
	for i := 0; i < len(*q); {
		w := (*q)[i]
		if w.sel == sel && sel != nil {
			i++
			continue
		}
		*q = append((*q)[:i], (*q)[i+1:]...)
		if w.sel.claim.CompareAndSwap(false, true) {
			return w
		}
	}
	return nil
}

// recWaiting reports whether q holds a waiter, not of sel, that can still be
// claimed.
func recWaiting[T any](q []*waiter[T], sel *selection) bool {
	for _, w := range q {
		if w.sel != sel && !w.sel.claim.Load() {
			return true
		}
	}
	return false
}

func (s *chanState[T]) recCanSend(sel *selection) bool {
	return s.closed || (s.cap > 0 && len(s.buf) < s.cap) || recWaiting(s.recvq, sel)
}

func (s *chanState[T]) recCanRecv(sel *selection) bool {
	return s.closed || len(s.buf) > 0 || (s.cap == 0 && recWaiting(s.sendq, sel))
}

// recSend attempts a send of v by t (of selection sel, nil for a plain
// send) under the monitor, reporting it. t is nil for a timer's delivery,
// which reports only the receiver it completes.
func (s *chanState[T]) recSend(t *record.Thread, r record.Recorder, v T, sel *selection) recStatus {
	l := s.loc
	if s.closed {
		if t != nil {
			r.Sync(t, l, sched.ReadWrite, 0)
		}
		return recClosed
	}
	if w := recClaim(&s.recvq, sel); w != nil {
		w.val, w.ok = v, true
		w.sel.idx = w.idx
		// A select that waited on an unbuffered channel is reported before
		// its partner (see selectRecorded); on a buffered one, after it.
		first := !w.sel.arrived && s.cap == 0
		if first {
			r.Sync(w.sel.t, l, sched.ReadWrite, digest(&v))
		}
		if t != nil {
			r.Sync(t, l, sched.ReadWrite, 0)
		}
		if !w.sel.arrived && !first {
			r.Sync(w.sel.t, l, sched.ReadWrite, digest(&v))
		}
		w.sel.wake <- struct{}{}
		return recDone
	}
	if s.cap > 0 && len(s.buf) < s.cap {
		s.buf = append(s.buf, v)
		if t != nil {
			r.Sync(t, l, sched.ReadWrite, 0)
		}
		return recDone
	}
	return recBlocked
}

// recPop removes and returns the first buffered value. A short buffer is
// shifted down in place, so that its array is reused by the sends that
// follow, rather than slid along it and reallocated every few receives.
func (s *chanState[T]) recPop() T {
	var zero T
	v := s.buf[0]
	n := len(s.buf)
	if n <= 64 {
		copy(s.buf, s.buf[1:])
		s.buf[n-1] = zero
		s.buf = s.buf[:n-1]
		return v
	}
	s.buf[0] = zero
	s.buf = s.buf[1:]
	return v
}

// recRecv attempts a receive by t under the monitor, reporting it.
func (s *chanState[T]) recRecv(t *record.Thread, r record.Recorder, sel *selection) (v T, ok bool, st recStatus) {
	l := s.loc
	if len(s.buf) > 0 {
		v = s.recPop()
		r.Sync(t, l, sched.ReadWrite, digest(&v))
		if w := recClaim(&s.sendq, sel); w != nil {
			// A sender waited for room: its value takes the freed slot.
			s.buf = append(s.buf, w.val)
			w.sel.idx = w.idx
			if !w.sel.arrived {
				r.Sync(w.sel.t, l, sched.ReadWrite, 0)
			}
			w.sel.wake <- struct{}{}
		}
		return v, true, recDone
	}
	if s.closed {
		r.Sync(t, l, sched.ReadWrite, digest(&v))
		return v, false, recDone
	}
	if s.cap == 0 {
		if w := recClaim(&s.sendq, sel); w != nil {
			v = w.val
			w.sel.idx = w.idx
			if !w.sel.arrived { // a select that waited: before its partner
				r.Sync(w.sel.t, l, sched.ReadWrite, 0)
			}
			r.Sync(t, l, sched.ReadWrite, digest(&v))
			w.sel.wake <- struct{}{}
			return v, true, recDone
		}
	}
	return v, false, recBlocked
}

// recClose closes s by t under the monitor, reporting it, then the waiters
// it wakes on their behalf (but those reported at their arrival):
// receivers get zero values, senders panic.
func (s *chanState[T]) recClose(t *record.Thread, r record.Recorder) bool {
	if s.closed {
		return false
	}
	l := s.loc
	s.closed = true
	r.Sync(t, l, sched.ReadWrite, 0)
	for {
		w := recClaim(&s.recvq, nil)
		if w == nil {
			break
		}
		var zero T
		w.val, w.ok = zero, false
		w.sel.idx = w.idx
		if !w.sel.arrived {
			r.Sync(w.sel.t, l, sched.ReadWrite, digest(&zero))
		}
		w.sel.wake <- struct{}{}
	}
	for {
		w := recClaim(&s.sendq, nil)
		if w == nil {
			break
		}
		w.sel.closed = true
		w.sel.idx = w.idx
		if !w.sel.arrived {
			r.Sync(w.sel.t, l, sched.ReadWrite, 0)
		}
		w.sel.wake <- struct{}{}
	}
	return true
}

// recDeliver puts a timer's value in s, unless one is already waiting
// there, or hands it to a waiting receiver (reported on its behalf). gen
// is the timer's generation at arming; a Stop or Reset since voids it.
func (s *chanState[T]) recDeliver(r record.Recorder, v T, gen uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if gen != s.gen {
		return
	}
	if w := recClaim(&s.recvq, nil); w != nil {
		w.val, w.ok = v, true
		w.sel.idx = w.idx
		if !w.sel.arrived {
			r.Sync(w.sel.t, s.loc, sched.ReadWrite, digest(&v))
		}
		w.sel.wake <- struct{}{}
		return
	}
	if len(s.buf) == 0 {
		s.buf = append(s.buf, v)
	}
}

// recDrain discards a timer's undelivered value and voids its pending
// deliveries.
func (s *chanState[T]) recDrain() {
	s.mu.Lock()
	s.gen++
	s.buf = s.buf[:0]
	s.mu.Unlock()
}

// recArrive reports, under the monitor, the arrival of t's send or receive
// that is about to wait on s, if s is unbuffered: the operation's access
// (see above). A receive's value is not known yet: the report carries 0.
func (s *chanState[T]) recArrive(t *record.Thread, r record.Recorder, sel *selection) {
	if s.cap == 0 {
		sel.arrived = true
		r.Sync(t, s.loc, sched.ReadWrite, 0)
	}
}

// A recOp is the waiter of a send or receive that waits on a channel of
// a recorded run, with its selection and wake channel. A goroutine waits
// on at most one operation at a time, and a recOp is no longer referenced
// once its owner is woken (the partner that claimed it removed it from
// its queue, and signals wake last): the owner then returns it to the
// channel's free list, for the next operation that waits there, so that
// an operation that waits allocates nothing in the steady state. wake has
// room for the one signal of each wait, so that it is reused, not closed.
type recOp[T any] struct {
	sel  selection
	w    waiter[T]
	next *recOp[T] // in the free list
}

// recGet returns a reset recOp for t, under the monitor: from the free
// list, or new. Only the monitor's holder takes from the free list (it
// moves the whole shared list to its private part, spare), so that
// owners can return recOps to it without the monitor.
func (s *chanState[T]) recGet(t *record.Thread) *recOp[T] {
	op := s.spare
	if op == nil {
		op = s.free.Swap(nil)
	}
	if op == nil {
		op = &recOp[T]{}
		op.sel.wake = make(chan struct{}, 1)
		op.w.sel = &op.sel
	} else {
		s.spare, op.next = op.next, nil
	}
	op.sel.t = t
	return op
}

// recPut resets op, whose owner was woken, and returns it to s's free
// list.
func (s *chanState[T]) recPut(op *recOp[T]) {
	var zero T
	op.w.val, op.w.ok, op.w.idx = zero, false, 0
	op.sel.t = nil
	op.sel.idx, op.sel.closed, op.sel.arrived = 0, false, false
	op.sel.claim.Store(false)
	for {
		old := s.free.Load()
		op.next = old
		if s.free.CompareAndSwap(old, op) {
			return
		}
	}
}

// recBlock waits, as t, for a partner to complete the single waiter w.
func recBlock(t *record.Thread, sel *selection, mu *sync.Mutex) {
	mu.Unlock()
	<-sel.wake
}

func (c *Chan[T]) recSend(t *record.Thread, v T) {
	if c == nil {
		t.Op(nil)
		blockForever()
	}
	if c.ch == nil {
		panic("sim: send on a timer's channel")
	}
	s := c.recState(t)
	r := t.Op(s.loc)
	s.lock(c.cap)
	switch s.recSend(t, r, v, nil) {
	case recDone:
		s.mu.Unlock()
		return
	case recClosed:
		s.mu.Unlock()
		panic("send on closed channel")
	}
	op := s.recGet(t)
	op.w.val = v
	sel := &op.sel
	s.enqueue(&s.sendq, &op.w)
	s.recArrive(t, r, sel)
	recBlock(t, sel, &s.mu)
	closed := sel.closed
	s.recPut(op)
	if closed {
		panic("send on closed channel")
	}
}

func (c *Chan[T]) recRecv(t *record.Thread) (v T, ok bool) {
	if c == nil {
		t.Op(nil)
		blockForever()
	}
	s := c.recState(t)
	r := t.Op(s.loc)
	s.lock(c.cap)
	v, ok, st := s.recRecv(t, r, nil)
	if st == recDone {
		s.mu.Unlock()
		t.Observe(digest(&v))
		return v, ok
	}
	op := s.recGet(t)
	sel := &op.sel
	s.enqueue(&s.recvq, &op.w)
	s.recArrive(t, r, sel)
	recBlock(t, sel, &s.mu)
	v, ok = op.w.val, op.w.ok
	s.recPut(op)
	t.Observe(digest(&v))
	return v, ok
}

func (c *Chan[T]) recClose(t *record.Thread) {
	if c == nil {
		t.Op(nil)
		panic("close of nil channel")
	}
	if c.ch == nil {
		panic("sim: close of a timer's channel")
	}
	s := c.recState(t)
	r := t.Op(s.loc)
	s.lock(c.cap)
	ok := s.recClose(t, r)
	s.mu.Unlock()
	if !ok {
		panic("close of closed channel")
	}
}

func (c *Chan[T]) recLen(t *record.Thread) int {
	s := c.recState(t)
	r := t.Op(s.loc)
	s.lock(c.cap)
	n := len(s.buf)
	r.Sync(t, s.loc, sched.Read, uint64(n))
	s.mu.Unlock()
	t.Observe(uint64(n))
	return n
}

// Select recording.

// recordedCase is one channel case of a Select recording.
type recordedCase interface {
	mon() (*sync.Mutex, uint32) // the channel's monitor and location number
	loc() *record.Loc
	ready(sel *selection) bool
	// commit performs the case, which ready allowed, and reports it; false
	// if its partner was claimed meanwhile.
	commit(t *record.Thread, r record.Recorder, sel *selection) bool
	queue(sel *selection, idx int)
	// unqueue removes the case's waiter, once the select was woken, and
	// takes its result if a partner completed it (sel.idx).
	unqueue(sel *selection)
	// finish runs the case's function, after a commit or a wake, outside
	// the monitors.
	finish(t *record.Thread)
}

func (ch *Chan[T]) recorded(t *record.Thread, c Case) recordedCase {
	if ch.ch == nil && c.dir == caseSend {
		panic("sim: send on a timer's channel")
	}
	x := &recChanCase[T]{c: c, s: ch.recState(t), cap: ch.cap}
	if c.dir == caseSend {
		x.v = sendValue[T](c)
	}
	return x
}

// recChanCase is a send or receive case of a Select recording.
type recChanCase[T any] struct {
	c      Case
	s      *chanState[T]
	cap    int
	v      T // the value to send; the value received
	ok     bool
	closed bool      // a send on a closed channel
	w      *recOp[T] // the queued waiter, from the channel's free list
}

func (x *recChanCase[T]) mon() (*sync.Mutex, uint32) { return &x.s.mu, x.s.loc.ID() }
func (x *recChanCase[T]) loc() *record.Loc           { return x.s.loc }

func (x *recChanCase[T]) ready(sel *selection) bool {
	x.s.cap = x.cap
	if x.c.dir == caseSend {
		return x.s.recCanSend(sel)
	}
	return x.s.recCanRecv(sel)
}

func (x *recChanCase[T]) commit(t *record.Thread, r record.Recorder, sel *selection) bool {
	if x.c.dir == caseSend {
		switch x.s.recSend(t, r, x.v, sel) {
		case recBlocked:
			return false
		case recClosed:
			x.closed = true
		}
		return true
	}
	v, ok, st := x.s.recRecv(t, r, sel)
	if st == recBlocked {
		return false
	}
	x.v, x.ok = v, ok
	return true
}

func (x *recChanCase[T]) queue(sel *selection, idx int) {
	x.w = x.s.recGet(nil)
	w := &x.w.w
	w.sel, w.idx, w.val = sel, idx, x.v
	if x.c.dir == caseSend {
		x.s.enqueue(&x.s.sendq, w)
	} else {
		x.s.enqueue(&x.s.recvq, w)
	}
}

func (x *recChanCase[T]) unqueue(sel *selection) {
	w := &x.w.w
	if x.c.dir == caseSend {
		x.s.dequeue(&x.s.sendq, w)
	} else {
		x.s.dequeue(&x.s.recvq, w)
	}
	if sel.idx == w.idx { // completed by a partner
		if x.c.dir == caseSend {
			x.closed = sel.closed
		} else {
			x.v, x.ok = w.val, w.ok
		}
	}
	w.sel = &x.w.sel
	x.s.recPut(x.w)
	x.w = nil
}

func (x *recChanCase[T]) finish(t *record.Thread) {
	if x.c.dir == caseSend {
		if x.closed {
			panic("send on closed channel")
		}
		callFunc(x.c)
		return
	}
	t.Observe(digest(&x.v))
	deliverRecv(x.c, x.v, x.ok)
}

// nilCases counts the cases of rc without a channel.
func nilCases(rc []recordedCase) int {
	n := 0
	for _, c := range rc {
		if c == nil {
			n++
		}
	}
	return n
}

// selectRecorded runs a select of a recorded run. One that completes a
// case at once (or runs its default) is reported at its arrival, as a send
// or receive on an unbuffered channel is, with the case it chose logged
// (Thread.Log) if it has several channels, even if that case was the only
// ready one. One that waits is reported at its completion, by the partner
// that completes it, on its behalf (or by the close that wakes it), with
// the channel it completed on (Thread.Touch) and the case logged as its
// choice. On an unbuffered channel, its access comes just before the
// partner's own: the log orders the channel's accesses [select, partner].
// On a buffered channel (a partner made room or a value, or a timer fired),
// and for a close, it comes after the partner's, as a buffered operation's
// completion does.
//
// What a replay gets from this for a select S that waited on an unbuffered
// channel c: its Step (its arrival under control) comes after c's accesses
// before the partner P's, and P's comes after it. S, finding no case ready
// (as it did when it arrived in the recording), queues a waiter on each of
// its channels and parks; P then finds S's waiter on c and completes it,
// with the same value. If P is a select, its logged choice (c's case) picks
// c among its ready cases; if P is a plain operation, it takes the first
// waiter on c, S if the replay queued no other there. Had S been ordered
// after P (as it was, once), P would arrive first, find no partner on c,
// and choose another case or wait: the pairing diverged in most runs. A
// plain operation that waited is reported at its arrival, before whatever
// completes it, and is replayed in the same way.
//
// What it does not get: S's arrival is ordered with c's accesses only (it
// touched only c), not with those of its other channels, and it comes at
// its completion, not at its arrival. So, in a replay: an operation Q on
// another of S's channels, d, which came after S's completion in the
// recording, may arrive while S waits, and complete S on d (the log does
// not order Q after S's completion: they touch different channels); or it
// may be waiting on d already when S arrives, so that S completes at once,
// with its logged choice picking c if c is ready, and the replay departing
// if it is not (P has not arrived yet). And S's waiter on c is queued in
// the order of S's completion, not of its arrival: a plain operation that
// arrived after S and waits on c in the same direction is ahead of it in
// the replay's queue, behind it in the recording's, and P takes it instead
// of S. Those are the departures a replay of selects may still make.
func selectRecorded(t *record.Thread, cases []Case, def int) int {
	r := t.Op(nil)
	rs := recSelects.Get().(*recSelect)
	rs.sel.t = t
	rs.prepare(t, cases)
	if i, ok := rs.tryReady(t, r); ok {
		return i
	}
	if def >= 0 {
		rs.unlockAll()
		rs.release()
		callFunc(cases[def])
		return def
	}
	if len(rs.mons) == 0 {
		blockForever()
	}
	return rs.wait(t)
}

// prepare takes the recorded form of each case, and the monitors of their
// channels, each once, in the order of their identities (so that selects
// lock them in one order).
func (rs *recSelect) prepare(t *record.Thread, cases []Case) {
	for i := range cases {
		c := cases[i]
		if c.ch == nil {
			rs.rc = append(rs.rc, nil)
			continue
		}
		x := c.ch.recorded(t, c)
		rs.rc = append(rs.rc, x)
		mu, id := x.mon()
		mons := rs.mons
		k := len(mons)
		for k > 0 && mons[k-1].id > id {
			k--
		}
		if k > 0 && mons[k-1].id == id {
			continue
		}
		mons = append(mons, recMonitor{})
		copy(mons[k+1:], mons[k:])
		mons[k] = recMonitor{mu, id}
		rs.mons = mons
	}
}

// tryReady commits one of the cases ready now, drawn at random, and
// reports which. When none is, it returns with the monitors locked.
func (rs *recSelect) tryReady(t *record.Thread, r record.Recorder) (int, bool) {
	rc, sel := rs.rc, &rs.sel
	for {
		rs.lockAll()
		ready := rs.ready[:0]
		for i, c := range rc {
			if c != nil && c.ready(sel) {
				ready = append(ready, i)
			}
		}
		rs.ready = ready
		if len(ready) == 0 {
			return 0, false
		}
		// A ready case whose partner another channel's operation claims
		// meanwhile fails to commit: then the cases are looked at again.
		// The draw is not logged until a case commits; the log holds the
		// case's index, as a replay's G.ChooseCase reads it.
		i := ready[0]
		if len(ready) > 1 {
			i = ready[rand.IntN(len(ready))]
		}
		if rc[i].commit(t, r, sel) {
			rs.unlockAll()
			if len(rc)-nilCases(rc) > 1 {
				// Logged even when it was the only ready case: in a
				// replay, another may be ready at its arrival.
				t.Log(i)
			}
			x := rc[i]
			t.Touch(x.loc())
			rs.release()
			x.finish(t)
			return i, true
		}
		rs.unlockAll()
	}
}

// wait queues the select on every case's channel, with the monitors
// locked, and waits for a partner to complete one of them.
func (rs *recSelect) wait(t *record.Thread) int {
	rc, sel := rs.rc, &rs.sel
	for i, c := range rc {
		if c != nil {
			c.queue(sel, i)
		}
	}
	rs.unlockAll()
	<-sel.wake
	rs.lockAll()
	for _, c := range rc {
		if c != nil {
			c.unqueue(sel)
		}
	}
	rs.unlockAll()
	i := sel.idx
	if n := len(rc) - nilCases(rc); n > 1 {
		t.Log(i) // for a replay in which several cases are ready at its arrival
	}
	x := rc[i]
	t.Touch(x.loc())
	rs.release()
	x.finish(t)
	return i
}

// A recSelect is the scratch of a select of a recorded run: its selection,
// whose wake channel has room for the one signal of its wait, and its
// cases and monitors. Once the select completed, nothing references its
// selection (its waiters were unqueued): it returns to recSelects.
type recSelect struct {
	sel   selection
	rc    []recordedCase
	mons  []recMonitor // in the order of their locations, without duplicates
	ready []int
}

// recMonitor is a channel's monitor in a select.
type recMonitor struct {
	mu *sync.Mutex
	id uint32
}

var recSelects = sync.Pool{New: func() any {
	rs := &recSelect{}
	rs.sel.wake = make(chan struct{}, 1)
	return rs
}}

func (rs *recSelect) lockAll() {
	for _, m := range rs.mons {
		m.mu.Lock()
	}
}

func (rs *recSelect) unlockAll() {
	for i := len(rs.mons) - 1; i >= 0; i-- {
		rs.mons[i].mu.Unlock()
	}
}

// release resets rs and returns it to recSelects.
func (rs *recSelect) release() {
	sel := &rs.sel
	sel.t = nil
	sel.idx, sel.closed, sel.arrived = 0, false, false
	sel.claim.Store(false)
	clear(rs.rc)
	rs.rc = rs.rc[:0]
	clear(rs.mons)
	rs.mons = rs.mons[:0]
	rs.ready = rs.ready[:0]
	recSelects.Put(rs)
}
