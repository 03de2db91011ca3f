package sim

import (
	"hash/maphash"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/weftdev/weft/internal/gls"
	"github.com/weftdev/weft/internal/race"
	"github.com/weftdev/weft/record"
	"github.com/weftdev/weft/sched"
)

// A Map is like a Go map[any]any but is safe for concurrent use by multiple
// goroutines, like sync.Map. The zero Map is empty and ready to use. A Map
// must not be copied after first use.
//
// In plain mode a Map is a sync.Map. Under control every method is one
// event on the map, and the contents are the execution's own, like the
// state of the other primitives: a Map starts in each execution that uses
// it with what plain mode stored (a registry filled at package init), and
// what an execution stores is not seen by the others nor by plain mode. Recording, every method is one synchronization access to
// the map, whose contents are the run's own as under control. Range visits the entries in the order their keys were
// inserted (a key deleted and stored again counts as new), so that an
// execution replays exactly.
type Map struct {
	m  sync.Map
	st *mapState
}

// mapState is a Map's contents in one execution or recorded run. Its
// methods are //go:norace (see race.go), and its index of keys is not a Go
// map, whose writes the race detector checks whatever the caller.
type mapState struct {
	object
	keys  keyIndex    // every key stored, deleted ones included
	order []*mapEntry // in insertion order, deleted entries included
	live  int         // entries not deleted
	dead  int         // deleted entries in order
	mu    sync.Mutex  // recording: the monitor
}

type mapEntry struct {
	key, value any
	deleted    bool
}

// A mapKey is a key ever stored in the map, and its entry if it has one.
// For the race detector, as sync.Map promises, a write of the key (Store,
// Delete, a Swap, a successful CompareAndSwap, ...) happens before the
// reads of it that observe the write: writes release their goroutine's
// happens-before state in clock, reads acquire it (see read and write).
type mapKey struct {
	key   any
	entry *mapEntry // nil while the key is deleted
	clock byte
	next  *mapKey // in its bucket
}

// read is a read of k (nil: a key never stored, nothing to observe).
func (k *mapKey) read() {
	if k != nil {
		race.Acquire(unsafe.Pointer(&k.clock))
	}
}

// write is a write of k.
func (k *mapKey) write() { race.ReleaseMerge(unsafe.Pointer(&k.clock)) }

// A keyIndex is a hash table of mapKeys, chained, with a power-of-two
// number of buckets.
type keyIndex struct {
	buckets []*mapKey
	n       int
	seed    maphash.Seed
}

// lookup returns key's mapKey, or nil.
//
//go:norace
func (x *keyIndex) lookup(key any) *mapKey {
	if len(x.buckets) == 0 {
		_ = nonEmpty[key]
		return nil
	}
	for k := x.buckets[x.bucket(key)]; k != nil; k = k.next {
		if k.key == key {
			return k
		}
	}
	return nil
}

// insert adds key, which lookup did not find, and returns its mapKey.
//
//go:norace
func (x *keyIndex) insert(key any) *mapKey {
	if x.n >= len(x.buckets) {
		x.grow()
	}
	b := x.bucket(key)
	k := &mapKey{key: key, next: x.buckets[b]}
	x.buckets[b] = k
	x.n++
	return k
}

// grow doubles the buckets (at least 8), rehashing every key.
//
//go:norace
func (x *keyIndex) grow() {
	old := x.buckets
	if len(old) == 0 {
		x.seed = maphash.MakeSeed()
	}
	x.buckets = make([]*mapKey, max(2*len(old), 8))
	for _, k := range old {
		for k != nil {
			next := k.next
			b := x.bucket(k.key)
			k.next = x.buckets[b]
			x.buckets[b] = k
			k = next
		}
	}
}

func (x *keyIndex) bucket(key any) uint64 {
	return maphash.Comparable(x.seed, key) & uint64(len(x.buckets)-1)
}

// The operations of Map, as events and traces name them.
var (
	opMapLoad          = sched.NewOp("Map.Load")
	opMapStore         = sched.NewOp("Map.Store")
	opMapLoadOrStore   = sched.NewOp("Map.LoadOrStore")
	opMapLoadAndDelete = sched.NewOp("Map.LoadAndDelete")
	opMapDelete        = sched.NewOp("Map.Delete")
	opMapSwap          = sched.NewOp("Map.Swap")
	opMapCAS           = sched.NewOp("Map.CompareAndSwap")
	opMapCAD           = sched.NewOp("Map.CompareAndDelete")
	opMapRange         = sched.NewOp("Map.Range")
	opMapClear         = sched.NewOp("Map.Clear")
)

// state performs the event of op on m for g and returns m's state in g's
// execution.
func (m *Map) state(g *sched.G, op *sched.Op) *mapState {
	s, fresh := newState(&m.st, g)
	if fresh {
		s.fromPlain(&m.m)
	}
	g.Step(op, s.id, nil)
	return s
}

// fromPlain starts the map's contents in an execution with what plain mode
// stored: cilium/statedb registers its key types in a Map at package init,
// and each execution found none. The entries go in an order of their keys
// that does not depend on sync.Map's (see plainOrder), for Range to visit
// them alike in every execution.
//
//go:norace
func (s *mapState) fromPlain(m *sync.Map) {
	type plainEntry struct {
		order      string
		key, value any
	}
	var es []plainEntry
	m.Range(func(k, v any) bool {
		es = append(es, plainEntry{plainOrder(k), k, v})
		return true
	})
	slices.SortStableFunc(es, func(a, b plainEntry) int { return strings.Compare(a.order, b.order) })
	for _, e := range es {
		s.store(e.key, e.value)
	}
}

// plainOrder is what orders a key of entries plain mode stored: its type,
// and its value for the kinds that print without fmt (whose pool of
// printers would order the goroutines that format, under the race
// detector). Keys of other kinds with one type keep sync.Map's order.
func plainOrder(k any) string {
	switch k := k.(type) {
	case string:
		return "string " + k
	case int:
		return "int " + strconv.Itoa(k)
	case reflect.Type:
		return "reflect.Type " + k.String()
	}
	if t := reflect.TypeOf(k); t != nil {
		return t.String()
	}
	return ""
}

// recLock begins an operation of t on m recording: it returns m's state for
// t's run, locked, and reports the access, which the caller makes before it
// unlocks. A Map is a monitor: each method one synchronization access.
func (m *Map) recLock(t *record.Thread) *mapState {
	s, l, r := recSync(&m.st, t)
	s.mu.Lock()
	r.Sync(t, l, sched.ReadWrite, 0)
	return s
}

// Load returns the value stored in the map for a key, or nil if no value is
// present. The ok result indicates whether value was found in the map.
func (m *Map) Load(key any) (value any, ok bool) {
	g, t := who()
	if g != nil {
		return m.state(g, opMapLoad).load(key)
	}
	if t != nil {
		s := m.recLock(t)
		defer s.mu.Unlock()
		return s.load(key)
	}
	if gls.Active() {
		outside(&m.st, opMapLoad, m)
	}
	return m.m.Load(key)
}

// Store sets the value for a key.
func (m *Map) Store(key, value any) {
	g, t := who()
	if g != nil {
		m.state(g, opMapStore).store(key, value)
		return
	}
	if t != nil {
		s := m.recLock(t)
		defer s.mu.Unlock()
		s.store(key, value)
		return
	}
	if gls.Active() {
		outside(&m.st, opMapStore, m)
	}
	m.m.Store(key, value)
}

// LoadOrStore returns the existing value for the key if present. Otherwise,
// it stores and returns the given value. The loaded result is true if the
// value was loaded, false if stored.
func (m *Map) LoadOrStore(key, value any) (actual any, loaded bool) {
	g, t := who()
	if g != nil {
		return m.state(g, opMapLoadOrStore).loadOrStore(key, value)
	}
	if t != nil {
		s := m.recLock(t)
		defer s.mu.Unlock()
		return s.loadOrStore(key, value)
	}
	if gls.Active() {
		outside(&m.st, opMapLoadOrStore, m)
	}
	return m.m.LoadOrStore(key, value)
}

// LoadAndDelete deletes the value for a key, returning the previous value if
// any. The loaded result reports whether the key was present.
func (m *Map) LoadAndDelete(key any) (value any, loaded bool) {
	g, t := who()
	if g != nil {
		return m.state(g, opMapLoadAndDelete).loadAndDelete(key)
	}
	if t != nil {
		s := m.recLock(t)
		defer s.mu.Unlock()
		return s.loadAndDelete(key)
	}
	if gls.Active() {
		outside(&m.st, opMapLoadAndDelete, m)
	}
	return m.m.LoadAndDelete(key)
}

// Delete deletes the value for a key. If the key is not in the map, Delete
// does nothing.
func (m *Map) Delete(key any) {
	g, t := who()
	if g != nil {
		m.state(g, opMapDelete).loadAndDelete(key)
		return
	}
	if t != nil {
		s := m.recLock(t)
		defer s.mu.Unlock()
		s.loadAndDelete(key)
		return
	}
	if gls.Active() {
		outside(&m.st, opMapDelete, m)
	}
	m.m.Delete(key)
}

// Swap swaps the value for a key and returns the previous value if any. The
// loaded result reports whether the key was present.
func (m *Map) Swap(key, value any) (previous any, loaded bool) {
	g, t := who()
	if g != nil {
		return m.state(g, opMapSwap).swap(key, value)
	}
	if t != nil {
		s := m.recLock(t)
		defer s.mu.Unlock()
		return s.swap(key, value)
	}
	if gls.Active() {
		outside(&m.st, opMapSwap, m)
	}
	return m.m.Swap(key, value)
}

// CompareAndSwap swaps the old and new values for key if the value stored in
// the map is equal to old. The old value must be of a comparable type.
func (m *Map) CompareAndSwap(key, old, new any) (swapped bool) {
	g, t := who()
	if g != nil {
		return m.state(g, opMapCAS).compareAndSwap(key, old, new)
	}
	if t != nil {
		s := m.recLock(t)
		defer s.mu.Unlock()
		return s.compareAndSwap(key, old, new)
	}
	if gls.Active() {
		outside(&m.st, opMapCAS, m)
	}
	return m.m.CompareAndSwap(key, old, new)
}

// CompareAndDelete deletes the entry for key if its value is equal to old.
// The old value must be of a comparable type.
//
// If there is no current value for key in the map, CompareAndDelete returns
// false (even if the old value is the nil interface value).
func (m *Map) CompareAndDelete(key, old any) (deleted bool) {
	g, t := who()
	if g != nil {
		return m.state(g, opMapCAD).compareAndDelete(key, old)
	}
	if t != nil {
		s := m.recLock(t)
		defer s.mu.Unlock()
		return s.compareAndDelete(key, old)
	}
	if gls.Active() {
		outside(&m.st, opMapCAD, m)
	}
	return m.m.CompareAndDelete(key, old)
}

// Range calls f sequentially for each key and value present in the map. If f
// returns false, range stops the iteration.
//
// In plain mode Range is sync.Map's, and need not correspond to any
// consistent snapshot of the Map's contents. Under control (and recording)
// Range is one event, which takes a snapshot of the entries: f is then
// called on the snapshot, in insertion order, and what f does to the map
// (its own events) does not change which entries it visits nor their
// values, as sync.Map allows. Range does not block other methods on the
// receiver; even f itself may call any method on m.
func (m *Map) Range(f func(key, value any) bool) {
	var snap []mapEntry
	g, t := who()
	if g != nil {
		snap = m.state(g, opMapRange).snapshot()
	} else if t != nil {
		s := m.recLock(t)
		snap = s.snapshot()
		s.mu.Unlock()
	} else {
		if gls.Active() {
			outside(&m.st, opMapRange, m)
		}
		m.m.Range(f)
		return
	}
	for _, e := range snap {
		if !f(e.key, e.value) {
			return
		}
	}
}

// Clear deletes all the entries, resulting in an empty Map.
func (m *Map) Clear() {
	g, t := who()
	if g != nil {
		m.state(g, opMapClear).clear()
		return
	}
	if t != nil {
		s := m.recLock(t)
		defer s.mu.Unlock()
		s.clear()
		return
	}
	if gls.Active() {
		outside(&m.st, opMapClear, m)
	}
	m.m.Clear()
}

// The operations, with the reads and writes of keys sync.Map's
// documentation lists.

//go:norace
func (s *mapState) load(key any) (any, bool) {
	k := s.keys.lookup(key)
	k.read()
	if k != nil && k.entry != nil {
		return k.entry.value, true
	}
	return nil, false
}

//go:norace
func (s *mapState) loadOrStore(key, value any) (any, bool) {
	k := s.keys.lookup(key)
	k.read()
	if k != nil && k.entry != nil {
		return k.entry.value, true
	}
	s.store(key, value)
	return value, false
}

//go:norace
func (s *mapState) loadAndDelete(key any) (any, bool) {
	k := s.keys.lookup(key)
	if k == nil {
		return nil, false
	}
	k.read()
	k.write()
	if e := k.entry; e != nil {
		s.delete(k)
		return e.value, true
	}
	return nil, false
}

//go:norace
func (s *mapState) swap(key, value any) (previous any, loaded bool) {
	k := s.keys.lookup(key)
	k.read()
	if k != nil && k.entry != nil {
		k.write()
		previous, k.entry.value = k.entry.value, value
		return previous, true
	}
	s.store(key, value)
	return nil, false
}

//go:norace
func (s *mapState) compareAndSwap(key, old, new any) bool {
	k := s.keys.lookup(key)
	k.read()
	if k != nil && k.entry != nil && k.entry.value == old {
		k.write()
		k.entry.value = new
		return true
	}
	return false
}

//go:norace
func (s *mapState) compareAndDelete(key, old any) bool {
	k := s.keys.lookup(key)
	k.read()
	if k != nil && k.entry != nil && k.entry.value == old {
		k.write()
		s.delete(k)
		return true
	}
	return false
}

// snapshot returns the live entries, in insertion order: Range reads
// every key it visits.
//
//go:norace
func (s *mapState) snapshot() []mapEntry {
	snap := make([]mapEntry, 0, s.live)
	for _, e := range s.order {
		if !e.deleted {
			s.keys.lookup(e.key).read()
			snap = append(snap, mapEntry{key: e.key, value: e.value})
		}
	}
	return snap
}

// clear deletes every entry: a write of each key.
//
//go:norace
func (s *mapState) clear() {
	for _, e := range s.order {
		if !e.deleted {
			k := s.keys.lookup(e.key)
			k.write()
			k.entry = nil
		}
	}
	s.order, s.live, s.dead = nil, 0, 0
}

// nonEmpty is a map that is never empty and never written: a lookup in it
// hashes the key, and panics on an unhashable one with the runtime error
// sync.Map panics with (a lookup in an empty map panics with another).
var nonEmpty = map[any]struct{}{nil: {}}

// store adds or updates key's entry, a write of key; a new entry goes last
// in the order.
//
//go:norace
func (s *mapState) store(key, value any) {
	k := s.keys.lookup(key)
	if k == nil {
		k = s.keys.insert(key)
	}
	k.write()
	if k.entry != nil {
		k.entry.value = value
		return
	}
	k.entry = &mapEntry{key: key, value: value}
	s.order = append(s.order, k.entry)
	s.live++
}

// delete removes k's entry, and compacts the order once deleted entries are
// most of it.
//
//go:norace
func (s *mapState) delete(k *mapKey) {
	k.entry.deleted = true
	k.entry = nil
	s.live--
	s.dead++
	if s.dead > 16 && s.dead > len(s.order)/2 {
		live := s.order[:0]
		for _, e := range s.order {
			if !e.deleted {
				live = append(live, e)
			}
		}
		for i := len(live); i < len(s.order); i++ {
			s.order[i] = nil
		}
		s.order, s.dead = live, 0
	}
}
