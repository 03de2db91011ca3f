package sched

// candidates is the set of goroutines a decision may run, ordered by
// creation: a segment tree over goroutine indices whose nodes count their
// members and name the one of highest priority (G.SetPriority) and the one
// that has waited longest (G.since), so that adding, removing, counting,
// indexing and finding either cost O(log n) whatever the number of
// goroutines. A decision never looks at every live goroutine.
type candidates struct {
	all   *[]*G  // the controller's goroutines, by index
	size  int    // leaves: a power of two, at least len(*all)
	nodes []node // node 1 is the root, leaves from size

	small [2 * smallSize]node // the first tree's nodes, in the controller
}

// A node of the tree. It keeps the keys of the members it names, so that
// recomputing it reads no goroutine (thousands of them are cold in the
// cache).
type node struct {
	cnt      int32 // members below
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
	s.size = smallSize
	s.nodes = s.small[:]
	for i := range s.nodes {
		s.nodes[i] = none
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
	nodes := make([]node, 2*size)
	for i := range size {
		nodes[i] = none
	}
	copy(nodes[size:], s.nodes[s.size:])
	for i := size + s.size; i < 2*size; i++ {
		nodes[i] = none
	}
	s.size, s.nodes = size, nodes
	for p := size - 1; p >= 1; p-- {
		s.pull(p)
	}
}

// pull recomputes node p from its children. On equal keys the left child
// wins: its members are the older goroutines.
//
//go:norace
func (s *candidates) pull(p int) {
	l, r := &s.nodes[2*p], &s.nodes[2*p+1]
	n := &s.nodes[p]
	n.cnt = l.cnt + r.cnt
	if r.top >= 0 && (l.top < 0 || r.prio > l.prio) {
		n.top, n.prio = r.top, r.prio
	} else {
		n.top, n.prio = l.top, l.prio
	}
	if r.old >= 0 && (l.old < 0 || r.since < l.since) {
		n.old, n.since = r.old, r.since
	} else {
		n.old, n.since = l.old, l.since
	}
}

// set makes goroutine g a member or not.
//
//go:norace
func (s *candidates) set(g *G, in bool) {
	if g.idx >= s.size {
		s.grow(g.idx + 1)
	}
	p := s.size + g.idx
	if in {
		s.nodes[p] = node{cnt: 1, top: int32(g.idx), old: int32(g.idx), prio: g.prio, since: g.since}
	} else {
		s.nodes[p] = none
	}
	s.fix(p)
}

// update recomputes the nodes above member g after its priority or since
// changed.
//
//go:norace
func (s *candidates) update(g *G) {
	p := s.size + g.idx
	s.nodes[p].prio, s.nodes[p].since = g.prio, g.since
	s.fix(p)
}

// fix recomputes the ancestors of leaf p.
//
//go:norace
func (s *candidates) fix(p int) {
	for p /= 2; p >= 1; p /= 2 {
		s.pull(p)
	}
}

//go:norace
func (s *candidates) len() int { return int(s.nodes[1].cnt) }

// at returns the k-th member in creation order, from 0.
//
//go:norace
func (s *candidates) at(k int) *G {
	p, left := 1, int32(k)
	for p < s.size {
		if c := s.nodes[2*p].cnt; c > left {
			p = 2 * p
		} else {
			left -= c
			p = 2*p + 1
		}
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
			r += s.nodes[p-1].cnt
		}
	}
	return int(r)
}

// highest returns the member of highest priority, the oldest among equals;
// nil if there is none.
//
//go:norace
func (s *candidates) highest() *G {
	if s.nodes[1].top < 0 {
		return nil
	}
	return (*s.all)[s.nodes[1].top]
}

// longest returns the member that has waited longest; nil if there is none.
//
//go:norace
func (s *candidates) longest() *G {
	if s.nodes[1].old < 0 {
		return nil
	}
	return (*s.all)[s.nodes[1].old]
}
