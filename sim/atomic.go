package sim

import (
	"sync/atomic"

	"github.com/weftdev/weft/internal/gls"
)

// The atomic types mirror sync/atomic's. Under control each operation is
// one event; recording, each is reported to the recorder with its
// brackets (a load, a store, a read-modify-write); in every mode the value
// is a sync/atomic value, safe from any goroutine. Zero values are ready to
// use. The slow paths are methods of their own, so that the plain path of
// each operation stays small: Load's is inlined into its caller (Store,
// Swap, CompareAndSwap and Add are a few units over the compiler's budget).
//
// The types that differ only in their value type (Int32, Int64, Uint32,
// Uint64, Uintptr, Bool, Pointer) are generated from one template into
// atomic_gen.go: generic types would call sync/atomic through a dictionary
// and lose the inlined plain path. Value stays written by hand: its Swap
// and CompareAndSwap keep the slow path inline and their doc comments
// follow atomic.Value's.

//go:generate go run ./internal/atomicgen -o atomic_gen.go

// A Value holds a value of one concrete type, loaded and stored atomically,
// like atomic.Value: the same panics on nil and on inconsistent types.
type Value struct {
	v  atomic.Value
	st *varState
}

// Load returns the value set by the most recent Store, or nil.
func (x *Value) Load() any {
	if gls.Active() {
		return x.loadSlow()
	}
	return x.v.Load()
}

//go:noinline
func (x *Value) loadSlow() any { return atomicLoad(&x.st, x.v.Load) }

// Store sets the value to v.
func (x *Value) Store(v any) {
	if gls.Active() {
		x.storeSlow(v)
		return
	}
	x.v.Store(v)
}

//go:noinline
func (x *Value) storeSlow(v any) { atomicStore(&x.st, v, x.v.Store) }

// Swap stores new and returns the previous value, or nil.
func (x *Value) Swap(new any) any {
	if gls.Active() {
		return atomicRMW(&x.st, opAtomicSwap, func() (any, uint64, uint64) {
			old := x.v.Swap(new)
			return old, d64(old), d64(new)
		})
	}
	return x.v.Swap(new)
}

// CompareAndSwap executes the compare-and-swap operation for x.
func (x *Value) CompareAndSwap(old, new any) bool {
	if gls.Active() {
		return atomicRMW(&x.st, opAtomicCAS, func() (bool, uint64, uint64) {
			if x.v.CompareAndSwap(old, new) {
				return true, d64(old), d64(new)
			}
			cur := x.v.Load()
			return false, d64(cur), d64(cur)
		})
	}
	return x.v.CompareAndSwap(old, new)
}
