package sched

// candidates is the set of goroutines a decision may run, ordered by
// creation: a segment tree over goroutine indices whose nodes count their
// members, so that adding, removing, counting, indexing and ranking cost
// O(log n) whatever the number of goroutines, and two heaps over the
// members that name the one of highest priority (G.SetPriority) and the
// one that has waited longest (G.since), whose changes cost O(log m) in the
// number of members (see memberHeap): often a few among thousands of
// goroutines that wait. A decision never looks at every live goroutine.
type candidates struct {
	all  *[]*G   // the controller's goroutines, by index
	size int     // leaves: a power of two, at least len(*all)
	cnt  []int32 // members below each node; node 1 is the root, leaves from size
	top  memberHeap
	old  memberHeap

	// late is a member whose since changed and whose entry in old does
	// not say so yet (see updateLater); nil if none.
	late *G

	// gen counts the changes of the members and their keys: what was
	// found at one gen holds until the next (see highest and
	// Controller.starving).
	gen uint64
	// hi is highest's answer at gen hiGen.
	hi    *G
	hiGen uint64

	spare *candSpares // what earlier executions' candidates grew (see spares); nil if none

	smallCnt [2 * smallSize]int32 // the first tree, in the controller
	smallPos [2 * smallSize]int32 // the heaps' first positions
	smallTop [smallSize]heapEntry
	smallOld [smallSize]heapEntry

	// Groups of waiters (group.go): their members are candidates too
	// while the group is ready.
	groups []*group // every group with a trie
	active []*group // the ready groups with members
	gcnt   int      // the members of the ready groups
	tn     []tnode  // the groups' trie nodes
	tfree  []int32  // free nodes of tn
	tpath  []int32  // scratch
	tcur   []int32  // scratch
}

// The best members of a group's trie node (group.go), or of the tree's
// members. It keeps their keys, so that recomputing it reads no goroutine
// (thousands of them are cold in the cache).
type node struct {
	top, old int32 // the index of the highest-priority member below, and of the one that has waited longest; -1 if none
	prio     int64 // top's priority
	since    int   // old's since
}

// none is a node with no member below.
var none = node{top: -1, old: -1}

// smallSize is the number of leaves of the first tree, which costs no
// allocation of its own.
const smallSize = 4

// candSpares are the buffers that the candidates of an execution grew
// beyond their own arrays, kept emptied for the next execution of their
// controller (see spares): trees and heaps the same size, without their
// allocations.
type candSpares struct {
	trees          [2][]int32 // two: a tree grows into one from the other
	topPos, oldPos []int32
	topH, oldH     []heapEntry
}

// init readies s for an execution. Its tree and heaps grow as they do
// without spares, at the same sizes, but into the buffers of sp, if large
// enough, which s takes from it.
//
//go:norace
func (s *candidates) init(all *[]*G, sp *candSpares) {
	s.all = all
	s.spare = sp
	s.gen, s.hi, s.hiGen = 1, nil, 0
	s.size = smallSize
	s.cnt = s.smallCnt[:]
	s.top = memberHeap{h: s.smallTop[:0], pos: s.smallPos[:smallSize:smallSize], max: true}
	s.old = memberHeap{h: s.smallOld[:0], pos: s.smallPos[smallSize:]}
	for i := range s.smallPos {
		s.smallPos[i] = -1
	}
}

// spares returns, for its controller's next execution, the spares s did
// not take and the buffers s grew, emptied, up to those for n goroutines.
// Called by Release, outside any execution.
//
//go:norace
func (s *candidates) spares(n int) candSpares {
	var sp candSpares
	if s.spare != nil {
		sp = *s.spare
	}
	if s.size == smallSize {
		return sp // it grew nothing
	}
	if len(s.cnt) <= 2*n {
		s.keepTree(&sp, s.cnt[:0])
	}
	if p, q := s.top.pos, s.old.pos; cap(p) <= n && cap(q) <= n {
		sp.topPos, sp.oldPos = p[:0], q[:0]
	}
	if h, k := s.top.h, s.old.h; cap(h) > smallSize && cap(h) <= n && cap(k) > smallSize && cap(k) <= n {
		sp.topH, sp.oldH = h[:0], k[:0]
	}
	return sp
}

// keepTree keeps tree t in sp's trees, in place of a smaller one.
//
//go:norace
func (s *candidates) keepTree(sp *candSpares, t []int32) {
	for i, u := range sp.trees {
		if u == nil || cap(u) < cap(t) {
			sp.trees[i] = t
			return
		}
	}
}

// growInto returns a tree of n counts, all 0, and gives s's heaps room for
// n/2 members: in spare buffers if large enough, which s takes, or new
// ones.
//
//go:norace
func (s *candidates) growInto(n int) []int32 {
	sp := s.spare
	if sp == nil {
		return make([]int32, n)
	}
	if m := n / 2; cap(sp.topPos) >= m && cap(sp.oldPos) >= m {
		s.top.pos, s.old.pos = moveTo(sp.topPos, s.top.pos), moveTo(sp.oldPos, s.old.pos)
		sp.topPos, sp.oldPos = nil, nil
	}
	if m := n / 2; cap(sp.topH) >= m && cap(sp.oldH) >= m {
		s.top.h, s.old.h = moveTo(sp.topH, s.top.h), moveTo(sp.oldH, s.old.h)
		sp.topH, sp.oldH = nil, nil
	}
	for i, t := range sp.trees {
		if cap(t) >= n {
			sp.trees[i] = nil
			t = t[:n]
			for j := range t { // a loop: see grow
				t[j] = 0
			}
			return t
		}
	}
	return make([]int32, n)
}

// moveTo returns dst, as long as src, with src's elements: dst has room.
// A loop: see grow.
//
//go:norace
func moveTo[T any](dst, src []T) []T {
	dst = dst[:len(src)]
	for i, x := range src {
		dst[i] = x
	}
	return dst
}

// grow makes room for goroutine indices below n, rebuilding the tree.
//
//go:norace
func (s *candidates) grow(n int) {
	size := max(s.size, 1)
	for size < n {
		size *= 2
	}
	if size == s.size {
		return
	}
	old := s.cnt
	cnt := s.growInto(2 * size)
	// Loops, not copy: the race detector checks the runtime's copy even
	// in a //go:norace function, and the tree is written by every
	// goroutine of the execution, with the handoffs between them hidden.
	for i, n := range s.cnt[s.size:] {
		cnt[size+i] = n
	}
	from := s.levels()
	if len(old) > len(s.smallCnt) && s.spare != nil {
		s.keepTree(s.spare, old[:0])
	}
	s.size, s.cnt = size, cnt
	s.top.grow(size)
	s.old.grow(size)
	s.growGroups(from, s.levels())
	for p := size - 1; p >= 1; p-- {
		s.cnt[p] = s.cnt[2*p] + s.cnt[2*p+1]
	}
}

// set makes goroutine g a member or not.
//
//go:norace
func (s *candidates) set(g *G, in bool) {
	s.gen++
	if s.late == g {
		s.late = nil // its entry is written afresh
	}
	if g.idx >= s.size {
		s.grow(g.idx + 1)
	}
	delta := int32(-1)
	if in {
		delta = 1
		s.top.add(g.idx, g.prio)
		s.old.add(g.idx, int64(g.since))
	} else {
		s.top.remove(g.idx)
		s.old.remove(g.idx)
	}
	for q := s.size + g.idx; q >= 1; q /= 2 {
		s.cnt[q] += delta
	}
}

// update reorders member g after its priority or since changed.
//
//go:norace
func (s *candidates) update(g *G) {
	s.gen++
	if s.late == g {
		s.late = nil
	}
	s.top.rekey(g.idx, g.prio)
	s.old.rekey(g.idx, int64(g.since))
}

// updateLater records that member g's since changed, and reorders it only
// when a member's since is next needed (longest): the goroutine that a
// decision runs has its since set then, and most often leaves the
// candidates at its next event (it blocks, sleeps or exits) before any
// decision asks for the longest wait, so it is reordered once, not twice.
// Only since waits: the member counts and priorities stay exact.
//
//go:norace
func (s *candidates) updateLater(g *G) {
	s.gen++
	if s.late != nil && s.late != g {
		s.update(s.late)
	}
	s.late = g
}

// treeBest returns the best members of the tree.
//
//go:norace
func (s *candidates) treeBest() node {
	n := none
	var since int64
	n.top, n.prio = s.top.best()
	n.old, since = s.old.best()
	n.since = int(since)
	return n
}

//go:norace
func (s *candidates) len() int { return int(s.cnt[1]) + s.gcnt }

// at returns the k-th member in creation order, from 0.
//
//go:norace
func (s *candidates) at(k int) *G {
	if len(s.active) > 0 {
		return s.groupAt(k)
	}
	// Without a branch: a random walk's index goes either way at every
	// level, and a mispredicted branch costs more than the arithmetic.
	p, left := 1, int32(k)
	for p < s.size {
		c := s.cnt[2*p]
		right := ^((left - c) >> 31) // all ones if left >= c: the right child
		p = 2*p + int(right&1)
		left -= c & right
	}
	return (*s.all)[p-s.size]
}

// rank returns how many members have an index below i.
//
//go:norace
func (s *candidates) rank(i int) int {
	if i >= s.size {
		return s.len()
	}
	r := int32(0)
	for p := s.size + i; p > 1; p /= 2 {
		if p&1 == 1 {
			r += s.cnt[p-1]
		}
	}
	if len(s.active) > 0 {
		return int(r) + s.groupRank(i)
	}
	return int(r)
}

// highest returns the member of highest priority, the oldest among equals;
// nil if there is none.
//
//go:norace
func (s *candidates) highest() *G {
	if s.hiGen == s.gen {
		return s.hi
	}
	top, _ := s.top.best()
	if len(s.active) > 0 {
		top = s.best().top
	}
	s.hi, s.hiGen = nil, s.gen
	if top >= 0 {
		s.hi = (*s.all)[top]
	}
	return s.hi
}

// oldest returns the index of the member that has waited longest, and its
// since; -1 if there is none.
//
//go:norace
func (s *candidates) oldest() (int32, int) {
	if s.late != nil {
		s.update(s.late)
	}
	if len(s.active) > 0 {
		n := s.best()
		return n.old, n.since
	}
	old, since := s.old.best()
	return old, int(since)
}

// longest returns the member that has waited longest; nil if there is none.
//
//go:norace
func (s *candidates) longest() *G {
	old, _ := s.oldest()
	if old < 0 {
		return nil
	}
	return (*s.all)[old]
}
