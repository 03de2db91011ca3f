// Package record records free-running executions: the goroutines of a test
// run truly in parallel, under the Go scheduler and GOMAXPROCS as set, and
// every operation of a weft primitive is reported to a Recorder, which logs
// what a replay needs to reproduce the execution under the controller.
//
// # The event model
//
// Every sim operation is an access to a location (a Var, an atomic, the ghost
// location of a mutex, a channel, a WaitGroup, a Cond, a Once), of one of the
// kinds sched.Access names: a Var load reads, a store writes, an atomic Add
// and a Mutex.Lock read and write atomically, an Unlock writes (Light, §4.3).
// Goroutines are Threads, named by lineage with the controller's own
// helper (internal/lineage: "0", "0.1", ...), and every Thread counts its
// operations as the controller's G.Ops does, so that a recorded access and
// its replayed twin are matched by (goroutine, counter).
//
// A primitive reports a memory access (Var, atomics) with a bracket:
// ReadBegin and ReadEnd around a load, repeated while ReadEnd asks for it
// (Light's optimistic read), WriteBegin and WriteEnd around a store or a
// read-modify-write (a recorder may hold a lock in between). Synchronization
// operations are reported with Sync, from inside the region the primitive
// itself makes exclusive: a Lock after acquiring, an Unlock before
// releasing, a channel operation under the channel's monitor. Their order is
// then the order of the reports, with no extra synchronization.
//
// # Recorders
//
// A recording algorithm is whole in its own package: its log format, its
// Recorder and the Planner that replays its logs (see Algorithm). Light,
// Stride, AggrePlay and LEAP are record/light, record/stride,
// record/aggreplay and record/leap; each registers itself when imported
// (record/all imports them all) and is selected by name (New). A recorder
// writes its own entries into the streams of the log (see Log): one stream
// per goroutine, written without synchronization, and one per location for
// recorders that keep per-location orders. Streams are flushed to the log
// file in chunks, so a long run never holds its log in memory.
package record

import (
	"sync"
	"sync/atomic"

	"github.com/weftdev/weft/sched"
)

// A Recorder logs the accesses of one free-running execution. Its methods
// are called concurrently by the execution's goroutines; each call names
// the calling goroutine's Thread, whose counter (Thread.N) identifies the
// operation.
type Recorder interface {
	// Algorithm returns the recorder's name, as New and logs spell it.
	Algorithm() string
	// NewThread initializes t's recorder state (Thread.State) before t
	// performs any operation.
	NewThread(t *Thread)
	// NewLoc initializes l's recorder state (Loc.State) before any access
	// to l is reported.
	NewLoc(l *Loc)
	// ReadBegin is called before t loads from l. The value it returns is
	// passed to ReadEnd.
	ReadBegin(t *Thread, l *Loc) uint64
	// ReadEnd is called after t loaded value (a digest of it) from l. It
	// returns true to have the load repeated: the read raced with a write.
	ReadEnd(t *Thread, l *Loc, begin uint64, value uint64) (again bool)
	// WriteBegin is called before t stores into l, or performs a
	// read-modify-write of l.
	WriteBegin(t *Thread, l *Loc)
	// WriteEnd is called after the store: a is sched.Write or
	// sched.ReadWrite, read the digest of the value read (for ReadWrite),
	// written that of the value written.
	WriteEnd(t *Thread, l *Loc, a sched.Access, read, written uint64)
	// Sync reports a synchronization access of t to l, made inside the
	// region the primitive makes exclusive for l. value is a digest of the
	// value it read, if any (a channel receive's).
	Sync(t *Thread, l *Loc, a sched.Access, value uint64)
	// ExitThread is called on t as it ends: the recorder writes what it
	// keeps for t into t's stream.
	ExitThread(t *Thread)
	// Close is called once every thread has exited (or the run was
	// abandoned): the recorder writes what it keeps per location.
	Close(locs []*Loc)
}

// A Releaser is a Recorder that finishes some of its work on a goroutine's
// reports after the primitive they were made in is released, outside the
// program's critical section: a report made under a mutex (its Lock's,
// its Unlock's, the accesses between) that calls Thread.Defer has
// Released called on the same goroutine once the mutex is free (or before
// anything else is written to the goroutine's stream, or at its end).
//
// What a recorder does inside a critical section lengthens it, and the
// gap between two critical sections, where a race between them is won or
// lost, stays as short as the framework makes it: a waiter that takes the
// lock lands in that gap the less often, and the bug the recording should
// catch is hidden (the probe effect; see internal/workload). Work that
// needs no exclusion, such as coding a log entry, belongs after the
// release. Released must log exactly what the reports would have logged,
// in the same order.
type Releaser interface {
	Recorder
	// Released finishes the work t's reports deferred (Thread.Defer).
	Released(t *Thread)
}

// A Loc is a shared location of a recorded execution: the state of one sim
// object for the run, numbered from 1 in order of creation.
type Loc struct {
	id      uint32
	touched atomic.Uint64 // threads (by index, below 64) that logged their first touch
	// Mu is a lock a recorder may use to make its per-location work atomic
	// with the access.
	Mu sync.Mutex
	// Word is an atomic word for the recorder: Light's last writer, say.
	Word atomic.Uint64
	// State is the recorder's per-location state, set by NewLoc.
	State any
	// Stream is a per-location log stream, for recorders that keep a
	// per-location order (LEAP's access vector); writers must serialize
	// its use, as with Mu.
	Stream Stream
}

// ID returns the location's number in the run, from 1.
func (l *Loc) ID() uint32 { return l.id }
