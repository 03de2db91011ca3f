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
// each operation is inlined.

// An Int32 is an atomic int32.
type Int32 struct {
	v  atomic.Int32
	st *varState
}

// Load atomically loads and returns the value.
func (x *Int32) Load() int32 {
	if gls.Active() {
		return x.loadSlow()
	}
	return x.v.Load()
}

//go:noinline
func (x *Int32) loadSlow() int32 { return atomicLoad(&x.st, x.v.Load) }

// Store atomically stores v.
func (x *Int32) Store(v int32) {
	if gls.Active() {
		x.storeSlow(v)
		return
	}
	x.v.Store(v)
}

//go:noinline
func (x *Int32) storeSlow(v int32) { atomicStore(&x.st, v, x.v.Store) }

// Swap atomically stores new and returns the previous value.
func (x *Int32) Swap(new int32) int32 {
	if gls.Active() {
		return x.swapSlow(new)
	}
	return x.v.Swap(new)
}

//go:noinline
func (x *Int32) swapSlow(new int32) int32 {
	return atomicRMW(&x.st, opAtomicSwap, func() (int32, uint64, uint64) {
		old := x.v.Swap(new)
		return old, d64(old), d64(new)
	})
}

// CompareAndSwap executes the compare-and-swap operation for x.
func (x *Int32) CompareAndSwap(old, new int32) bool {
	if gls.Active() {
		return x.casSlow(old, new)
	}
	return x.v.CompareAndSwap(old, new)
}

//go:noinline
func (x *Int32) casSlow(old, new int32) bool {
	return atomicRMW(&x.st, opAtomicCAS, func() (bool, uint64, uint64) {
		if x.v.CompareAndSwap(old, new) {
			return true, d64(old), d64(new)
		}
		cur := x.v.Load()
		return false, d64(cur), d64(cur)
	})
}

// Add atomically adds delta and returns the new value.
func (x *Int32) Add(delta int32) int32 {
	if gls.Active() {
		return x.addSlow(delta)
	}
	return x.v.Add(delta)
}

//go:noinline
func (x *Int32) addSlow(delta int32) int32 {
	return atomicRMW(&x.st, opAtomicAdd, func() (int32, uint64, uint64) {
		n := x.v.Add(delta)
		return n, d64(n - delta), d64(n)
	})
}

// An Int64 is an atomic int64.
type Int64 struct {
	v  atomic.Int64
	st *varState
}

// Load atomically loads and returns the value.
func (x *Int64) Load() int64 {
	if gls.Active() {
		return x.loadSlow()
	}
	return x.v.Load()
}

//go:noinline
func (x *Int64) loadSlow() int64 { return atomicLoad(&x.st, x.v.Load) }

// Store atomically stores v.
func (x *Int64) Store(v int64) {
	if gls.Active() {
		x.storeSlow(v)
		return
	}
	x.v.Store(v)
}

//go:noinline
func (x *Int64) storeSlow(v int64) { atomicStore(&x.st, v, x.v.Store) }

// Swap atomically stores new and returns the previous value.
func (x *Int64) Swap(new int64) int64 {
	if gls.Active() {
		return x.swapSlow(new)
	}
	return x.v.Swap(new)
}

//go:noinline
func (x *Int64) swapSlow(new int64) int64 {
	return atomicRMW(&x.st, opAtomicSwap, func() (int64, uint64, uint64) {
		old := x.v.Swap(new)
		return old, d64(old), d64(new)
	})
}

// CompareAndSwap executes the compare-and-swap operation for x.
func (x *Int64) CompareAndSwap(old, new int64) bool {
	if gls.Active() {
		return x.casSlow(old, new)
	}
	return x.v.CompareAndSwap(old, new)
}

//go:noinline
func (x *Int64) casSlow(old, new int64) bool {
	return atomicRMW(&x.st, opAtomicCAS, func() (bool, uint64, uint64) {
		if x.v.CompareAndSwap(old, new) {
			return true, d64(old), d64(new)
		}
		cur := x.v.Load()
		return false, d64(cur), d64(cur)
	})
}

// Add atomically adds delta and returns the new value.
func (x *Int64) Add(delta int64) int64 {
	if gls.Active() {
		return x.addSlow(delta)
	}
	return x.v.Add(delta)
}

//go:noinline
func (x *Int64) addSlow(delta int64) int64 {
	return atomicRMW(&x.st, opAtomicAdd, func() (int64, uint64, uint64) {
		n := x.v.Add(delta)
		return n, d64(n - delta), d64(n)
	})
}

// A Uint64 is an atomic uint64.
type Uint64 struct {
	v  atomic.Uint64
	st *varState
}

// Load atomically loads and returns the value.
func (x *Uint64) Load() uint64 {
	if gls.Active() {
		return x.loadSlow()
	}
	return x.v.Load()
}

//go:noinline
func (x *Uint64) loadSlow() uint64 { return atomicLoad(&x.st, x.v.Load) }

// Store atomically stores v.
func (x *Uint64) Store(v uint64) {
	if gls.Active() {
		x.storeSlow(v)
		return
	}
	x.v.Store(v)
}

//go:noinline
func (x *Uint64) storeSlow(v uint64) { atomicStore(&x.st, v, x.v.Store) }

// Swap atomically stores new and returns the previous value.
func (x *Uint64) Swap(new uint64) uint64 {
	if gls.Active() {
		return x.swapSlow(new)
	}
	return x.v.Swap(new)
}

//go:noinline
func (x *Uint64) swapSlow(new uint64) uint64 {
	return atomicRMW(&x.st, opAtomicSwap, func() (uint64, uint64, uint64) {
		old := x.v.Swap(new)
		return old, d64(old), d64(new)
	})
}

// CompareAndSwap executes the compare-and-swap operation for x.
func (x *Uint64) CompareAndSwap(old, new uint64) bool {
	if gls.Active() {
		return x.casSlow(old, new)
	}
	return x.v.CompareAndSwap(old, new)
}

//go:noinline
func (x *Uint64) casSlow(old, new uint64) bool {
	return atomicRMW(&x.st, opAtomicCAS, func() (bool, uint64, uint64) {
		if x.v.CompareAndSwap(old, new) {
			return true, d64(old), d64(new)
		}
		cur := x.v.Load()
		return false, d64(cur), d64(cur)
	})
}

// Add atomically adds delta and returns the new value.
func (x *Uint64) Add(delta uint64) uint64 {
	if gls.Active() {
		return x.addSlow(delta)
	}
	return x.v.Add(delta)
}

//go:noinline
func (x *Uint64) addSlow(delta uint64) uint64 {
	return atomicRMW(&x.st, opAtomicAdd, func() (uint64, uint64, uint64) {
		n := x.v.Add(delta)
		return n, d64(n - delta), d64(n)
	})
}

// A Bool is an atomic bool.
type Bool struct {
	v  atomic.Bool
	st *varState
}

// Load atomically loads and returns the value.
func (x *Bool) Load() bool {
	if gls.Active() {
		return x.loadSlow()
	}
	return x.v.Load()
}

//go:noinline
func (x *Bool) loadSlow() bool { return atomicLoad(&x.st, x.v.Load) }

// Store atomically stores v.
func (x *Bool) Store(v bool) {
	if gls.Active() {
		x.storeSlow(v)
		return
	}
	x.v.Store(v)
}

//go:noinline
func (x *Bool) storeSlow(v bool) { atomicStore(&x.st, v, x.v.Store) }

// Swap atomically stores new and returns the previous value.
func (x *Bool) Swap(new bool) bool {
	if gls.Active() {
		return x.swapSlow(new)
	}
	return x.v.Swap(new)
}

//go:noinline
func (x *Bool) swapSlow(new bool) bool {
	return atomicRMW(&x.st, opAtomicSwap, func() (bool, uint64, uint64) {
		old := x.v.Swap(new)
		return old, d64(old), d64(new)
	})
}

// CompareAndSwap executes the compare-and-swap operation for x.
func (x *Bool) CompareAndSwap(old, new bool) bool {
	if gls.Active() {
		return x.casSlow(old, new)
	}
	return x.v.CompareAndSwap(old, new)
}

//go:noinline
func (x *Bool) casSlow(old, new bool) bool {
	return atomicRMW(&x.st, opAtomicCAS, func() (bool, uint64, uint64) {
		if x.v.CompareAndSwap(old, new) {
			return true, d64(old), d64(new)
		}
		cur := x.v.Load()
		return false, d64(cur), d64(cur)
	})
}

// A Pointer is an atomic pointer of type *T.
type Pointer[T any] struct {
	v  atomic.Pointer[T]
	st *varState
}

// Load atomically loads and returns the value.
func (x *Pointer[T]) Load() *T {
	if gls.Active() {
		return x.loadSlow()
	}
	return x.v.Load()
}

//go:noinline
func (x *Pointer[T]) loadSlow() *T { return atomicLoad(&x.st, x.v.Load) }

// Store atomically stores v.
func (x *Pointer[T]) Store(v *T) {
	if gls.Active() {
		x.storeSlow(v)
		return
	}
	x.v.Store(v)
}

//go:noinline
func (x *Pointer[T]) storeSlow(v *T) { atomicStore(&x.st, v, x.v.Store) }

// Swap atomically stores new and returns the previous value.
func (x *Pointer[T]) Swap(new *T) *T {
	if gls.Active() {
		return x.swapSlow(new)
	}
	return x.v.Swap(new)
}

//go:noinline
func (x *Pointer[T]) swapSlow(new *T) *T {
	return atomicRMW(&x.st, opAtomicSwap, func() (*T, uint64, uint64) {
		old := x.v.Swap(new)
		return old, d64(old), d64(new)
	})
}

// CompareAndSwap executes the compare-and-swap operation for x.
func (x *Pointer[T]) CompareAndSwap(old, new *T) bool {
	if gls.Active() {
		return x.casSlow(old, new)
	}
	return x.v.CompareAndSwap(old, new)
}

//go:noinline
func (x *Pointer[T]) casSlow(old, new *T) bool {
	return atomicRMW(&x.st, opAtomicCAS, func() (bool, uint64, uint64) {
		if x.v.CompareAndSwap(old, new) {
			return true, d64(old), d64(new)
		}
		cur := x.v.Load()
		return false, d64(cur), d64(cur)
	})
}

// A Uint32 is an atomic uint32.
type Uint32 struct {
	v  atomic.Uint32
	st *varState
}

// Load atomically loads and returns the value.
func (x *Uint32) Load() uint32 {
	if gls.Active() {
		return x.loadSlow()
	}
	return x.v.Load()
}

//go:noinline
func (x *Uint32) loadSlow() uint32 { return atomicLoad(&x.st, x.v.Load) }

// Store atomically stores v.
func (x *Uint32) Store(v uint32) {
	if gls.Active() {
		x.storeSlow(v)
		return
	}
	x.v.Store(v)
}

//go:noinline
func (x *Uint32) storeSlow(v uint32) { atomicStore(&x.st, v, x.v.Store) }

// Swap atomically stores new and returns the previous value.
func (x *Uint32) Swap(new uint32) uint32 {
	if gls.Active() {
		return x.swapSlow(new)
	}
	return x.v.Swap(new)
}

//go:noinline
func (x *Uint32) swapSlow(new uint32) uint32 {
	return atomicRMW(&x.st, opAtomicSwap, func() (uint32, uint64, uint64) {
		old := x.v.Swap(new)
		return old, d64(old), d64(new)
	})
}

// CompareAndSwap executes the compare-and-swap operation for x.
func (x *Uint32) CompareAndSwap(old, new uint32) bool {
	if gls.Active() {
		return x.casSlow(old, new)
	}
	return x.v.CompareAndSwap(old, new)
}

//go:noinline
func (x *Uint32) casSlow(old, new uint32) bool {
	return atomicRMW(&x.st, opAtomicCAS, func() (bool, uint64, uint64) {
		if x.v.CompareAndSwap(old, new) {
			return true, d64(old), d64(new)
		}
		cur := x.v.Load()
		return false, d64(cur), d64(cur)
	})
}

// Add atomically adds delta and returns the new value.
func (x *Uint32) Add(delta uint32) uint32 {
	if gls.Active() {
		return x.addSlow(delta)
	}
	return x.v.Add(delta)
}

//go:noinline
func (x *Uint32) addSlow(delta uint32) uint32 {
	return atomicRMW(&x.st, opAtomicAdd, func() (uint32, uint64, uint64) {
		n := x.v.Add(delta)
		return n, d64(n - delta), d64(n)
	})
}

// A Uintptr is an atomic uintptr.
type Uintptr struct {
	v  atomic.Uintptr
	st *varState
}

// Load atomically loads and returns the value.
func (x *Uintptr) Load() uintptr {
	if gls.Active() {
		return x.loadSlow()
	}
	return x.v.Load()
}

//go:noinline
func (x *Uintptr) loadSlow() uintptr { return atomicLoad(&x.st, x.v.Load) }

// Store atomically stores v.
func (x *Uintptr) Store(v uintptr) {
	if gls.Active() {
		x.storeSlow(v)
		return
	}
	x.v.Store(v)
}

//go:noinline
func (x *Uintptr) storeSlow(v uintptr) { atomicStore(&x.st, v, x.v.Store) }

// Swap atomically stores new and returns the previous value.
func (x *Uintptr) Swap(new uintptr) uintptr {
	if gls.Active() {
		return x.swapSlow(new)
	}
	return x.v.Swap(new)
}

//go:noinline
func (x *Uintptr) swapSlow(new uintptr) uintptr {
	return atomicRMW(&x.st, opAtomicSwap, func() (uintptr, uint64, uint64) {
		old := x.v.Swap(new)
		return old, d64(old), d64(new)
	})
}

// CompareAndSwap executes the compare-and-swap operation for x.
func (x *Uintptr) CompareAndSwap(old, new uintptr) bool {
	if gls.Active() {
		return x.casSlow(old, new)
	}
	return x.v.CompareAndSwap(old, new)
}

//go:noinline
func (x *Uintptr) casSlow(old, new uintptr) bool {
	return atomicRMW(&x.st, opAtomicCAS, func() (bool, uint64, uint64) {
		if x.v.CompareAndSwap(old, new) {
			return true, d64(old), d64(new)
		}
		cur := x.v.Load()
		return false, d64(cur), d64(cur)
	})
}

// Add atomically adds delta and returns the new value.
func (x *Uintptr) Add(delta uintptr) uintptr {
	if gls.Active() {
		return x.addSlow(delta)
	}
	return x.v.Add(delta)
}

//go:noinline
func (x *Uintptr) addSlow(delta uintptr) uintptr {
	return atomicRMW(&x.st, opAtomicAdd, func() (uintptr, uint64, uint64) {
		n := x.v.Add(delta)
		return n, d64(n - delta), d64(n)
	})
}

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
