package sched

// candidates is the set of goroutines a decision may run, ordered by
// creation: a segment tree over goroutine indices whose nodes count their
// members and name the one of highest priority (G.SetPriority) and the one
// that has waited longest (G.since), so that adding, removing, counting,
// indexing and finding either cost O(log n) whatever the number of
// goroutines. A decision never looks at every live goroutine.
type candidates struct {
	all  *[]*G   // the controller's goroutines, by index
	size int     // leaves: a power of two, at least len(*all)
	cnt  []int32 // members below each node; node 1 is the root, leaves from size
	top  []int32 // the index of the highest-priority member below, -1 if none
	old  []int32 // the index of the member below that has waited longest, -1 if none

	small [3][2 * smallSize]int32 // the first tree's nodes, in the controller
}

// smallSize is the number of leaves of the first tree, which costs no
// allocation of its own.
const smallSize = 16

//go:norace
func (s *candidates) init(all *[]*G) {
	s.all = all
	s.size = smallSize
	s.cnt, s.top, s.old = s.small[0][:], s.small[1][:], s.small[2][:]
	for i := range s.top {
		s.top[i], s.old[i] = -1, -1
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
	cnt, top, old := make([]int32, 2*size), make([]int32, 2*size), make([]int32, 2*size)
	for i := range top {
		top[i], old[i] = -1, -1
	}
	for i := range s.size {
		cnt[size+i], top[size+i], old[size+i] = s.cnt[s.size+i], s.top[s.size+i], s.old[s.size+i]
	}
	s.size, s.cnt, s.top, s.old = size, cnt, top, old
	for p := size - 1; p >= 1; p-- {
		s.pull(p)
	}
}

// pull recomputes node p from its children.
//
//go:norace
func (s *candidates) pull(p int) {
	l, r := 2*p, 2*p+1
	s.cnt[p] = s.cnt[l] + s.cnt[r]
	s.top[p] = s.better(s.top[l], s.top[r])
	s.old[p] = s.older(s.old[l], s.old[r])
}

// better returns the one of goroutines i and j (indices, -1 for none) that a
// priority order runs first: the higher priority, then the older.
//
//go:norace
func (s *candidates) better(i, j int32) int32 {
	if i < 0 {
		return j
	}
	if j < 0 {
		return i
	}
	all := *s.all
	if all[j].prio > all[i].prio {
		return j
	}
	return i
}

// older returns the one of goroutines i and j (-1 for none) that has
// waited longer: the earlier since, then the older goroutine.
//
//go:norace
func (s *candidates) older(i, j int32) int32 {
	if i < 0 {
		return j
	}
	if j < 0 {
		return i
	}
	all := *s.all
	if all[j].since < all[i].since {
		return j
	}
	return i
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
		s.cnt[p], s.top[p], s.old[p] = 1, int32(g.idx), int32(g.idx)
	} else {
		s.cnt[p], s.top[p], s.old[p] = 0, -1, -1
	}
	s.fix(p)
}

// update recomputes the nodes above member g after its priority or since
// changed.
//
//go:norace
func (s *candidates) update(g *G) { s.fix(s.size + g.idx) }

// fix recomputes the ancestors of leaf p.
//
//go:norace
func (s *candidates) fix(p int) {
	for p /= 2; p >= 1; p /= 2 {
		s.pull(p)
	}
}

//go:norace
func (s *candidates) len() int { return int(s.cnt[1]) }

// at returns the k-th member in creation order, from 0.
//
//go:norace
func (s *candidates) at(k int) *G {
	p, left := 1, int32(k)
	for p < s.size {
		if s.cnt[2*p] > left {
			p = 2 * p
		} else {
			left -= s.cnt[2*p]
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
			r += s.cnt[p-1]
		}
	}
	return int(r)
}

// highest returns the member of highest priority, the oldest among equals;
// nil if there is none.
//
//go:norace
func (s *candidates) highest() *G {
	if s.top[1] < 0 {
		return nil
	}
	return (*s.all)[s.top[1]]
}

// longest returns the member that has waited longest; nil if there is none.
//
//go:norace
func (s *candidates) longest() *G {
	if s.old[1] < 0 {
		return nil
	}
	return (*s.all)[s.old[1]]
}
