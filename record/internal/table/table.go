// Package table holds a recorder's per-location state of one goroutine.
package table

// A Table holds a goroutine's own state for each location it touched,
// indexed by location id (a run's ids are dense, from 1): pages of Page
// values, allocated as the goroutine touches them. A lookup is two
// indexings, with no hashing and no allocation once a page exists, and ids
// are visited in increasing order.
type Table[T any] struct {
	pages []*[Page]T
}

// Page is how many values a page holds.
const Page = 32

// Get returns id's value, the zero T until set.
func (tb *Table[T]) Get(id uint32) *T {
	if i := id / Page; i < uint32(len(tb.pages)) {
		if p := tb.pages[i]; p != nil {
			return &p[id%Page]
		}
	}
	return tb.grow(id)
}

func (tb *Table[T]) grow(id uint32) *T {
	i := int(id / Page)
	if i >= len(tb.pages) {
		tb.pages = append(tb.pages, make([]*[Page]T, i+1-len(tb.pages))...)
	}
	p := new([Page]T)
	tb.pages[i] = p
	return &p[id%Page]
}

// Each calls f on the value of every id of an allocated page, in
// increasing order of id.
func (tb *Table[T]) Each(f func(id uint32, v *T)) {
	for i, p := range tb.pages {
		if p == nil {
			continue
		}
		for j := range p {
			f(uint32(i*Page+j), &p[j])
		}
	}
}
