package sim

import (
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/weftdev/weft/internal/gls"
	"github.com/weftdev/weft/record"
	"github.com/weftdev/weft/sched"
)

// The functions of this file are sync/atomic's functions on addresses
// (atomic.AddInt64(&x, 1) and the like), for code that keeps its plain
// integers and pointers: a source rewriter turns atomic.AddInt64(&x, 1) into
// sim.AddInt64(&x, 1) without changing x's type.
//
// In plain mode each is exactly its sync/atomic twin, behind one inlined
// check. Under control each is one event on the object the address names;
// recording, one access to the run's location for the address, which a
// table of the run (below, recAddrTable) keeps.
// A plain int64 has no room for the controlled state that the atomic types
// keep, so the objects of addresses are numbered by a table of the
// execution: a map from address to object number, the controller's
// attachment (sched.Controller.Attachment), which dies with the execution.
// A registry outside the executions would keep every execution's memory
// alive: its addresses hold the objects at them, whose primitives' states
// hold their controller.
//
// The table holds the addresses as pointers, not as integers, so the memory
// they point to stays alive (and unique) while the execution's table does:
// another variable allocated at a freed address in the same execution would
// otherwise share its number, depending on when the garbage collector ran.
// For the same reason the address escapes: a variable whose address is
// passed to these functions lives on the heap, where no stack growth moves
// it.

var (
	opAtomicAnd = sched.NewOp("atomic.And")
	opAtomicOr  = sched.NewOp("atomic.Or")
)

// AddInt32 atomically adds delta to *addr and returns the new value, like
// atomic.AddInt32.
func AddInt32(addr *int32, delta int32) (new int32) {
	if gls.Active() {
		return addInt32Slow(addr, delta)
	}
	return atomic.AddInt32(addr, delta)
}

//go:noinline
func addInt32Slow(addr *int32, delta int32) int32 {
	return addrRMW(unsafe.Pointer(addr), opAtomicAdd, func() (int32, uint64, uint64) {
		n := atomic.AddInt32(addr, delta)
		return n, d64(n - delta), d64(n)
	})
}

// AddInt64 atomically adds delta to *addr and returns the new value, like
// atomic.AddInt64.
func AddInt64(addr *int64, delta int64) (new int64) {
	if gls.Active() {
		return addInt64Slow(addr, delta)
	}
	return atomic.AddInt64(addr, delta)
}

//go:noinline
func addInt64Slow(addr *int64, delta int64) int64 {
	return addrRMW(unsafe.Pointer(addr), opAtomicAdd, func() (int64, uint64, uint64) {
		n := atomic.AddInt64(addr, delta)
		return n, d64(n - delta), d64(n)
	})
}

// AddUint32 atomically adds delta to *addr and returns the new value, like
// atomic.AddUint32.
func AddUint32(addr *uint32, delta uint32) (new uint32) {
	if gls.Active() {
		return addUint32Slow(addr, delta)
	}
	return atomic.AddUint32(addr, delta)
}

//go:noinline
func addUint32Slow(addr *uint32, delta uint32) uint32 {
	return addrRMW(unsafe.Pointer(addr), opAtomicAdd, func() (uint32, uint64, uint64) {
		n := atomic.AddUint32(addr, delta)
		return n, d64(n - delta), d64(n)
	})
}

// AddUint64 atomically adds delta to *addr and returns the new value, like
// atomic.AddUint64.
func AddUint64(addr *uint64, delta uint64) (new uint64) {
	if gls.Active() {
		return addUint64Slow(addr, delta)
	}
	return atomic.AddUint64(addr, delta)
}

//go:noinline
func addUint64Slow(addr *uint64, delta uint64) uint64 {
	return addrRMW(unsafe.Pointer(addr), opAtomicAdd, func() (uint64, uint64, uint64) {
		n := atomic.AddUint64(addr, delta)
		return n, d64(n - delta), d64(n)
	})
}

// AddUintptr atomically adds delta to *addr and returns the new value, like
// atomic.AddUintptr.
func AddUintptr(addr *uintptr, delta uintptr) (new uintptr) {
	if gls.Active() {
		return addUintptrSlow(addr, delta)
	}
	return atomic.AddUintptr(addr, delta)
}

//go:noinline
func addUintptrSlow(addr *uintptr, delta uintptr) uintptr {
	return addrRMW(unsafe.Pointer(addr), opAtomicAdd, func() (uintptr, uint64, uint64) {
		n := atomic.AddUintptr(addr, delta)
		return n, d64(n - delta), d64(n)
	})
}

// LoadInt32 atomically loads *addr, like atomic.LoadInt32.
func LoadInt32(addr *int32) (val int32) {
	if gls.Active() {
		return loadInt32Slow(addr)
	}
	return atomic.LoadInt32(addr)
}

//go:noinline
func loadInt32Slow(addr *int32) int32 {
	return addrLoad(unsafe.Pointer(addr), func() int32 { return atomic.LoadInt32(addr) })
}

// LoadInt64 atomically loads *addr, like atomic.LoadInt64.
func LoadInt64(addr *int64) (val int64) {
	if gls.Active() {
		return loadInt64Slow(addr)
	}
	return atomic.LoadInt64(addr)
}

//go:noinline
func loadInt64Slow(addr *int64) int64 {
	return addrLoad(unsafe.Pointer(addr), func() int64 { return atomic.LoadInt64(addr) })
}

// LoadUint32 atomically loads *addr, like atomic.LoadUint32.
func LoadUint32(addr *uint32) (val uint32) {
	if gls.Active() {
		return loadUint32Slow(addr)
	}
	return atomic.LoadUint32(addr)
}

//go:noinline
func loadUint32Slow(addr *uint32) uint32 {
	return addrLoad(unsafe.Pointer(addr), func() uint32 { return atomic.LoadUint32(addr) })
}

// LoadUint64 atomically loads *addr, like atomic.LoadUint64.
func LoadUint64(addr *uint64) (val uint64) {
	if gls.Active() {
		return loadUint64Slow(addr)
	}
	return atomic.LoadUint64(addr)
}

//go:noinline
func loadUint64Slow(addr *uint64) uint64 {
	return addrLoad(unsafe.Pointer(addr), func() uint64 { return atomic.LoadUint64(addr) })
}

// LoadUintptr atomically loads *addr, like atomic.LoadUintptr.
func LoadUintptr(addr *uintptr) (val uintptr) {
	if gls.Active() {
		return loadUintptrSlow(addr)
	}
	return atomic.LoadUintptr(addr)
}

//go:noinline
func loadUintptrSlow(addr *uintptr) uintptr {
	return addrLoad(unsafe.Pointer(addr), func() uintptr { return atomic.LoadUintptr(addr) })
}

// LoadPointer atomically loads *addr, like atomic.LoadPointer.
func LoadPointer(addr *unsafe.Pointer) (val unsafe.Pointer) {
	if gls.Active() {
		return loadPointerSlow(addr)
	}
	return atomic.LoadPointer(addr)
}

//go:noinline
func loadPointerSlow(addr *unsafe.Pointer) unsafe.Pointer {
	return addrLoad(unsafe.Pointer(addr), func() unsafe.Pointer { return atomic.LoadPointer(addr) })
}

// StoreInt32 atomically stores val into *addr, like atomic.StoreInt32.
func StoreInt32(addr *int32, val int32) {
	if gls.Active() {
		storeInt32Slow(addr, val)
		return
	}
	atomic.StoreInt32(addr, val)
}

//go:noinline
func storeInt32Slow(addr *int32, val int32) {
	addrStore(unsafe.Pointer(addr), val, func(v int32) { atomic.StoreInt32(addr, v) })
}

// StoreInt64 atomically stores val into *addr, like atomic.StoreInt64.
func StoreInt64(addr *int64, val int64) {
	if gls.Active() {
		storeInt64Slow(addr, val)
		return
	}
	atomic.StoreInt64(addr, val)
}

//go:noinline
func storeInt64Slow(addr *int64, val int64) {
	addrStore(unsafe.Pointer(addr), val, func(v int64) { atomic.StoreInt64(addr, v) })
}

// StoreUint32 atomically stores val into *addr, like atomic.StoreUint32.
func StoreUint32(addr *uint32, val uint32) {
	if gls.Active() {
		storeUint32Slow(addr, val)
		return
	}
	atomic.StoreUint32(addr, val)
}

//go:noinline
func storeUint32Slow(addr *uint32, val uint32) {
	addrStore(unsafe.Pointer(addr), val, func(v uint32) { atomic.StoreUint32(addr, v) })
}

// StoreUint64 atomically stores val into *addr, like atomic.StoreUint64.
func StoreUint64(addr *uint64, val uint64) {
	if gls.Active() {
		storeUint64Slow(addr, val)
		return
	}
	atomic.StoreUint64(addr, val)
}

//go:noinline
func storeUint64Slow(addr *uint64, val uint64) {
	addrStore(unsafe.Pointer(addr), val, func(v uint64) { atomic.StoreUint64(addr, v) })
}

// StoreUintptr atomically stores val into *addr, like atomic.StoreUintptr.
func StoreUintptr(addr *uintptr, val uintptr) {
	if gls.Active() {
		storeUintptrSlow(addr, val)
		return
	}
	atomic.StoreUintptr(addr, val)
}

//go:noinline
func storeUintptrSlow(addr *uintptr, val uintptr) {
	addrStore(unsafe.Pointer(addr), val, func(v uintptr) { atomic.StoreUintptr(addr, v) })
}

// StorePointer atomically stores val into *addr, like atomic.StorePointer.
func StorePointer(addr *unsafe.Pointer, val unsafe.Pointer) {
	if gls.Active() {
		storePointerSlow(addr, val)
		return
	}
	atomic.StorePointer(addr, val)
}

//go:noinline
func storePointerSlow(addr *unsafe.Pointer, val unsafe.Pointer) {
	addrStore(unsafe.Pointer(addr), val, func(v unsafe.Pointer) { atomic.StorePointer(addr, v) })
}

// SwapInt32 atomically stores new into *addr and returns the previous value,
// like atomic.SwapInt32.
func SwapInt32(addr *int32, new int32) (old int32) {
	if gls.Active() {
		return swapInt32Slow(addr, new)
	}
	return atomic.SwapInt32(addr, new)
}

//go:noinline
func swapInt32Slow(addr *int32, new int32) int32 {
	return addrRMW(unsafe.Pointer(addr), opAtomicSwap, func() (int32, uint64, uint64) {
		old := atomic.SwapInt32(addr, new)
		return old, d64(old), d64(new)
	})
}

// SwapInt64 atomically stores new into *addr and returns the previous value,
// like atomic.SwapInt64.
func SwapInt64(addr *int64, new int64) (old int64) {
	if gls.Active() {
		return swapInt64Slow(addr, new)
	}
	return atomic.SwapInt64(addr, new)
}

//go:noinline
func swapInt64Slow(addr *int64, new int64) int64 {
	return addrRMW(unsafe.Pointer(addr), opAtomicSwap, func() (int64, uint64, uint64) {
		old := atomic.SwapInt64(addr, new)
		return old, d64(old), d64(new)
	})
}

// SwapUint32 atomically stores new into *addr and returns the previous value,
// like atomic.SwapUint32.
func SwapUint32(addr *uint32, new uint32) (old uint32) {
	if gls.Active() {
		return swapUint32Slow(addr, new)
	}
	return atomic.SwapUint32(addr, new)
}

//go:noinline
func swapUint32Slow(addr *uint32, new uint32) uint32 {
	return addrRMW(unsafe.Pointer(addr), opAtomicSwap, func() (uint32, uint64, uint64) {
		old := atomic.SwapUint32(addr, new)
		return old, d64(old), d64(new)
	})
}

// SwapUint64 atomically stores new into *addr and returns the previous value,
// like atomic.SwapUint64.
func SwapUint64(addr *uint64, new uint64) (old uint64) {
	if gls.Active() {
		return swapUint64Slow(addr, new)
	}
	return atomic.SwapUint64(addr, new)
}

//go:noinline
func swapUint64Slow(addr *uint64, new uint64) uint64 {
	return addrRMW(unsafe.Pointer(addr), opAtomicSwap, func() (uint64, uint64, uint64) {
		old := atomic.SwapUint64(addr, new)
		return old, d64(old), d64(new)
	})
}

// SwapUintptr atomically stores new into *addr and returns the previous value,
// like atomic.SwapUintptr.
func SwapUintptr(addr *uintptr, new uintptr) (old uintptr) {
	if gls.Active() {
		return swapUintptrSlow(addr, new)
	}
	return atomic.SwapUintptr(addr, new)
}

//go:noinline
func swapUintptrSlow(addr *uintptr, new uintptr) uintptr {
	return addrRMW(unsafe.Pointer(addr), opAtomicSwap, func() (uintptr, uint64, uint64) {
		old := atomic.SwapUintptr(addr, new)
		return old, d64(old), d64(new)
	})
}

// SwapPointer atomically stores new into *addr and returns the previous value,
// like atomic.SwapPointer.
func SwapPointer(addr *unsafe.Pointer, new unsafe.Pointer) (old unsafe.Pointer) {
	if gls.Active() {
		return swapPointerSlow(addr, new)
	}
	return atomic.SwapPointer(addr, new)
}

//go:noinline
func swapPointerSlow(addr *unsafe.Pointer, new unsafe.Pointer) unsafe.Pointer {
	return addrRMW(unsafe.Pointer(addr), opAtomicSwap, func() (unsafe.Pointer, uint64, uint64) {
		old := atomic.SwapPointer(addr, new)
		return old, d64(old), d64(new)
	})
}

// CompareAndSwapInt32 executes the compare-and-swap operation for *addr,
// like atomic.CompareAndSwapInt32.
func CompareAndSwapInt32(addr *int32, old, new int32) (swapped bool) {
	if gls.Active() {
		return compareAndSwapInt32Slow(addr, old, new)
	}
	return atomic.CompareAndSwapInt32(addr, old, new)
}

//go:noinline
func compareAndSwapInt32Slow(addr *int32, old, new int32) bool {
	return addrRMW(unsafe.Pointer(addr), opAtomicCAS, func() (bool, uint64, uint64) {
		if atomic.CompareAndSwapInt32(addr, old, new) {
			return true, d64(old), d64(new)
		}
		cur := atomic.LoadInt32(addr)
		return false, d64(cur), d64(cur)
	})
}

// CompareAndSwapInt64 executes the compare-and-swap operation for *addr,
// like atomic.CompareAndSwapInt64.
func CompareAndSwapInt64(addr *int64, old, new int64) (swapped bool) {
	if gls.Active() {
		return compareAndSwapInt64Slow(addr, old, new)
	}
	return atomic.CompareAndSwapInt64(addr, old, new)
}

//go:noinline
func compareAndSwapInt64Slow(addr *int64, old, new int64) bool {
	return addrRMW(unsafe.Pointer(addr), opAtomicCAS, func() (bool, uint64, uint64) {
		if atomic.CompareAndSwapInt64(addr, old, new) {
			return true, d64(old), d64(new)
		}
		cur := atomic.LoadInt64(addr)
		return false, d64(cur), d64(cur)
	})
}

// CompareAndSwapUint32 executes the compare-and-swap operation for *addr,
// like atomic.CompareAndSwapUint32.
func CompareAndSwapUint32(addr *uint32, old, new uint32) (swapped bool) {
	if gls.Active() {
		return compareAndSwapUint32Slow(addr, old, new)
	}
	return atomic.CompareAndSwapUint32(addr, old, new)
}

//go:noinline
func compareAndSwapUint32Slow(addr *uint32, old, new uint32) bool {
	return addrRMW(unsafe.Pointer(addr), opAtomicCAS, func() (bool, uint64, uint64) {
		if atomic.CompareAndSwapUint32(addr, old, new) {
			return true, d64(old), d64(new)
		}
		cur := atomic.LoadUint32(addr)
		return false, d64(cur), d64(cur)
	})
}

// CompareAndSwapUint64 executes the compare-and-swap operation for *addr,
// like atomic.CompareAndSwapUint64.
func CompareAndSwapUint64(addr *uint64, old, new uint64) (swapped bool) {
	if gls.Active() {
		return compareAndSwapUint64Slow(addr, old, new)
	}
	return atomic.CompareAndSwapUint64(addr, old, new)
}

//go:noinline
func compareAndSwapUint64Slow(addr *uint64, old, new uint64) bool {
	return addrRMW(unsafe.Pointer(addr), opAtomicCAS, func() (bool, uint64, uint64) {
		if atomic.CompareAndSwapUint64(addr, old, new) {
			return true, d64(old), d64(new)
		}
		cur := atomic.LoadUint64(addr)
		return false, d64(cur), d64(cur)
	})
}

// CompareAndSwapUintptr executes the compare-and-swap operation for *addr,
// like atomic.CompareAndSwapUintptr.
func CompareAndSwapUintptr(addr *uintptr, old, new uintptr) (swapped bool) {
	if gls.Active() {
		return compareAndSwapUintptrSlow(addr, old, new)
	}
	return atomic.CompareAndSwapUintptr(addr, old, new)
}

//go:noinline
func compareAndSwapUintptrSlow(addr *uintptr, old, new uintptr) bool {
	return addrRMW(unsafe.Pointer(addr), opAtomicCAS, func() (bool, uint64, uint64) {
		if atomic.CompareAndSwapUintptr(addr, old, new) {
			return true, d64(old), d64(new)
		}
		cur := atomic.LoadUintptr(addr)
		return false, d64(cur), d64(cur)
	})
}

// CompareAndSwapPointer executes the compare-and-swap operation for *addr,
// like atomic.CompareAndSwapPointer.
func CompareAndSwapPointer(addr *unsafe.Pointer, old, new unsafe.Pointer) (swapped bool) {
	if gls.Active() {
		return compareAndSwapPointerSlow(addr, old, new)
	}
	return atomic.CompareAndSwapPointer(addr, old, new)
}

//go:noinline
func compareAndSwapPointerSlow(addr *unsafe.Pointer, old, new unsafe.Pointer) bool {
	return addrRMW(unsafe.Pointer(addr), opAtomicCAS, func() (bool, uint64, uint64) {
		if atomic.CompareAndSwapPointer(addr, old, new) {
			return true, d64(old), d64(new)
		}
		cur := atomic.LoadPointer(addr)
		return false, d64(cur), d64(cur)
	})
}

// AndInt32 atomically performs a bitwise AND of *addr and mask, stores the
// result into *addr and returns the old value, like atomic.AndInt32.
func AndInt32(addr *int32, mask int32) (old int32) {
	if gls.Active() {
		return andInt32Slow(addr, mask)
	}
	return atomic.AndInt32(addr, mask)
}

//go:noinline
func andInt32Slow(addr *int32, mask int32) int32 {
	return addrRMW(unsafe.Pointer(addr), opAtomicAnd, func() (int32, uint64, uint64) {
		old := atomic.AndInt32(addr, mask)
		return old, d64(old), d64(old & mask)
	})
}

// AndInt64 atomically performs a bitwise AND of *addr and mask, stores the
// result into *addr and returns the old value, like atomic.AndInt64.
func AndInt64(addr *int64, mask int64) (old int64) {
	if gls.Active() {
		return andInt64Slow(addr, mask)
	}
	return atomic.AndInt64(addr, mask)
}

//go:noinline
func andInt64Slow(addr *int64, mask int64) int64 {
	return addrRMW(unsafe.Pointer(addr), opAtomicAnd, func() (int64, uint64, uint64) {
		old := atomic.AndInt64(addr, mask)
		return old, d64(old), d64(old & mask)
	})
}

// AndUint32 atomically performs a bitwise AND of *addr and mask, stores the
// result into *addr and returns the old value, like atomic.AndUint32.
func AndUint32(addr *uint32, mask uint32) (old uint32) {
	if gls.Active() {
		return andUint32Slow(addr, mask)
	}
	return atomic.AndUint32(addr, mask)
}

//go:noinline
func andUint32Slow(addr *uint32, mask uint32) uint32 {
	return addrRMW(unsafe.Pointer(addr), opAtomicAnd, func() (uint32, uint64, uint64) {
		old := atomic.AndUint32(addr, mask)
		return old, d64(old), d64(old & mask)
	})
}

// AndUint64 atomically performs a bitwise AND of *addr and mask, stores the
// result into *addr and returns the old value, like atomic.AndUint64.
func AndUint64(addr *uint64, mask uint64) (old uint64) {
	if gls.Active() {
		return andUint64Slow(addr, mask)
	}
	return atomic.AndUint64(addr, mask)
}

//go:noinline
func andUint64Slow(addr *uint64, mask uint64) uint64 {
	return addrRMW(unsafe.Pointer(addr), opAtomicAnd, func() (uint64, uint64, uint64) {
		old := atomic.AndUint64(addr, mask)
		return old, d64(old), d64(old & mask)
	})
}

// AndUintptr atomically performs a bitwise AND of *addr and mask, stores the
// result into *addr and returns the old value, like atomic.AndUintptr.
func AndUintptr(addr *uintptr, mask uintptr) (old uintptr) {
	if gls.Active() {
		return andUintptrSlow(addr, mask)
	}
	return atomic.AndUintptr(addr, mask)
}

//go:noinline
func andUintptrSlow(addr *uintptr, mask uintptr) uintptr {
	return addrRMW(unsafe.Pointer(addr), opAtomicAnd, func() (uintptr, uint64, uint64) {
		old := atomic.AndUintptr(addr, mask)
		return old, d64(old), d64(old & mask)
	})
}

// OrInt32 atomically performs a bitwise OR of *addr and mask, stores the
// result into *addr and returns the old value, like atomic.OrInt32.
func OrInt32(addr *int32, mask int32) (old int32) {
	if gls.Active() {
		return orInt32Slow(addr, mask)
	}
	return atomic.OrInt32(addr, mask)
}

//go:noinline
func orInt32Slow(addr *int32, mask int32) int32 {
	return addrRMW(unsafe.Pointer(addr), opAtomicOr, func() (int32, uint64, uint64) {
		old := atomic.OrInt32(addr, mask)
		return old, d64(old), d64(old | mask)
	})
}

// OrInt64 atomically performs a bitwise OR of *addr and mask, stores the
// result into *addr and returns the old value, like atomic.OrInt64.
func OrInt64(addr *int64, mask int64) (old int64) {
	if gls.Active() {
		return orInt64Slow(addr, mask)
	}
	return atomic.OrInt64(addr, mask)
}

//go:noinline
func orInt64Slow(addr *int64, mask int64) int64 {
	return addrRMW(unsafe.Pointer(addr), opAtomicOr, func() (int64, uint64, uint64) {
		old := atomic.OrInt64(addr, mask)
		return old, d64(old), d64(old | mask)
	})
}

// OrUint32 atomically performs a bitwise OR of *addr and mask, stores the
// result into *addr and returns the old value, like atomic.OrUint32.
func OrUint32(addr *uint32, mask uint32) (old uint32) {
	if gls.Active() {
		return orUint32Slow(addr, mask)
	}
	return atomic.OrUint32(addr, mask)
}

//go:noinline
func orUint32Slow(addr *uint32, mask uint32) uint32 {
	return addrRMW(unsafe.Pointer(addr), opAtomicOr, func() (uint32, uint64, uint64) {
		old := atomic.OrUint32(addr, mask)
		return old, d64(old), d64(old | mask)
	})
}

// OrUint64 atomically performs a bitwise OR of *addr and mask, stores the
// result into *addr and returns the old value, like atomic.OrUint64.
func OrUint64(addr *uint64, mask uint64) (old uint64) {
	if gls.Active() {
		return orUint64Slow(addr, mask)
	}
	return atomic.OrUint64(addr, mask)
}

//go:noinline
func orUint64Slow(addr *uint64, mask uint64) uint64 {
	return addrRMW(unsafe.Pointer(addr), opAtomicOr, func() (uint64, uint64, uint64) {
		old := atomic.OrUint64(addr, mask)
		return old, d64(old), d64(old | mask)
	})
}

// OrUintptr atomically performs a bitwise OR of *addr and mask, stores the
// result into *addr and returns the old value, like atomic.OrUintptr.
func OrUintptr(addr *uintptr, mask uintptr) (old uintptr) {
	if gls.Active() {
		return orUintptrSlow(addr, mask)
	}
	return atomic.OrUintptr(addr, mask)
}

//go:noinline
func orUintptrSlow(addr *uintptr, mask uintptr) uintptr {
	return addrRMW(unsafe.Pointer(addr), opAtomicOr, func() (uintptr, uint64, uint64) {
		old := atomic.OrUintptr(addr, mask)
		return old, d64(old), d64(old | mask)
	})
}

// addrLoad performs a load of the memory at p with load, in controlled or
// recording mode.
func addrLoad[T any](p unsafe.Pointer, load func() T) T {
	g, t := lookup()
	if g != nil {
		g.StepReady(opAtomicLoad, addrObject(g, p))
		v := load()
		g.Observe(digest(&v))
		return v
	}
	if t != nil {
		return recLoadFn(t, addrLoc(t, p), false, load)
	}
	return load()
}

// addrStore performs a store of v into the memory at p with store.
func addrStore[T any](p unsafe.Pointer, v T, store func(T)) {
	g, t := lookup()
	if g != nil {
		g.StepReady(opAtomicStore, addrObject(g, p))
		store(v)
		g.Wrote(digest(&v))
		return
	}
	if t != nil {
		recStoreFn(t, addrLoc(t, p), false, v, store)
		return
	}
	store(v)
}

// addrRMW performs a read-modify-write of the memory at p with f, which
// returns its result and digests of the values it read and left.
func addrRMW[R any](p unsafe.Pointer, op *sched.Op, f func() (R, uint64, uint64)) R {
	g, t := lookup()
	if g != nil {
		g.StepReady(op, addrObject(g, p))
		res, read, left := f()
		g.Observe(read)
		g.Wrote(left)
		pollIfFailed(g, op, res)
		return res
	}
	if t != nil {
		return recRMWFn(t, addrLoc(t, p), f)
	}
	res, _, _ := f()
	return res
}

// A recAddrTable maps the addresses a recorded run's atomic functions use
// to the run's locations. The run's goroutines share it. It is the run's
// attachment (record.Session.Attachment), so it dies with the run: a table
// outside it would hold the addresses, and through the objects at them
// (whose states name the run) every run's memory.
type recAddrTable struct {
	mu   sync.Mutex
	locs map[unsafe.Pointer]*record.Loc
}

func newRecAddrTable() any { return &recAddrTable{locs: make(map[unsafe.Pointer]*record.Loc)} }

// addrLoc returns the location of address p in t's run, making it at its
// first use there.
func addrLoc(t *record.Thread, p unsafe.Pointer) *record.Loc {
	tab := t.Run().Attachment(newRecAddrTable).(*recAddrTable)
	tab.mu.Lock()
	l, ok := tab.locs[p]
	if !ok {
		l = t.NewLoc()
		tab.locs[p] = l
	}
	tab.mu.Unlock()
	return l
}

// An addrTable numbers the addresses an execution's atomic functions use.
// Only the execution's running goroutine touches it. It is the execution's
// attachment (sched.Controller.Attachment), so it dies with the execution:
// a table outside it would hold the addresses, and through the objects at
// them (whose states name the controller) every execution's memory.
type addrTable struct {
	ids addrIndex
	// goSends are the execution's sends on Go channels handed to plain
	// goroutines and not taken yet (gosend.go).
	goSends []*goSend
}

func newAddrTable() any { return new(addrTable) }

// An addrIndex maps addresses to object numbers: a hash table with open
// addressing, not a Go map, whose writes the race detector checks
// whatever the caller (see race.go). It keeps its addresses alive, as a
// map would.
type addrIndex struct {
	keys []unsafe.Pointer
	ids  []uint32
	n    int
}

// get returns p's number, or 0 if p has none (numbers start at 1).
//
//go:norace
func (x *addrIndex) get(p unsafe.Pointer) uint32 {
	if len(x.keys) == 0 {
		return 0
	}
	for i := x.slot(p); ; i = (i + 1) & (len(x.keys) - 1) {
		switch x.keys[i] {
		case p:
			return x.ids[i]
		case nil:
			return 0
		}
	}
}

// put numbers p, which has no number yet, id.
//
//go:norace
func (x *addrIndex) put(p unsafe.Pointer, id uint32) {
	if 2*(x.n+1) > len(x.keys) {
		keys, ids := x.keys, x.ids
		x.keys = make([]unsafe.Pointer, max(2*len(keys), 16))
		x.ids = make([]uint32, len(x.keys))
		x.n = 0
		for i, k := range keys {
			if k != nil {
				x.put(k, ids[i])
			}
		}
	}
	i := x.slot(p)
	for x.keys[i] != nil {
		i = (i + 1) & (len(x.keys) - 1)
	}
	x.keys[i], x.ids[i] = p, id
	x.n++
}

func (x *addrIndex) slot(p unsafe.Pointer) int {
	h := uint64(uintptr(p)) * 0x9e3779b97f4a7c15
	return int(h>>32) & (len(x.keys) - 1)
}

// addrObject returns the object number of address p in g's execution,
// numbering it at its first use there. The table is the controller's state,
// written by the goroutine that holds the baton: not instrumented.
//
//go:norace
func addrObject(g *sched.G, p unsafe.Pointer) uint32 {
	t := g.Controller().Attachment(newAddrTable).(*addrTable)
	id := t.ids.get(p)
	if id == 0 {
		id = g.NewObject()
		t.ids.put(p, id)
	}
	return id
}
