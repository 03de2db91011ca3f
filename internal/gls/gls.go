// Package gls gives a goroutine a slot that its own code can read back
// cheaply: the profiler label set the runtime keeps on every goroutine.
//
// Go has no goroutine-local storage, but every goroutine carries a pointer
// to its pprof label set, readable in a couple of nanoseconds and copied to
// the goroutines it starts. Bind gives the calling goroutine a fresh label
// set of its own and records a value under that set's address; Get reads the
// value back from any later point of the same goroutine.
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
	// loads and a compare instead of a map lookup.
	cache [256]atomic.Pointer[entry]
)

type entry struct {
	key   unsafe.Pointer
	value any
	ctx   context.Context // keeps the label set alive while bound
}

func slot(key unsafe.Pointer) *atomic.Pointer[entry] {
	h := uintptr(key) >> 4
	return &cache[(h^h>>8)&255]
}

// A Binding is the calling goroutine's slot, returned by Bind.
type Binding struct {
	key unsafe.Pointer
}

// The slots are weft's machinery, shared by every goroutine: under the race
// detector their synchronization (the atomics, the sync.Map) is hidden from
// it, lest two goroutines that look their slots up be ordered, and their
// memory accesses are not instrumented (//go:norace).

// Bind labels the calling goroutine with labels (key, value pairs, as for
// pprof.Labels) and makes Get return v on it until Release. The labels
// replace the goroutine's previous ones.
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
	e := &entry{key: key, value: v, ctx: ctx}
	slots.Store(key, e)
	slot(key).Store(e)
	bound.Add(1)
	return Binding{key: key}
}

// Release forgets the binding and clears the calling goroutine's labels. It
// must be called on the goroutine that called Bind.
//
//go:norace
func (b Binding) Release() {
	if b.key == nil {
		return
	}
	race.Disable()
	defer race.Enable()
	if e, ok := slots.LoadAndDelete(b.key); ok {
		slot(b.key).CompareAndSwap(e.(*entry), nil)
	}
	bound.Add(-1)
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
	if e := slot(key).Load(); e != nil && e.key == key {
		return e.value
	}
	e, ok := slots.Load(key)
	if !ok {
		return nil
	}
	slot(key).Store(e.(*entry))
	return e.(*entry).value
}

// Active reports whether any goroutine in the process is bound.
func Active() bool { return bound.Load() != 0 }
