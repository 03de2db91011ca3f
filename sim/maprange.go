package sim

import (
	"iter"

	"github.com/weftdev/weft/record"
	"github.com/weftdev/weft/sched"
)

// The order of a range over a map. Go randomizes it at every loop; a source
// rewriter rewrites
//
//	for k, v := range m { ... }
//
// in the packages it instruments into a range over a function (Go 1.23)
//
//	for k, v := range sim.MapAll(m) { ... }
//
// or, in files of earlier Go versions, into
//
//	for it := sim.MapRange(m); it.Next(); { k, v := it.Entry(); { ... } }
//
// so that under control the order is a choice of the schedule: strategies
// explore it, a saved schedule replays it, and minimization prefers the
// keys' sorted order. The iterator snapshots the keys when the loop starts.
// Under control or recording, keys that can be ordered by their value
// (booleans, numbers, strings, and arrays, structs and interfaces of those:
// see keyOrder) are sorted, and one choice of the schedule, at an event of
// its own (operation "MapRange"; none for a map of one entry or none),
// picks where the loop starts in that order, as Go picks a random start:
// the keys come as sorted[k:] then sorted[:k], and choice 0 is the sorted
// order. Keys with no order by value (pointers, channels, unsafe pointers,
// interfaces holding them) keep Go's order, which weft does not control:
// a failure that depends on it may not replay. In plain mode the keys come
// in Go's order, with no choice.
//
// The semantics are Go's: each entry still in the map when the loop reaches
// its key is produced once, with its value at that moment; an entry deleted
// before it is reached is not produced; an entry added during the loop is
// not produced (Go may produce it or not). Keys that are not equal to
// themselves (NaN, or arrays, structs and interfaces holding one) cannot be
// looked up: their entries come last, in Go's order, with their values at
// the snapshot, unless the map is empty by then (clear(m) stops the loop).

// opRangeStart is the choice of where a range over a map starts. It is
// pure: it reads a map, plain memory, and changes nothing another goroutine
// could observe, so a loop that polls a channel and ranges over a map at
// every turn is still polling (GoKer's kubernetes_82239, whose worker copies
// a map in such a loop: as an operation that could change state, the range
// kept the loop from waiting for the test's timer, which then ran 50,000
// events later, and the race was found at the 6th to 50th execution, not
// the first: presumably the race detector could no longer restore the stack
// of the worker's first read, and dropped the report).
var opRangeStart = sched.NewPureOp("MapRange")

// MapIter iterates over a map for a range loop that a source rewriter
// rewrote (see MapRange): Next advances it, Key, Value and Entry return the
// current entry.
type MapIter[K comparable, V any] struct {
	m     map[K]V
	keys  []K           // the keys that equal themselves, in their order by value or Go's
	odd   []mapKV[K, V] // the entries whose key does not equal itself
	start int           // where the loop starts in keys
	i     int           // how many of keys and odd were reached
	k     K
	v     V
}

// mapKV is an entry of a map, as a snapshot holds it.
type mapKV[K comparable, V any] struct {
	k K
	v V
}

// MapRange starts a range loop over m, for a source rewriter: it snapshots
// m's keys and, under control or recording, orders them as the schedule
// chooses (see the comment at the top of this file).
func MapRange[M ~map[K]V, K comparable, V any](m M) MapIter[K, V] {
	g, t := drawer()
	return mapRange(m, g, t)
}

// mapRange is MapRange for the goroutine drawer found: g under control, t
// recording, both nil in plain mode.
func mapRange[M ~map[K]V, K comparable, V any](m M, g *sched.G, t *record.Thread) MapIter[K, V] {
	it := MapIter[K, V]{m: m}
	if len(m) == 0 {
		return it
	}
	it.keys = make([]K, 0, len(m))
	for k, v := range m {
		if k != k {
			it.odd = append(it.odd, mapKV[K, V]{k, v})
			continue
		}
		it.keys = append(it.keys, k)
	}
	if len(it.keys) <= 1 {
		return it
	}
	if (g != nil || t != nil) && sortKeys(it.keys) {
		it.start = int(draw(g, t, opRangeStart, uint64(len(it.keys))))
	}
	return it
}

// MapAll returns an iterator over m's entries for a range loop, for a
// source rewriter: in plain mode it ranges over m as Go does; under control
// or recording it iterates as MapRange does, in the order the schedule
// chooses.
func MapAll[M ~map[K]V, K comparable, V any](m M) iter.Seq2[K, V] {
	return func(yield func(K, V) bool) {
		g, t := drawer()
		if g == nil && t == nil {
			for k, v := range m {
				if !yield(k, v) {
					return
				}
			}
			return
		}
		for it := mapRange(m, g, t); it.Next(); {
			if !yield(it.k, it.v) {
				return
			}
		}
	}
}

// MapRangeVars is MapRange for a loop of a Go version before 1.22, whose
// variables are declared once for the whole loop: it returns them too, zero.
func MapRangeVars[M ~map[K]V, K comparable, V any](m M) (MapIter[K, V], K, V) {
	var k K
	var v V
	return MapRange(m), k, v
}

// Next advances the iteration to the next entry still in the map, and
// reports whether there was one.
func (it *MapIter[K, V]) Next() bool {
	n := len(it.keys)
	for it.i < n {
		j := it.start + it.i
		if j >= n {
			j -= n
		}
		it.i++
		k := it.keys[j]
		if v, ok := it.m[k]; ok {
			it.k, it.v = k, v
			return true
		}
	}
	if j := it.i - n; j < len(it.odd) && len(it.m) > 0 {
		it.i++
		it.k, it.v = it.odd[j].k, it.odd[j].v
		return true
	}
	return false
}

// Key returns the current entry's key.
func (it *MapIter[K, V]) Key() K { return it.k }

// Value returns the current entry's value.
func (it *MapIter[K, V]) Value() V { return it.v }

// Entry returns the current entry's key and value.
func (it *MapIter[K, V]) Entry() (K, V) { return it.k, it.v }
