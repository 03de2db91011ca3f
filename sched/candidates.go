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

//go:norace
func (s *candidates) init(all *[]*G) {
	s.all = all
	s.gen, s.hi, s.hiGen = 1, nil, 0
	s.size = smallSize
	s.cnt = s.smallCnt[:]
	s.top = memberHeap{h: s.smallTop[:0], pos: s.smallPos[:smallSize:smallSize], max: true}
	s.old = memberHeap{h: s.smallOld[:0], pos: s.smallPos[smallSize:]}
	for i := range s.smallPos {
		s.smallPos[i] = -1
	}
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
	cnt := make([]int32, 2*size)
	// Loops, not copy: the race detector checks the runtime's copy even
	// in a //go:norace function, and the tree is written by every
	// goroutine of the execution, with the handoffs between them hidden.
	for i, n := range s.cnt[s.size:] {
		cnt[size+i] = n
	}
	from := s.levels()
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
