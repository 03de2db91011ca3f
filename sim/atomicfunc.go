package sim

import (
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"
	"weak"

	"github.com/weftdev/weft/internal/gls"
	"github.com/weftdev/weft/sched"
)

// The functions of this file are sync/atomic's functions on addresses
// (atomic.AddInt64(&x, 1) and the like), for code that keeps its plain
// integers and pointers: a source rewriter turns atomic.AddInt64(&x, 1) into
// sim.AddInt64(&x, 1) without changing x's type.
//
// In plain mode each is exactly its sync/atomic twin, behind one inlined
// check. Under control each is one event on the object the address names.
// A plain int64 has no room for the controlled state that the atomic types
// keep, so the objects of addresses are numbered by a table of the
// execution: a map from address to object number, found through the
// goroutine's controller. sched has no end-of-execution hook, so the tables
// are held by a registry keyed by a weak pointer to the controller, and a
// cleanup (runtime.AddCleanup) drops a table once its controller has been
// garbage collected.
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
		accessAddr(unsafe.Pointer(addr), opAtomicAdd)
	}
	return atomic.AddInt32(addr, delta)
}

// AddInt64 atomically adds delta to *addr and returns the new value, like
// atomic.AddInt64.
func AddInt64(addr *int64, delta int64) (new int64) {
	if gls.Active() {
		accessAddr(unsafe.Pointer(addr), opAtomicAdd)
	}
	return atomic.AddInt64(addr, delta)
}

// AddUint32 atomically adds delta to *addr and returns the new value, like
// atomic.AddUint32.
func AddUint32(addr *uint32, delta uint32) (new uint32) {
	if gls.Active() {
		accessAddr(unsafe.Pointer(addr), opAtomicAdd)
	}
	return atomic.AddUint32(addr, delta)
}

// AddUint64 atomically adds delta to *addr and returns the new value, like
// atomic.AddUint64.
func AddUint64(addr *uint64, delta uint64) (new uint64) {
	if gls.Active() {
		accessAddr(unsafe.Pointer(addr), opAtomicAdd)
	}
	return atomic.AddUint64(addr, delta)
}

// AddUintptr atomically adds delta to *addr and returns the new value, like
// atomic.AddUintptr.
func AddUintptr(addr *uintptr, delta uintptr) (new uintptr) {
	if gls.Active() {
		accessAddr(unsafe.Pointer(addr), opAtomicAdd)
	}
	return atomic.AddUintptr(addr, delta)
}

// LoadInt32 atomically loads *addr, like atomic.LoadInt32.
func LoadInt32(addr *int32) (val int32) {
	if gls.Active() {
		accessAddr(unsafe.Pointer(addr), opAtomicLoad)
	}
	return atomic.LoadInt32(addr)
}

// LoadInt64 atomically loads *addr, like atomic.LoadInt64.
func LoadInt64(addr *int64) (val int64) {
	if gls.Active() {
		accessAddr(unsafe.Pointer(addr), opAtomicLoad)
	}
	return atomic.LoadInt64(addr)
}

// LoadUint32 atomically loads *addr, like atomic.LoadUint32.
func LoadUint32(addr *uint32) (val uint32) {
	if gls.Active() {
		accessAddr(unsafe.Pointer(addr), opAtomicLoad)
	}
	return atomic.LoadUint32(addr)
}

// LoadUint64 atomically loads *addr, like atomic.LoadUint64.
func LoadUint64(addr *uint64) (val uint64) {
	if gls.Active() {
		accessAddr(unsafe.Pointer(addr), opAtomicLoad)
	}
	return atomic.LoadUint64(addr)
}

// LoadUintptr atomically loads *addr, like atomic.LoadUintptr.
func LoadUintptr(addr *uintptr) (val uintptr) {
	if gls.Active() {
		accessAddr(unsafe.Pointer(addr), opAtomicLoad)
	}
	return atomic.LoadUintptr(addr)
}

// LoadPointer atomically loads *addr, like atomic.LoadPointer.
func LoadPointer(addr *unsafe.Pointer) (val unsafe.Pointer) {
	if gls.Active() {
		accessAddr(unsafe.Pointer(addr), opAtomicLoad)
	}
	return atomic.LoadPointer(addr)
}

// StoreInt32 atomically stores val into *addr, like atomic.StoreInt32.
func StoreInt32(addr *int32, val int32) {
	if gls.Active() {
		accessAddr(unsafe.Pointer(addr), opAtomicStore)
	}
	atomic.StoreInt32(addr, val)
}

// StoreInt64 atomically stores val into *addr, like atomic.StoreInt64.
func StoreInt64(addr *int64, val int64) {
	if gls.Active() {
		accessAddr(unsafe.Pointer(addr), opAtomicStore)
	}
	atomic.StoreInt64(addr, val)
}

// StoreUint32 atomically stores val into *addr, like atomic.StoreUint32.
func StoreUint32(addr *uint32, val uint32) {
	if gls.Active() {
		accessAddr(unsafe.Pointer(addr), opAtomicStore)
	}
	atomic.StoreUint32(addr, val)
}

// StoreUint64 atomically stores val into *addr, like atomic.StoreUint64.
func StoreUint64(addr *uint64, val uint64) {
	if gls.Active() {
		accessAddr(unsafe.Pointer(addr), opAtomicStore)
	}
	atomic.StoreUint64(addr, val)
}

// StoreUintptr atomically stores val into *addr, like atomic.StoreUintptr.
func StoreUintptr(addr *uintptr, val uintptr) {
	if gls.Active() {
		accessAddr(unsafe.Pointer(addr), opAtomicStore)
	}
	atomic.StoreUintptr(addr, val)
}

// StorePointer atomically stores val into *addr, like atomic.StorePointer.
func StorePointer(addr *unsafe.Pointer, val unsafe.Pointer) {
	if gls.Active() {
		accessAddr(unsafe.Pointer(addr), opAtomicStore)
	}
	atomic.StorePointer(addr, val)
}

// SwapInt32 atomically stores new into *addr and returns the previous value,
// like atomic.SwapInt32.
func SwapInt32(addr *int32, new int32) (old int32) {
	if gls.Active() {
		accessAddr(unsafe.Pointer(addr), opAtomicSwap)
	}
	return atomic.SwapInt32(addr, new)
}

// SwapInt64 atomically stores new into *addr and returns the previous value,
// like atomic.SwapInt64.
func SwapInt64(addr *int64, new int64) (old int64) {
	if gls.Active() {
		accessAddr(unsafe.Pointer(addr), opAtomicSwap)
	}
	return atomic.SwapInt64(addr, new)
}

// SwapUint32 atomically stores new into *addr and returns the previous value,
// like atomic.SwapUint32.
func SwapUint32(addr *uint32, new uint32) (old uint32) {
	if gls.Active() {
		accessAddr(unsafe.Pointer(addr), opAtomicSwap)
	}
	return atomic.SwapUint32(addr, new)
}

// SwapUint64 atomically stores new into *addr and returns the previous value,
// like atomic.SwapUint64.
func SwapUint64(addr *uint64, new uint64) (old uint64) {
	if gls.Active() {
		accessAddr(unsafe.Pointer(addr), opAtomicSwap)
	}
	return atomic.SwapUint64(addr, new)
}

// SwapUintptr atomically stores new into *addr and returns the previous value,
// like atomic.SwapUintptr.
func SwapUintptr(addr *uintptr, new uintptr) (old uintptr) {
	if gls.Active() {
		accessAddr(unsafe.Pointer(addr), opAtomicSwap)
	}
	return atomic.SwapUintptr(addr, new)
}

// SwapPointer atomically stores new into *addr and returns the previous value,
// like atomic.SwapPointer.
func SwapPointer(addr *unsafe.Pointer, new unsafe.Pointer) (old unsafe.Pointer) {
	if gls.Active() {
		accessAddr(unsafe.Pointer(addr), opAtomicSwap)
	}
	return atomic.SwapPointer(addr, new)
}

// CompareAndSwapInt32 executes the compare-and-swap operation for *addr,
// like atomic.CompareAndSwapInt32.
func CompareAndSwapInt32(addr *int32, old, new int32) (swapped bool) {
	if gls.Active() {
		accessAddr(unsafe.Pointer(addr), opAtomicCAS)
	}
	return atomic.CompareAndSwapInt32(addr, old, new)
}

// CompareAndSwapInt64 executes the compare-and-swap operation for *addr,
// like atomic.CompareAndSwapInt64.
func CompareAndSwapInt64(addr *int64, old, new int64) (swapped bool) {
	if gls.Active() {
		accessAddr(unsafe.Pointer(addr), opAtomicCAS)
	}
	return atomic.CompareAndSwapInt64(addr, old, new)
}

// CompareAndSwapUint32 executes the compare-and-swap operation for *addr,
// like atomic.CompareAndSwapUint32.
func CompareAndSwapUint32(addr *uint32, old, new uint32) (swapped bool) {
	if gls.Active() {
		accessAddr(unsafe.Pointer(addr), opAtomicCAS)
	}
	return atomic.CompareAndSwapUint32(addr, old, new)
}

// CompareAndSwapUint64 executes the compare-and-swap operation for *addr,
// like atomic.CompareAndSwapUint64.
func CompareAndSwapUint64(addr *uint64, old, new uint64) (swapped bool) {
	if gls.Active() {
		accessAddr(unsafe.Pointer(addr), opAtomicCAS)
	}
	return atomic.CompareAndSwapUint64(addr, old, new)
}

// CompareAndSwapUintptr executes the compare-and-swap operation for *addr,
// like atomic.CompareAndSwapUintptr.
func CompareAndSwapUintptr(addr *uintptr, old, new uintptr) (swapped bool) {
	if gls.Active() {
		accessAddr(unsafe.Pointer(addr), opAtomicCAS)
	}
	return atomic.CompareAndSwapUintptr(addr, old, new)
}

// CompareAndSwapPointer executes the compare-and-swap operation for *addr,
// like atomic.CompareAndSwapPointer.
func CompareAndSwapPointer(addr *unsafe.Pointer, old, new unsafe.Pointer) (swapped bool) {
	if gls.Active() {
		accessAddr(unsafe.Pointer(addr), opAtomicCAS)
	}
	return atomic.CompareAndSwapPointer(addr, old, new)
}

// AndInt32 atomically performs a bitwise AND of *addr and mask, stores the
// result into *addr and returns the old value, like atomic.AndInt32.
func AndInt32(addr *int32, mask int32) (old int32) {
	if gls.Active() {
		accessAddr(unsafe.Pointer(addr), opAtomicAnd)
	}
	return atomic.AndInt32(addr, mask)
}

// AndInt64 atomically performs a bitwise AND of *addr and mask, stores the
// result into *addr and returns the old value, like atomic.AndInt64.
func AndInt64(addr *int64, mask int64) (old int64) {
	if gls.Active() {
		accessAddr(unsafe.Pointer(addr), opAtomicAnd)
	}
	return atomic.AndInt64(addr, mask)
}

// AndUint32 atomically performs a bitwise AND of *addr and mask, stores the
// result into *addr and returns the old value, like atomic.AndUint32.
func AndUint32(addr *uint32, mask uint32) (old uint32) {
	if gls.Active() {
		accessAddr(unsafe.Pointer(addr), opAtomicAnd)
	}
	return atomic.AndUint32(addr, mask)
}

// AndUint64 atomically performs a bitwise AND of *addr and mask, stores the
// result into *addr and returns the old value, like atomic.AndUint64.
func AndUint64(addr *uint64, mask uint64) (old uint64) {
	if gls.Active() {
		accessAddr(unsafe.Pointer(addr), opAtomicAnd)
	}
	return atomic.AndUint64(addr, mask)
}

// AndUintptr atomically performs a bitwise AND of *addr and mask, stores the
// result into *addr and returns the old value, like atomic.AndUintptr.
func AndUintptr(addr *uintptr, mask uintptr) (old uintptr) {
	if gls.Active() {
		accessAddr(unsafe.Pointer(addr), opAtomicAnd)
	}
	return atomic.AndUintptr(addr, mask)
}

// OrInt32 atomically performs a bitwise OR of *addr and mask, stores the
// result into *addr and returns the old value, like atomic.OrInt32.
func OrInt32(addr *int32, mask int32) (old int32) {
	if gls.Active() {
		accessAddr(unsafe.Pointer(addr), opAtomicOr)
	}
	return atomic.OrInt32(addr, mask)
}

// OrInt64 atomically performs a bitwise OR of *addr and mask, stores the
// result into *addr and returns the old value, like atomic.OrInt64.
func OrInt64(addr *int64, mask int64) (old int64) {
	if gls.Active() {
		accessAddr(unsafe.Pointer(addr), opAtomicOr)
	}
	return atomic.OrInt64(addr, mask)
}

// OrUint32 atomically performs a bitwise OR of *addr and mask, stores the
// result into *addr and returns the old value, like atomic.OrUint32.
func OrUint32(addr *uint32, mask uint32) (old uint32) {
	if gls.Active() {
		accessAddr(unsafe.Pointer(addr), opAtomicOr)
	}
	return atomic.OrUint32(addr, mask)
}

// OrUint64 atomically performs a bitwise OR of *addr and mask, stores the
// result into *addr and returns the old value, like atomic.OrUint64.
func OrUint64(addr *uint64, mask uint64) (old uint64) {
	if gls.Active() {
		accessAddr(unsafe.Pointer(addr), opAtomicOr)
	}
	return atomic.OrUint64(addr, mask)
}

// OrUintptr atomically performs a bitwise OR of *addr and mask, stores the
// result into *addr and returns the old value, like atomic.OrUintptr.
func OrUintptr(addr *uintptr, mask uintptr) (old uintptr) {
	if gls.Active() {
		accessAddr(unsafe.Pointer(addr), opAtomicOr)
	}
	return atomic.OrUintptr(addr, mask)
}

// accessAddr is the event of an atomic operation on the memory at p: a
// scheduling point under control, nothing in plain mode.
func accessAddr(p unsafe.Pointer, op *sched.Op) {
	if g := sched.Current(); g != nil {
		g.Step(op, addrObject(g, p), nil)
	}
}

// An addrTable numbers the addresses an execution's atomic functions use.
// Only the execution's running goroutine touches ids; owner is immutable.
type addrTable struct {
	owner weak.Pointer[sched.Controller]
	ids   map[unsafe.Pointer]uint32
}

var (
	// addrTables holds the table of every execution that used an address:
	// weak.Pointer[sched.Controller] → *addrTable. The weak key keeps the
	// controller collectable; its cleanup deletes the entry.
	addrTables sync.Map
	// lastAddrs caches the table last used, which spares a map lookup while
	// a single execution runs.
	lastAddrs atomic.Pointer[addrTable]
)

// addrObject returns the object number of address p in g's execution,
// numbering it at its first use there.
func addrObject(g *sched.G, p unsafe.Pointer) uint32 {
	c := g.Controller()
	t := lastAddrs.Load()
	if t == nil || t.owner.Value() != c {
		t = addrTableOf(c)
		lastAddrs.Store(t)
	}
	id, ok := t.ids[p]
	if !ok {
		id = g.NewObject()
		t.ids[p] = id
	}
	return id
}

// addrTableOf returns c's table, creating it. It runs on c's running
// goroutine, the only one of c's execution that can, so no other call
// creates c's table meanwhile.
func addrTableOf(c *sched.Controller) *addrTable {
	key := weak.Make(c)
	if t, ok := addrTables.Load(key); ok {
		return t.(*addrTable)
	}
	t := &addrTable{owner: key, ids: make(map[unsafe.Pointer]uint32)}
	addrTables.Store(key, t)
	runtime.AddCleanup(c, func(key weak.Pointer[sched.Controller]) { addrTables.Delete(key) }, key)
	return t
}
