package record

// A table holds a goroutine's own state for each location it touched,
// indexed by location id (a run's ids are dense, from 1): pages of
// tablePage values, allocated as the goroutine touches them. A lookup is
// two indexings, with no hashing and no allocation once a page exists,
// and ids are visited in increasing order.
type table[T any] struct {
	pages []*[tablePage]T
}

const tablePage = 32

// get returns id's value, the zero T until set.
func (tb *table[T]) get(id uint32) *T {
	if i := id / tablePage; i < uint32(len(tb.pages)) {
		if p := tb.pages[i]; p != nil {
			return &p[id%tablePage]
		}
	}
	return tb.grow(id)
}

func (tb *table[T]) grow(id uint32) *T {
	i := int(id / tablePage)
	if i >= len(tb.pages) {
		tb.pages = append(tb.pages, make([]*[tablePage]T, i+1-len(tb.pages))...)
	}
	p := new([tablePage]T)
	tb.pages[i] = p
	return &p[id%tablePage]
}

// each calls f on the value of every id of an allocated page, in
// increasing order of id.
func (tb *table[T]) each(f func(id uint32, v *T)) {
	for i, p := range tb.pages {
		if p == nil {
			continue
		}
		for j := range p {
			f(uint32(i*tablePage+j), &p[j])
		}
	}
}
