package record

// deferredCap is how many entries a Deferred holds.
const deferredCap = 16

// heldEntry is an entry of a goroutine's stream held back by a Deferred:
// its tag, its counter and up to four arguments.
type heldEntry struct {
	tag, argc uint8
	n         uint64
	args      [4]uint64
}

// Deferred is a goroutine's queue of the stream entries its recorder, a
// Releaser, logs once the goroutine releases the primitive it reported them
// in, in order: the recorder's work on them (coding, appending) is then
// done outside the program's critical section, where it would lengthen the
// section while the gap between two sections, where a lost update happens,
// stays the framework's few nanoseconds (the probe effect: the buggy bank
// and cache of internal/workload failed several times less often recorded
// than plain). A full queue is logged before the next Put (Full).
type Deferred struct {
	n       int
	entries [deferredCap]heldEntry
}

// Full reports whether d holds all it can: its entries must be logged
// (Entry, Reset) before the next Put.
func (d *Deferred) Full() bool { return d.n == deferredCap }

// Len returns how many entries d holds.
func (d *Deferred) Len() int { return d.n }

// Put queues an entry of at most four arguments and asks that the
// recorder's Released be called on t (Thread.Defer).
func (d *Deferred) Put(t *Thread, tag uint8, n uint64, args ...uint64) {
	e := &d.entries[d.n]
	d.n++
	e.tag, e.argc, e.n = tag, uint8(len(args)), n
	copy(e.args[:], args)
	t.Defer()
}

// Entry returns the i-th entry d holds, in the order they were put: its
// tag, counter and arguments.
func (d *Deferred) Entry(i int) (tag uint8, n uint64, args []uint64) {
	e := &d.entries[i]
	return e.tag, e.n, e.args[:e.argc]
}

// Reset empties d.
func (d *Deferred) Reset() { d.n = 0 }
