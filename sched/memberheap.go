package sched

// A memberHeap orders the members of the candidate tree by one key, so
// that the best of them (the highest priority, or the longest wait) is at
// its top: a binary heap over the members alone, with each member's
// position kept by goroutine index. Its operations cost O(log m) in the
// number of members m, and O(1) for the common insertion of a member whose
// key is the worst (a goroutine just started, or just run, has waited
// least): with a few candidates among thousands of goroutines, as when
// most of them sleep or wait, a change costs what a few candidates cost,
// not a path to the root of a tree over every goroutine. Its entries keep
// their keys, so sifting reads no goroutine.
type memberHeap struct {
	h   []heapEntry
	pos []int32 // by goroutine index: its entry in h, -1 if none
	max bool    // the highest key first (priorities); else the lowest (since)
}

type heapEntry struct {
	key int64
	idx int32
}

// before reports whether a goes above b: the better key, and on equal keys
// the older goroutine, as the groups' tries order them (mergeAny).
//
//go:norace
func (m *memberHeap) before(a, b heapEntry) bool {
	if a.key != b.key {
		return a.key > b.key == m.max
	}
	return a.idx < b.idx
}

// grow makes room for goroutine indices below n.
//
//go:norace
func (m *memberHeap) grow(n int) {
	for len(m.pos) < n {
		m.pos = append(m.pos, -1)
	}
}

// best returns the index and key of the best member; -1 if there is none.
//
//go:norace
func (m *memberHeap) best() (int32, int64) {
	if len(m.h) == 0 {
		return -1, 0
	}
	return m.h[0].idx, m.h[0].key
}

// add makes goroutine idx a member with key.
//
//go:norace
func (m *memberHeap) add(idx int, key int64) {
	m.h = append(m.h, heapEntry{key: key, idx: int32(idx)})
	m.up(len(m.h) - 1)
}

// remove takes member idx out.
//
//go:norace
func (m *memberHeap) remove(idx int) {
	i := int(m.pos[idx])
	m.pos[idx] = -1
	last := len(m.h) - 1
	if i != last {
		m.h[i] = m.h[last]
		m.pos[m.h[i].idx] = int32(i)
	}
	m.h = m.h[:last]
	if i != last {
		m.fix(i)
	}
}

// rekey changes member idx's key.
//
//go:norace
func (m *memberHeap) rekey(idx int, key int64) {
	i := int(m.pos[idx])
	if m.h[i].key == key {
		return
	}
	m.h[i].key = key
	m.fix(i)
}

//go:norace
func (m *memberHeap) fix(i int) {
	if i > 0 && m.before(m.h[i], m.h[(i-1)/2]) {
		m.up(i)
	} else {
		m.down(i)
	}
}

//go:norace
func (m *memberHeap) up(i int) {
	e := m.h[i]
	for i > 0 {
		p := (i - 1) / 2
		if !m.before(e, m.h[p]) {
			break
		}
		m.h[i] = m.h[p]
		m.pos[m.h[i].idx] = int32(i)
		i = p
	}
	m.h[i] = e
	m.pos[e.idx] = int32(i)
}

//go:norace
func (m *memberHeap) down(i int) {
	n := len(m.h)
	e := m.h[i]
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		if r := l + 1; r < n && m.before(m.h[r], m.h[l]) {
			l = r
		}
		if !m.before(m.h[l], e) {
			break
		}
		m.h[i] = m.h[l]
		m.pos[m.h[i].idx] = int32(i)
		i = l
	}
	m.h[i] = e
	m.pos[e.idx] = int32(i)
}
