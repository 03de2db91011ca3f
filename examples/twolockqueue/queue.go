// Package twolockqueue is a queue that loses an element: a two-lock queue
// (Michael and Scott's: enqueuers take the tail lock, dequeuers the head
// lock, so the two ends work in parallel) that keeps its length in a
// counter both ends update, each under its own lock. An increment and a
// decrement that overlap lose one of the two updates; once the counter
// reads zero with an element still queued, Dequeue reports the queue empty
// and the element is never seen again.
package twolockqueue

import "github.com/weftdev/weft/sim"

type node struct {
	v    int
	next sim.Pointer[node]
}

// Queue is an unbounded FIFO queue of ints.
type Queue struct {
	headMu, tailMu sim.Mutex
	head, tail     *node // a dummy node first; head under headMu, tail under tailMu

	racy  bool
	count sim.Var[int] // the racy counter: a load and a store
	n     sim.Int64    // the fixed one: one atomic add
}

// NewRacy returns the queue whose length counter loses updates.
func NewRacy() *Queue { return newQueue(true) }

// New returns the fixed queue: the counter is updated by atomic adds.
func New() *Queue { return newQueue(false) }

func newQueue(racy bool) *Queue {
	d := &node{}
	return &Queue{head: d, tail: d, racy: racy}
}

// Enqueue adds v at the tail.
func (q *Queue) Enqueue(v int) {
	n := &node{v: v}
	q.tailMu.Lock()
	q.tail.next.Store(n)
	q.tail = n
	q.add(1)
	q.tailMu.Unlock()
}

// Dequeue removes and returns the element at the head; ok is false if the
// queue is empty.
func (q *Queue) Dequeue() (v int, ok bool) {
	q.headMu.Lock()
	defer q.headMu.Unlock()
	if q.Len() == 0 {
		return 0, false
	}
	next := q.head.next.Load()
	q.head = next
	q.add(-1)
	return next.v, true
}

// Len returns the number of elements.
func (q *Queue) Len() int {
	if q.racy {
		return q.count.Load()
	}
	return int(q.n.Load())
}

func (q *Queue) add(d int) {
	if q.racy {
		q.count.Store(q.count.Load() + d)
		return
	}
	q.n.Add(int64(d))
}
