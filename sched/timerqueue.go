package sched

// The pending timers, earliest first, ordered by deadline, then by the
// order in which the timers were set (Timer.seq), so that the timers fire
// in one order in every replay. Most timers are set in that order already
// (sleeps and timeouts of one length, set as the clock moves on): those go
// to a queue in which setting and firing cost O(1), the others to a binary
// heap; the earliest timer is the earlier of their firsts. An entry keeps
// its timer's keys, so that sifting reads and writes the heap's array
// alone: the timers of thousands of sleepers, cold in the cache, are read
// only when they fire. Stopping a timer leaves its entry in place, stale
// (its seq no longer the timer's, or the timer no longer pending), to be
// dropped when it comes first; when stale entries are more than half of
// all, both are rebuilt without them, so a loop that sets and stops timers
// keeps them small.
type timerQueue struct {
	h     []timerEntry // a binary heap
	fifo  []timerEntry // in order from head
	head  int          // fifo's first entry
	stale int          // entries of timers stopped or set again since

	heapOnly bool // no queue: every timer in the heap (Options.heapTimers)
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
	e := timerEntry{when: t.when, seq: t.seq, t: t}
	if n := len(q.fifo); !q.heapOnly && (n == q.head || !e.before(&q.fifo[n-1])) {
		if q.head > 0 && q.head >= n/2 { // reuse the room before the head
			q.shift()
		}
		q.fifo = append(q.fifo, e)
		return
	}
	q.h = append(q.h, e)
	q.up(len(q.h) - 1)
}

// drop takes pending timer t out of the queue: its entry goes stale.
//
//go:norace
func (q *timerQueue) drop(t *Timer) {
	t.pending = false
	q.stale++
	if q.stale > 32 && 2*q.stale > len(q.h)+len(q.fifo)-q.head {
		q.compact()
	}
}

// empty reports whether the queue holds no entry, pending or stale.
//
//go:norace
func (q *timerQueue) empty() bool { return len(q.h) == 0 && q.head == len(q.fifo) }

// first returns the earliest pending timer, or nil.
//
//go:norace
func (q *timerQueue) first() *Timer {
	if e := q.next(); e != nil {
		return e.t
	}
	return nil
}

// next returns the entry of the earliest pending timer, or nil, dropping
// the stale entries that come before it.
//
//go:norace
func (q *timerQueue) next() *timerEntry {
	for len(q.h) > 0 && !q.h[0].live() {
		q.remove()
		q.stale--
	}
	for q.head < len(q.fifo) && !q.fifo[q.head].live() {
		q.fifo[q.head] = timerEntry{}
		q.head++
		q.stale--
	}
	switch {
	case q.head == len(q.fifo):
		if len(q.h) == 0 {
			return nil
		}
		return &q.h[0]
	case len(q.h) == 0 || q.fifo[q.head].before(&q.h[0]):
		return &q.fifo[q.head]
	}
	return &q.h[0]
}

// pop takes the earliest pending timer out of the queue; there is one.
//
//go:norace
func (q *timerQueue) pop() *Timer {
	e := q.next()
	t := e.t
	if q.head < len(q.fifo) && e == &q.fifo[q.head] {
		q.fifo[q.head] = timerEntry{}
		q.head++
	} else {
		q.remove()
	}
	t.pending = false
	return t
}

// remove takes the heap's top entry out.
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

// shift moves the queue's entries to the start of its array. (A loop, not
// copy: the race detector checks the runtime's copy even in a //go:norace
// function, and the queue is written by every goroutine of the execution,
// with the handoffs between them hidden.)
//
//go:norace
func (q *timerQueue) shift() {
	n := len(q.fifo) - q.head
	for i := range n {
		q.fifo[i] = q.fifo[q.head+i]
	}
	clear(q.fifo[n:])
	q.fifo, q.head = q.fifo[:n], 0
}

// compact rebuilds the heap and the queue from their live entries.
//
//go:norace
func (q *timerQueue) compact() {
	q.h = liveEntries(q.h, 0)
	q.fifo, q.head = liveEntries(q.fifo, q.head), 0
	q.stale = 0
	for i := len(q.h)/2 - 1; i >= 0; i-- {
		q.down(i)
	}
}

// liveEntries returns the live entries of es[from:], in order, in es's
// array.
//
//go:norace
func liveEntries(es []timerEntry, from int) []timerEntry {
	live := es[:0]
	for i := from; i < len(es); i++ {
		if es[i].live() {
			live = append(live, es[i])
		}
	}
	clear(es[len(live):])
	return live
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
