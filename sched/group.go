package sched

// Groups of waiters. The goroutines that wait on one object for the same
// condition (every goroutine blocked in Lock of one mutex) are enabled and
// disabled together, at every change of the object. Asking each of them
// again, and adding each to the candidates or taking it out, would cost
// each change time linear in their number: ten thousand goroutines taking
// one lock in turn would cost a hundred million. So they form a group, whose
// members are enabled when the group is ready: a change of the object asks
// the group's Waiter once, and flips the group in O(1).
//
// The candidates are then the members of the segment tree plus the members
// of every ready group. A group keeps its members in a binary trie over
// goroutine indices, aligned with the segment tree (its root covers the
// same indices as the tree's, a node at depth d the same as the tree's
// node at depth d), whose nodes count their members, as the tree's do, and
// name the best ones (those of the tree's members come from its heaps,
// memberHeap); counting, indexing and ranking the candidates
// descend the tree and the tries of the ready groups together, so that
// the candidates are ordered by creation as before and every strategy
// decides as it did.

// A group is the goroutines waiting on one object with one SharedWaiter.
type group struct {
	obj     uint32
	w       Waiter
	ready   bool   // w was ready at the last change of obj: the members are enabled
	n       int    // members
	root    int32  // trie node of the members; -1 if none
	active  int    // its place in candidates.active while ready with members; -1 if not
	at      int    // its place in candidates.groups
	pending []*G   // members that have not been enabled since they joined (G.since unset)
	_       [0]int // not comparable
}

// A tnode is a node of a group's trie: the members below it, and their
// best ones.
type tnode struct {
	kid  [2]int32 // -1: none
	cnt  int32
	best node
}

// levels returns the depth of the segment tree's leaves.
//
//go:norace
func (s *candidates) levels() int {
	d := 0
	for 1<<d < s.size {
		d++
	}
	return d
}

//go:norace
func (s *candidates) newNode() int32 {
	if n := len(s.tfree); n > 0 {
		t := s.tfree[n-1]
		s.tfree = s.tfree[:n-1]
		s.tn[t] = tnode{kid: [2]int32{-1, -1}, best: none}
		return t
	}
	s.tn = append(s.tn, tnode{kid: [2]int32{-1, -1}, best: none})
	return int32(len(s.tn) - 1)
}

// newGroup makes a group of waiters on obj for w; it starts empty and not
// ready.
//
//go:norace
func (s *candidates) newGroup(obj uint32, w Waiter) *group {
	gr := &group{obj: obj, w: w, root: -1, active: -1, at: len(s.groups)}
	s.groups = append(s.groups, gr)
	return gr
}

// dropGroup forgets an empty group.
//
//go:norace
func (s *candidates) dropGroup(gr *group) {
	last := len(s.groups) - 1
	moved := s.groups[last]
	s.groups[gr.at] = moved
	moved.at = gr.at
	s.groups[last] = nil
	s.groups = s.groups[:last]
}

// tpull recomputes trie node t's best members from its children.
//
//go:norace
func (s *candidates) tpull(t int32) {
	l, r := none, none
	if k := s.tn[t].kid[0]; k >= 0 {
		l = s.tn[k].best
	}
	if k := s.tn[t].kid[1]; k >= 0 {
		r = s.tn[k].best
	}
	s.tn[t].best = merge(l, r)
}

// merge returns the best members of two nodes, the first covering lower
// indices: on equal keys its members win.
//
//go:norace
func merge(l, r node) node {
	var n node
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
	return n
}

// mergeAny returns the best members of two nodes covering interleaved
// indices: equal keys go to the lower index.
//
//go:norace
func mergeAny(a, b node) node {
	n := a
	if b.top >= 0 && (a.top < 0 || b.prio > a.prio || b.prio == a.prio && b.top < a.top) {
		n.top, n.prio = b.top, b.prio
	}
	if b.old >= 0 && (a.old < 0 || b.since < a.since || b.since == a.since && b.old < a.old) {
		n.old, n.since = b.old, b.since
	}
	return n
}

// path walks gr's trie down to goroutine index i's leaf, creating the
// missing nodes if make, and returns the nodes from the root, or false if
// the leaf is missing.
//
//go:norace
func (s *candidates) path(gr *group, i int, create bool) ([]int32, bool) {
	levels := s.levels()
	p := s.tpath[:0]
	if gr.root < 0 {
		if !create {
			return p, false
		}
		gr.root = s.newNode()
	}
	t := gr.root
	p = append(p, t)
	for d := levels - 1; d >= 0; d-- {
		b := i >> d & 1
		k := s.tn[t].kid[b]
		if k < 0 {
			if !create {
				return p, false
			}
			k = s.newNode()
			s.tn[t].kid[b] = k
		}
		t = k
		p = append(p, t)
	}
	s.tpath = p
	return p, true
}

// join adds goroutine g to group gr, with its keys (G.prio, G.since).
//
//go:norace
func (s *candidates) join(gr *group, g *G) {
	s.gen++
	if g.idx >= s.size {
		s.grow(g.idx + 1)
	}
	p, _ := s.path(gr, g.idx, true)
	leaf := p[len(p)-1]
	s.tn[leaf].cnt = 1
	s.tn[leaf].best = node{top: int32(g.idx), old: int32(g.idx), prio: g.prio, since: g.since}
	for j := len(p) - 2; j >= 0; j-- {
		s.tn[p[j]].cnt++
		s.tpull(p[j])
	}
	gr.n++
	if gr.ready {
		s.gcnt++
		if gr.n == 1 {
			s.activate(gr)
		}
	}
}

// leave takes goroutine g out of group gr.
//
//go:norace
func (s *candidates) leave(gr *group, g *G) {
	s.gen++
	p, ok := s.path(gr, g.idx, false)
	if !ok {
		panic("weft: a goroutine left a group it is not in")
	}
	for j := len(p) - 1; j >= 0; j-- {
		t := p[j]
		s.tn[t].cnt--
		if s.tn[t].cnt == 0 {
			s.tfree = append(s.tfree, t)
			if j > 0 {
				par := p[j-1]
				s.tn[par].kid[g.idx>>(len(p)-1-j)&1] = -1
			} else {
				gr.root = -1
			}
			continue
		}
		s.tpull(t)
	}
	gr.n--
	if gr.ready {
		s.gcnt--
		if gr.n == 0 {
			s.deactivate(gr)
		}
	}
}

// updateMember recomputes the nodes above member g of gr after its
// priority or since changed.
//
//go:norace
func (s *candidates) updateMember(gr *group, g *G) {
	s.gen++
	p, ok := s.path(gr, g.idx, false)
	if !ok {
		panic("weft: a goroutine's group does not hold it")
	}
	leaf := p[len(p)-1]
	s.tn[leaf].best.prio, s.tn[leaf].best.since = g.prio, g.since
	for j := len(p) - 2; j >= 0; j-- {
		s.tpull(p[j])
	}
}

// setReady enables or disables every member of gr at once.
//
//go:norace
func (s *candidates) setReady(gr *group, ready bool) {
	s.gen++
	if gr.ready == ready {
		return
	}
	gr.ready = ready
	if gr.n == 0 {
		return
	}
	if ready {
		s.gcnt += gr.n
		s.activate(gr)
	} else {
		s.gcnt -= gr.n
		s.deactivate(gr)
	}
}

//go:norace
func (s *candidates) activate(gr *group) {
	gr.active = len(s.active)
	s.active = append(s.active, gr)
}

//go:norace
func (s *candidates) deactivate(gr *group) {
	last := len(s.active) - 1
	moved := s.active[last]
	s.active[gr.active] = moved
	moved.active = gr.active
	s.active[last] = nil
	s.active = s.active[:last]
	gr.active = -1
}

// growGroups adds levels above the roots of the groups' tries when the
// tree grows from 2^from leaves to 2^to: the old root covers the lower
// indices.
//
//go:norace
func (s *candidates) growGroups(from, to int) {
	for _, gr := range s.groups {
		if gr.root < 0 {
			continue
		}
		for range to - from {
			t := s.newNode()
			s.tn[t].kid[0] = gr.root
			s.tn[t].cnt = s.tn[gr.root].cnt
			s.tn[t].best = s.tn[gr.root].best
			gr.root = t
		}
	}
}

// kidCount returns how many members trie node t's child b holds.
//
//go:norace
func (s *candidates) kidCount(t int32, b int) int32 {
	if t < 0 {
		return 0
	}
	if k := s.tn[t].kid[b]; k >= 0 {
		return s.tn[k].cnt
	}
	return 0
}

// groupAt returns the k-th candidate in creation order, from 0, when
// groups are ready: it descends the tree and their tries together.
//
//go:norace
func (s *candidates) groupAt(k int) *G {
	cur := s.tcur[:0]
	for _, gr := range s.active {
		cur = append(cur, gr.root)
	}
	p, left := 1, int32(k)
	for p < s.size {
		c := s.cnt[2*p]
		for _, t := range cur {
			c += s.kidCount(t, 0)
		}
		b := 0
		if c > left {
			p = 2 * p
		} else {
			left -= c
			p = 2*p + 1
			b = 1
		}
		for j, t := range cur {
			if t >= 0 {
				cur[j] = s.tn[t].kid[b]
			}
		}
	}
	s.tcur = cur
	return (*s.all)[p-s.size]
}

// groupRank returns how many members of ready groups have an index below
// i.
//
//go:norace
func (s *candidates) groupRank(i int) int {
	levels := s.levels()
	r := int32(0)
	for _, gr := range s.active {
		t := gr.root
		for d := levels - 1; d >= 0 && t >= 0; d-- {
			b := i >> d & 1
			if b == 1 {
				r += s.kidCount(t, 0)
			}
			t = s.tn[t].kid[b]
		}
	}
	return int(r)
}

// best returns the best candidates of the tree and the ready groups.
//
//go:norace
func (s *candidates) best() node {
	n := s.treeBest()
	for _, gr := range s.active {
		n = mergeAny(n, s.tn[gr.root].best)
	}
	return n
}
