// Package abastack is a bug of depth 3: the ABA problem of a lock-free
// stack that recycles its nodes. A pop reads the top node A and its
// successor B, and is preempted; meanwhile another goroutine pops A, a third
// pops B, and A is pushed back. The first pop's compare-and-swap still sees
// A on top, succeeds, and makes B, which the third goroutine owns, the top
// again. Three ordering constraints (two preemptions) are needed.
package abastack

import (
	"fmt"
	"slices"

	"github.com/weftdev/weft/sim"
	weft "github.com/weftdev/weft/testing"
)

// Node is a stack node.
type Node struct {
	Value int
	next  sim.Pointer[Node]
}

// Stack is a Treiber stack.
type Stack struct {
	top     sim.Pointer[Node]
	recycle bool
}

// NewRecyclingStack returns the stack that pushes popped nodes back as they
// are: the bug.
func NewRecyclingStack() *Stack { return &Stack{recycle: true} }

// NewStack returns the stack that pushes a fresh node every time, so a node
// never returns to the top and compare-and-swap cannot be fooled: the fix.
func NewStack() *Stack { return &Stack{} }

// Push pushes n, or a copy of it.
func (s *Stack) Push(n *Node) {
	if !s.recycle {
		n = &Node{Value: n.Value}
	}
	for {
		top := s.top.Load()
		n.next.Store(top)
		if s.top.CompareAndSwap(top, n) {
			return
		}
	}
}

// Pop removes and returns the top node, or nil.
func (s *Stack) Pop() *Node {
	for {
		top := s.top.Load()
		if top == nil {
			return nil
		}
		next := top.next.Load()
		if s.top.CompareAndSwap(top, next) {
			return top
		}
	}
}

// Buggy is the test body that finds the bug.
func Buggy(t *weft.T) { popPushPop(t, NewRecyclingStack()) }

// Fixed is the same test of the fixed code.
func Fixed(t *weft.T) { popPushPop(t, NewStack()) }

// popPushPop starts with the stack 1, 2, 3 (1 on top); one goroutine pops,
// one pops and pushes back what it got, one pops. Every value must end up
// exactly once: held by a goroutine or still on the stack.
func popPushPop(t *weft.T, s *Stack) {
	for _, v := range []int{3, 2, 1} {
		s.Push(&Node{Value: v})
	}
	var held [2]*Node
	var wg sim.WaitGroup
	wg.Go(func() { held[0] = s.Pop() })
	wg.Go(func() {
		if n := s.Pop(); n != nil {
			s.Push(n)
		}
	})
	wg.Go(func() { held[1] = s.Pop() })
	wg.Wait()
	var values []int
	for _, n := range held {
		if n != nil {
			values = append(values, n.Value)
		}
	}
	for n := s.Pop(); n != nil && len(values) < 10; n = s.Pop() {
		values = append(values, n.Value)
	}
	slices.Sort(values)
	if fmt.Sprint(values) != "[1 2 3]" {
		t.Errorf("values held and left on the stack = %v, want each of 1 2 3 once", values)
	}
}
