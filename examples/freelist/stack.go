// Package freelist is a lock-free stack with the ABA problem: Treiber's
// stack, whose Pop reads the top node, its successor and its value, then
// swings the top from that node to the successor with a compare-and-swap;
// nodes are recycled through a free list. Between Pop's reads and its
// compare-and-swap, another goroutine pops the node and pushes a new value,
// which recycles the same node: the top is the same pointer again, the
// compare-and-swap succeeds, and the stale Pop returns an element that was
// already popped while the one just pushed is lost.
package freelist

import "github.com/weftdev/weft/sim"

type node struct {
	v    sim.Int64 // atomics, not plain fields: a recycled node is written while a stale Pop may read it
	next sim.Pointer[node]
}

// Stack is a lock-free LIFO stack of ints.
type Stack struct {
	top sim.Pointer[node]

	recycle bool
	mu      sim.Mutex // guards free
	free    []*node   // freed nodes, reused oldest first
}

// NewRacy returns the stack that recycles its nodes.
func NewRacy() *Stack { return &Stack{recycle: true} }

// New returns the fixed stack: every Push allocates a node, and a node is
// never reused while a Pop may still hold it (the garbage collector sees
// to that), so a top that compares equal is the same top.
func New() *Stack { return &Stack{} }

// Push adds v on top.
func (s *Stack) Push(v int) {
	n := s.alloc()
	n.v.Store(int64(v))
	for {
		old := s.top.Load()
		n.next.Store(old)
		if s.top.CompareAndSwap(old, n) {
			return
		}
	}
}

// Pop removes and returns the top element; ok is false if the stack is
// empty.
func (s *Stack) Pop() (v int, ok bool) {
	for {
		old := s.top.Load()
		if old == nil {
			return 0, false
		}
		next := old.next.Load()
		v := int(old.v.Load())
		if s.top.CompareAndSwap(old, next) {
			s.release(old)
			return v, true
		}
	}
}

func (s *Stack) alloc() *node {
	if s.recycle {
		s.mu.Lock()
		defer s.mu.Unlock()
		if len(s.free) > 0 {
			n := s.free[0]
			s.free = s.free[1:]
			return n
		}
	}
	return &node{}
}

func (s *Stack) release(n *node) {
	if s.recycle {
		s.mu.Lock()
		s.free = append(s.free, n)
		s.mu.Unlock()
	}
}
