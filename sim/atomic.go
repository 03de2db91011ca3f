package sim

// The atomic types mirror sync/atomic's. Under control each operation is
// one event; recording, each is reported to the recorder with its
// brackets (a load, a store, a read-modify-write); in every mode the value
// is a sync/atomic value, safe from any goroutine. Zero values are ready to
// use. The slow paths are methods of their own, so that the plain path of
// each operation stays small: Load's is inlined into its caller (Store,
// Swap, CompareAndSwap and Add are a few units over the compiler's budget).
//
// The types (Int32, Int64, Uint32, Uint64, Uintptr, Bool, Pointer, Value)
// differ only in their value type: they are generated from one template
// (internal/atomicgen) into atomic_gen.go. Generic types would call
// sync/atomic through a dictionary and lose the inlined plain path.

//go:generate go run ./internal/atomicgen -o atomic_gen.go
