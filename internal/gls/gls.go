// Package gls gives a goroutine a slot that its own code can read back
// cheaply: the profiler label set the runtime keeps on every goroutine.
//
// Go has no goroutine-local storage, but every goroutine carries a pointer
// to its pprof label set, readable in a couple of nanoseconds and copied to
// the goroutines it starts. Bind gives the calling goroutine a label set of
// its own, allocated by gls with the value's slot right after it (an entry),
// and points the goroutine at it; Get reads the pointer back from any later
// point of the same goroutine, checks that it points at an entry, and
// returns the entry's value: no table, no hash, whatever the number of
// bound goroutines. A goroutine that serves many purposes in turn (a worker
// that runs one controlled goroutine after another) keeps its binding and
// changes the value (Binding.Set): labelling a goroutine allocates, setting
// its value does not.
//
// A goroutine started with a plain go statement inherits its parent's label
// set, so Get on it returns the parent's value: callers must check that the
// value they get is the one they expect to be running (the controller does,
// by comparing with the goroutine it scheduled, and by a mark that its
// workers carry and the goroutines they start do not: see sched.G.Claim),
// and such a goroutine can leave its parent's binding (Leave). The labels
// themselves are real pprof labels, so CPU and goroutine profiles of a weft
// test show which goroutine of which execution ran.
package gls

import (
	"context"
	"runtime/pprof"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/weftdev/weft/internal/race"
)

// getProfLabel returns the calling goroutine's label set pointer, and
// setProfLabel sets it. The runtime keeps these symbols available to
// packages outside the standard library (go.dev/issue/67401).
//
//go:linkname getProfLabel runtime/pprof.runtime_getProfLabel
func getProfLabel() unsafe.Pointer

//go:linkname setProfLabel runtime/pprof.runtime_setProfLabel
func setProfLabel(labels unsafe.Pointer)

// label and labelSet are the layout of the runtime's label set
// (internal/runtime/pprof/label.Set, which pprof.LabelSet duplicates): what
// a goroutine's label pointer points to, read by profiles and tracebacks.
// native tells whether this Go's label sets have this layout (checked once,
// see checkLayout); if not, Bind labels the goroutine with pprof's own label
// set and finds its entry in a map (the fallback).
type (
	label    struct{ key, value string }
	labelSet struct{ list []label }
)

// An entry is a binding. Its label set comes first, so that the
// goroutine's label pointer is the entry's address; its own labels follow
// the value, at a fixed offset: the label set's list pointing there, and
// its first label's key being gls's own bytes (magic), tell an entry from
// any other label set.
type entry struct {
	set    labelSet
	value  atomic.Pointer[any] // nil: no value (Get returns nil)
	labels [maxLabels]label
	// The fallback's: the label set pprof made and its context, which
	// keeps it alive while bound.
	key unsafe.Pointer
	ctx context.Context
}

// maxLabels is the number of labels an entry holds: gls's own and the
// caller's.
const maxLabels = 8

// labelsOffset is where an entry's labels are, from its start.
const labelsOffset = unsafe.Offsetof(entry{}.labels)

var (
	// bound counts live bindings, so that Get costs one atomic load when no
	// goroutine in the process is bound: the plain-mode fast path.
	// (An int64 read with atomic.LoadInt64, not an atomic.Int64: one call
	// fewer to inline keeps Active's callers within the inliner's budget.)
	bound int64
	// magic holds the key of an entry's first label. Its address is gls's
	// alone: no other label set's key can point there.
	magic  = [...]byte{'w', 'e', 'f', 't', '.', 'g', 'l', 's'}
	native = checkLayout()
	slots  sync.Map // the fallback's: label set pointer → *entry
)

// checkLayout reports whether the runtime's label sets are laid out as
// labelSet, by labelling the calling goroutine and reading its labels back.
// Its previous labels are restored.
func checkLayout() bool {
	old := getProfLabel()
	defer setProfLabel(old)
	pprof.SetGoroutineLabels(pprof.WithLabels(context.Background(), pprof.Labels("weft.gls.check", "layout")))
	s := (*labelSet)(getProfLabel())
	return s != nil && len(s.list) == 1 && s.list[0] == label{"weft.gls.check", "layout"}
}

// own returns the entry p is, or nil if p (a goroutine's label pointer) is
// not one: nil, or a label set pprof made. Only the label set's own memory
// is read before p is known to be an entry.
func own(p unsafe.Pointer) *entry {
	if p == nil || uintptr(unsafe.Pointer(unsafe.SliceData((*labelSet)(p).list))) != uintptr(p)+labelsOffset {
		return nil
	}
	if e := (*entry)(p); unsafe.StringData(e.labels[0].key) == &magic[0] {
		return e
	}
	return nil
}

// A Binding is the calling goroutine's slot, returned by Bind.
type Binding struct {
	e *entry
}

// The slots are weft's machinery, shared by every goroutine: under the race
// detector their synchronization (the atomics, the fallback's sync.Map) is
// hidden from it, lest two goroutines that look their slots up be ordered,
// and their memory accesses are not instrumented (//go:norace).

// Bind labels the calling goroutine with labels (key, value pairs, as for
// pprof.Labels; at most 7 pairs) and makes Get return v on it (nil:
// nothing) until Release or Set. The labels replace the goroutine's
// previous ones.
//
//go:norace
func Bind(v any, labels ...string) Binding {
	if len(labels)%2 != 0 || len(labels)/2 >= maxLabels {
		panic("gls: Bind takes at most 7 key, value pairs")
	}
	e := &entry{}
	if native {
		e.labels[0] = label{unsafe.String(&magic[0], len(magic)), "bound"}
		n := 1
		for i := 0; i < len(labels); i += 2 {
			e.labels[n] = label{labels[i], labels[i+1]}
			n++
		}
		e.set.list = e.labels[:n:n]
		// Seen by the race detector: the runtime orders setting labels
		// before reading them in a profile.
		setProfLabel(unsafe.Pointer(e))
	} else {
		e.ctx = pprof.WithLabels(context.Background(), pprof.Labels(labels...))
		pprof.SetGoroutineLabels(e.ctx)
		e.key = getProfLabel()
		race.Disable()
		slots.Store(e.key, e)
		race.Enable()
	}
	b := Binding{e: e}
	if v != nil {
		b.Set(&v)
	}
	return b
}

// Set makes Get return *v on the bound goroutine (nil: nothing), without
// labelling it again: it does not allocate. Another goroutine may call it,
// while the bound one is parked.
//
//go:norace
func (b Binding) Set(v *any) {
	if b.e == nil {
		return
	}
	race.Disable()
	defer race.Enable()
	switch old := b.e.value.Swap(v); {
	case old == nil && v != nil:
		atomic.AddInt64(&bound, 1)
	case old != nil && v == nil:
		atomic.AddInt64(&bound, -1)
	}
}

// Held reports whether the calling goroutine still carries b's label set:
// code it ran may have replaced it (pprof.SetGoroutineLabels).
//
//go:norace
func (b Binding) Held() bool {
	return b.e != nil && getProfLabel() == b.e.labelPointer()
}

// labelPointer returns the label set pointer a goroutine bound to e
// carries.
func (e *entry) labelPointer() unsafe.Pointer {
	if native {
		return unsafe.Pointer(e)
	}
	return e.key
}

// Release forgets the binding and clears the calling goroutine's labels. It
// must be called on the goroutine that called Bind.
//
//go:norace
func (b Binding) Release() {
	if b.e == nil {
		return
	}
	b.Set(nil)
	if !native {
		race.Disable()
		slots.Delete(b.e.key)
		race.Enable()
	}
	pprof.SetGoroutineLabels(context.Background())
}

// Leave clears the calling goroutine's labels, which it inherited from the
// goroutine that started it (a go statement copies them): Get returns nil
// on it from now on, and on the goroutines it starts. Its starter's
// binding is left as it is.
func Leave() {
	pprof.SetGoroutineLabels(context.Background())
}

// Get returns the value bound to the calling goroutine's label set, or nil.
//
//go:norace
func Get() any {
	if atomic.LoadInt64(&bound) == 0 {
		return nil
	}
	if race.Enabled {
		race.Disable()
		defer race.Enable()
	}
	p := getProfLabel()
	e := own(p)
	if e == nil {
		if native {
			return nil
		}
		if e = fallback(p); e == nil {
			return nil
		}
	}
	if v := e.value.Load(); v != nil {
		return *v
	}
	return nil
}

// fallback returns the entry bound to the label set p, when the runtime's
// label sets are not laid out as gls knows (see native).
//
//go:norace
func fallback(p unsafe.Pointer) *entry {
	if v, ok := slots.Load(p); ok {
		return v.(*entry)
	}
	return nil
}

// Go starts f on a new goroutine that carries none of the calling
// goroutine's labels, if the caller is bound: a goroutine started with a go
// statement inherits its starter's label set, and with it the starter's
// value (see Get).
//
//go:norace
func Go(f func()) {
	p := getProfLabel()
	if own(p) == nil && (native || fallback(p) == nil) {
		go f()
		return
	}
	setProfLabel(nil)
	go f()
	setProfLabel(p)
}

// Active reports whether any goroutine in the process is bound.
func Active() bool { return atomic.LoadInt64(&bound) != 0 }

// A Key is a goroutine's label set pointer: Self returns the calling
// goroutine's, and Key.Value the value bound to it. The two are Get, split
// so that each is inlined into the callers on the hottest paths (a recorded
// memory access), with one call, into the runtime.
type Key struct{ p unsafe.Pointer }

// Self returns the calling goroutine's key.
func Self() Key { return Key{getProfLabel()} }

// Value returns the value bound to the goroutine whose key is k (nil:
// none), as Get; ok is false when Value cannot tell (the fallback, see
// native), and the caller must call Get.
func (k Key) Value() (v any, ok bool) {
	if race.Enabled {
		return nil, false // Get hides the lookup from the race detector
	}
	e := own(k.p)
	if e == nil {
		return nil, native
	}
	if p := e.value.Load(); p != nil {
		return *p, true
	}
	return nil, true
}

// Slot returns the slot of the value bound to the goroutine whose key is
// k, or nil when k is not a binding's or Slot cannot tell (the fallback,
// see native, and the race detector's builds): then Value tells. The slot
// holds nil if the binding has no value. Slot is Value cut down for the
// hottest path (a recorded memory access): its checks only leave the path
// on which k is a binding's, where Value's merge their results.
func (k Key) Slot() *any {
	if race.Enabled {
		return nil
	}
	// own's checks, in one condition: the path on which k is a binding's
	// falls through them, with no jump (own's two returns of nil, merged,
	// cost the callers two).
	p := k.p
	if p == nil || uintptr(unsafe.Pointer(unsafe.SliceData((*labelSet)(p).list))) != uintptr(p)+labelsOffset ||
		unsafe.StringData((*entry)(p).labels[0].key) != &magic[0] {
		return nil
	}
	return (*any)(atomic.LoadPointer((*unsafe.Pointer)(unsafe.Pointer(&(*entry)(p).value))))
}
