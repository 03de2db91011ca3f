package sim

import (
	"sync/atomic"
)

// The atomic types mirror sync/atomic's. Under control each operation is
// one event; in every mode the value is a sync/atomic value, safe from any
// goroutine. Zero values are ready to use.

// An Int32 is an atomic int32.
type Int32 struct {
	v  atomic.Int32
	st *varState
}

// Load atomically loads and returns the value.
func (x *Int32) Load() int32 { access(&x.st, opAtomicLoad); return x.v.Load() }

// Store atomically stores v.
func (x *Int32) Store(v int32) { access(&x.st, opAtomicStore); x.v.Store(v) }

// Swap atomically stores new and returns the previous value.
func (x *Int32) Swap(new int32) int32 { access(&x.st, opAtomicSwap); return x.v.Swap(new) }

// CompareAndSwap executes the compare-and-swap operation for x.
func (x *Int32) CompareAndSwap(old, new int32) bool {
	access(&x.st, opAtomicCAS)
	return x.v.CompareAndSwap(old, new)
}

// Add atomically adds delta and returns the new value.
func (x *Int32) Add(delta int32) int32 { access(&x.st, opAtomicAdd); return x.v.Add(delta) }

// An Int64 is an atomic int64.
type Int64 struct {
	v  atomic.Int64
	st *varState
}

// Load atomically loads and returns the value.
func (x *Int64) Load() int64 { access(&x.st, opAtomicLoad); return x.v.Load() }

// Store atomically stores v.
func (x *Int64) Store(v int64) { access(&x.st, opAtomicStore); x.v.Store(v) }

// Swap atomically stores new and returns the previous value.
func (x *Int64) Swap(new int64) int64 { access(&x.st, opAtomicSwap); return x.v.Swap(new) }

// CompareAndSwap executes the compare-and-swap operation for x.
func (x *Int64) CompareAndSwap(old, new int64) bool {
	access(&x.st, opAtomicCAS)
	return x.v.CompareAndSwap(old, new)
}

// Add atomically adds delta and returns the new value.
func (x *Int64) Add(delta int64) int64 { access(&x.st, opAtomicAdd); return x.v.Add(delta) }

// A Uint64 is an atomic uint64.
type Uint64 struct {
	v  atomic.Uint64
	st *varState
}

// Load atomically loads and returns the value.
func (x *Uint64) Load() uint64 { access(&x.st, opAtomicLoad); return x.v.Load() }

// Store atomically stores v.
func (x *Uint64) Store(v uint64) { access(&x.st, opAtomicStore); x.v.Store(v) }

// Swap atomically stores new and returns the previous value.
func (x *Uint64) Swap(new uint64) uint64 { access(&x.st, opAtomicSwap); return x.v.Swap(new) }

// CompareAndSwap executes the compare-and-swap operation for x.
func (x *Uint64) CompareAndSwap(old, new uint64) bool {
	access(&x.st, opAtomicCAS)
	return x.v.CompareAndSwap(old, new)
}

// Add atomically adds delta and returns the new value.
func (x *Uint64) Add(delta uint64) uint64 { access(&x.st, opAtomicAdd); return x.v.Add(delta) }

// A Bool is an atomic bool.
type Bool struct {
	v  atomic.Bool
	st *varState
}

// Load atomically loads and returns the value.
func (x *Bool) Load() bool { access(&x.st, opAtomicLoad); return x.v.Load() }

// Store atomically stores v.
func (x *Bool) Store(v bool) { access(&x.st, opAtomicStore); x.v.Store(v) }

// Swap atomically stores new and returns the previous value.
func (x *Bool) Swap(new bool) bool { access(&x.st, opAtomicSwap); return x.v.Swap(new) }

// CompareAndSwap executes the compare-and-swap operation for x.
func (x *Bool) CompareAndSwap(old, new bool) bool {
	access(&x.st, opAtomicCAS)
	return x.v.CompareAndSwap(old, new)
}

// A Pointer is an atomic pointer of type *T.
type Pointer[T any] struct {
	v  atomic.Pointer[T]
	st *varState
}

// Load atomically loads and returns the value.
func (x *Pointer[T]) Load() *T { access(&x.st, opAtomicLoad); return x.v.Load() }

// Store atomically stores v.
func (x *Pointer[T]) Store(v *T) { access(&x.st, opAtomicStore); x.v.Store(v) }

// Swap atomically stores new and returns the previous value.
func (x *Pointer[T]) Swap(new *T) *T { access(&x.st, opAtomicSwap); return x.v.Swap(new) }

// CompareAndSwap executes the compare-and-swap operation for x.
func (x *Pointer[T]) CompareAndSwap(old, new *T) bool {
	access(&x.st, opAtomicCAS)
	return x.v.CompareAndSwap(old, new)
}

// A Uint32 is an atomic uint32.
type Uint32 struct {
	v  atomic.Uint32
	st *varState
}

// Load atomically loads and returns the value.
func (x *Uint32) Load() uint32 { access(&x.st, opAtomicLoad); return x.v.Load() }

// Store atomically stores v.
func (x *Uint32) Store(v uint32) { access(&x.st, opAtomicStore); x.v.Store(v) }

// Swap atomically stores new and returns the previous value.
func (x *Uint32) Swap(new uint32) uint32 { access(&x.st, opAtomicSwap); return x.v.Swap(new) }

// CompareAndSwap executes the compare-and-swap operation for x.
func (x *Uint32) CompareAndSwap(old, new uint32) bool {
	access(&x.st, opAtomicCAS)
	return x.v.CompareAndSwap(old, new)
}

// Add atomically adds delta and returns the new value.
func (x *Uint32) Add(delta uint32) uint32 { access(&x.st, opAtomicAdd); return x.v.Add(delta) }

// A Uintptr is an atomic uintptr.
type Uintptr struct {
	v  atomic.Uintptr
	st *varState
}

// Load atomically loads and returns the value.
func (x *Uintptr) Load() uintptr { access(&x.st, opAtomicLoad); return x.v.Load() }

// Store atomically stores v.
func (x *Uintptr) Store(v uintptr) { access(&x.st, opAtomicStore); x.v.Store(v) }

// Swap atomically stores new and returns the previous value.
func (x *Uintptr) Swap(new uintptr) uintptr { access(&x.st, opAtomicSwap); return x.v.Swap(new) }

// CompareAndSwap executes the compare-and-swap operation for x.
func (x *Uintptr) CompareAndSwap(old, new uintptr) bool {
	access(&x.st, opAtomicCAS)
	return x.v.CompareAndSwap(old, new)
}

// Add atomically adds delta and returns the new value.
func (x *Uintptr) Add(delta uintptr) uintptr { access(&x.st, opAtomicAdd); return x.v.Add(delta) }

// A Value holds a value of one concrete type, loaded and stored atomically,
// like atomic.Value: the same panics on nil and on inconsistent types.
type Value struct {
	v  atomic.Value
	st *varState
}

// Load returns the value set by the most recent Store, or nil.
func (x *Value) Load() any { access(&x.st, opAtomicLoad); return x.v.Load() }

// Store sets the value to v.
func (x *Value) Store(v any) { access(&x.st, opAtomicStore); x.v.Store(v) }

// Swap stores new and returns the previous value, or nil.
func (x *Value) Swap(new any) any { access(&x.st, opAtomicSwap); return x.v.Swap(new) }

// CompareAndSwap executes the compare-and-swap operation for x.
func (x *Value) CompareAndSwap(old, new any) bool {
	access(&x.st, opAtomicCAS)
	return x.v.CompareAndSwap(old, new)
}
