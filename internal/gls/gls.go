// Package gls gives a goroutine a slot that its own code can read back
// cheaply: the profiler label set the runtime keeps on every goroutine.
//
// Go has no goroutine-local storage, but every goroutine carries a pointer
// to its pprof label set, readable in a couple of nanoseconds and copied to
// the goroutines it starts. Bind gives the calling goroutine a fresh label
// set of its own and records a value under that set's address; Get reads the
// value back from any later point of the same goroutine. A goroutine that
// serves many purposes in turn (a worker that runs one controlled goroutine
// after another) keeps its binding and changes the value (Binding.Set):
// labelling a goroutine allocates, setting its value does not.
//
// A goroutine started with a plain go statement inherits its parent's label
// set, so Get on it returns the parent's value: callers must check that the
// value they get is the one they expect to be running (the controller does,
// by comparing with the goroutine it scheduled). The labels themselves are
// real pprof labels, so CPU and goroutine profiles of a weft test show which
// goroutine of which execution ran.
package gls

import (
	"context"
	"runtime/pprof"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/weftdev/weft/internal/race"
)

// getProfLabel returns the calling goroutine's label set pointer. The runtime
// keeps this symbol available to packages outside the standard library
// (go.dev/issue/67401).
//
//go:linkname getProfLabel runtime/pprof.runtime_getProfLabel
func getProfLabel() unsafe.Pointer

var (
	// bound counts live bindings, so that Get costs one atomic load when no
	// goroutine in the process is bound: the plain-mode fast path.
	bound atomic.Int64
	slots sync.Map // unsafe.Pointer (label set) → *entry
	// cache is a direct-mapped cache in front of slots: a hit costs two
	// loads and a compare instead of a map lookup. It has room for the
	// label sets of thousands of goroutines (weft's workers) bound at once:
	// its 128 KB are touched only as they are used.
	cache [cacheSize]atomic.Pointer[entry]
)

const cacheSize = 1 << 14

type entry struct {
	key   unsafe.Pointer
	value atomic.Pointer[any] // nil: no value (Get returns nil)
	ctx   context.Context     // keeps the label set alive while bound
}

func slot(key unsafe.Pointer) *atomic.Pointer[entry] {
	h := uintptr(key) >> 4
	return &cache[(h^h>>14)&(cacheSize-1)]
}

// A Binding is the calling goroutine's slot, returned by Bind.
type Binding struct {
	e *entry
}

// The slots are weft's machinery, shared by every goroutine: under the race
// detector their synchronization (the atomics, the sync.Map) is hidden from
// it, lest two goroutines that look their slots up be ordered, and their
// memory accesses are not instrumented (//go:norace).

// Bind labels the calling goroutine with labels (key, value pairs, as for
// pprof.Labels) and makes Get return v on it (nil: nothing) until Release
// or Set. The labels replace the goroutine's previous ones.
//
//go:norace
func Bind(v any, labels ...string) Binding {
	ctx := pprof.WithLabels(context.Background(), pprof.Labels(labels...))
	// Seen by the race detector: the runtime orders setting labels before
	// reading them in a profile.
	pprof.SetGoroutineLabels(ctx)
	race.Disable()
	defer race.Enable()
	key := getProfLabel()
	e := &entry{key: key, ctx: ctx}
	slots.Store(key, e)
	slot(key).Store(e)
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
		bound.Add(1)
	case old != nil && v == nil:
		bound.Add(-1)
	}
}

// Held reports whether the calling goroutine still carries b's label set:
// code it ran may have replaced it (pprof.SetGoroutineLabels).
//
//go:norace
func (b Binding) Held() bool {
	return b.e != nil && getProfLabel() == b.e.key
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
	race.Disable()
	defer race.Enable()
	if _, ok := slots.LoadAndDelete(b.e.key); ok {
		slot(b.e.key).CompareAndSwap(b.e, nil)
	}
	pprof.SetGoroutineLabels(context.Background())
}

// Get returns the value bound to the calling goroutine's label set, or nil.
//
//go:norace
func Get() any {
	if bound.Load() == 0 {
		return nil
	}
	if race.Enabled {
		race.Disable()
		defer race.Enable()
	}
	key := getProfLabel()
	if key == nil {
		return nil
	}
	e := slot(key).Load()
	if e == nil || e.key != key {
		v, ok := slots.Load(key)
		if !ok {
			return nil
		}
		e = v.(*entry)
		slot(key).Store(e)
	}
	if p := e.value.Load(); p != nil {
		return *p
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
	var e *entry
	if key := getProfLabel(); key != nil {
		if v, ok := slots.Load(key); ok {
			e = v.(*entry)
		}
	}
	if e == nil {
		go f()
		return
	}
	pprof.SetGoroutineLabels(context.Background())
	go f()
	pprof.SetGoroutineLabels(e.ctx)
}

// Active reports whether any goroutine in the process is bound.
func Active() bool { return bound.Load() != 0 }
