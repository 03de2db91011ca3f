package sched

// The pending timers, earliest first: a binary heap ordered by deadline,
// then by the order in which the timers were set (Timer.seq), so that the
// timers fire in one order in every replay. An entry keeps its timer's
// keys, so that sifting reads and writes the heap's array alone: the
// timers of thousands of sleepers, cold in the cache, are read only when
// they fire. Stopping a timer leaves its entry in place, stale (its seq no
// longer the timer's, or the timer no longer pending), to be dropped when
// it reaches the top; when stale entries are more than half the heap, it
// is rebuilt without them, so a loop that sets and stops timers keeps it
// small.
type timerQueue struct {
	h     []timerEntry
	stale int // entries of timers stopped or set again since
}

type timerEntry struct {
	when int64
	seq  uint64
	t    *Timer
}

// live reports whether the entry is its timer's current setting.
//
//go:norace
func (e *timerEntry) live() bool { return e.t.pending && e.t.seq == e.seq }

//go:norace
func (e *timerEntry) before(f *timerEntry) bool {
	return e.when < f.when || e.when == f.when && e.seq < f.seq
}

// push adds timer t, set to its when and seq.
//
//go:norace
func (q *timerQueue) push(t *Timer) {
	t.pending = true
	q.h = append(q.h, timerEntry{when: t.when, seq: t.seq, t: t})
	q.up(len(q.h) - 1)
}

// drop takes pending timer t out of the queue: its entry goes stale.
//
//go:norace
func (q *timerQueue) drop(t *Timer) {
	t.pending = false
	q.stale++
	if q.stale > 32 && 2*q.stale > len(q.h) {
		q.compact()
	}
}

// first returns the earliest pending timer, or nil.
//
//go:norace
func (q *timerQueue) first() *Timer {
	for len(q.h) > 0 {
		if e := &q.h[0]; e.live() {
			return e.t
		}
		q.remove()
		q.stale--
	}
	return nil
}

// pop takes the earliest pending timer out of the queue; there is one.
//
//go:norace
func (q *timerQueue) pop() *Timer {
	t := q.first()
	q.remove()
	t.pending = false
	return t
}

// remove takes the top entry out of the heap.
//
//go:norace
func (q *timerQueue) remove() {
	n := len(q.h) - 1
	q.h[0] = q.h[n]
	q.h[n] = timerEntry{}
	q.h = q.h[:n]
	if n > 0 {
		q.down(0)
	}
}

// compact rebuilds the heap from its live entries.
//
//go:norace
func (q *timerQueue) compact() {
	live := q.h[:0]
	for i := range q.h {
		if q.h[i].live() {
			live = append(live, q.h[i])
		}
	}
	clear(q.h[len(live):])
	q.h, q.stale = live, 0
	for i := len(q.h)/2 - 1; i >= 0; i-- {
		q.down(i)
	}
}

//go:norace
func (q *timerQueue) up(i int) {
	e := q.h[i]
	for i > 0 {
		p := (i - 1) / 2
		if !e.before(&q.h[p]) {
			break
		}
		q.h[i] = q.h[p]
		i = p
	}
	q.h[i] = e
}

//go:norace
func (q *timerQueue) down(i int) {
	n := len(q.h)
	e := q.h[i]
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		if r := l + 1; r < n && q.h[r].before(&q.h[l]) {
			l = r
		}
		if !q.h[l].before(&e) {
			break
		}
		q.h[i] = q.h[l]
		i = l
	}
	q.h[i] = e
}
