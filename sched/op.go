package sched

import (
	"hash/fnv"
	"sync"
)

// An Op names a kind of operation, such as "Mutex.Lock". Ops are declared
// once, as package variables of the packages that define primitives, and
// passed by pointer to Step.
type Op struct {
	name   string
	hash   uint64
	id     uint32 // index in ops
	access Access
	pure   bool // changes nothing a goroutine could observe: reads, Now, Sleep, Yield
	try    bool // writes only if its object holds an expected value (NewTryOp)
}

// An Access says how an operation touches its object, in the event model
// recorders and replayers share (package record): a Var load reads its
// location, a store writes it, a Mutex.Lock reads and writes the mutex's
// ghost location, as in Light (PLDI'15, §4.3).
type Access uint8

// The kinds of Access.
const (
	NoAccess  Access = iota // touches no shared location (Sleep, Yield)
	Read                    // reads its object
	Write                   // writes its object
	ReadWrite               // reads and writes its object atomically
)

// String returns the access kind's name.
func (a Access) String() string {
	switch a {
	case Read:
		return "read"
	case Write:
		return "write"
	case ReadWrite:
		return "read-write"
	}
	return "none"
}

// ops lists every Op by id, so that the controller's records of an
// execution can name an operation without holding a pointer.
var ops struct {
	sync.Mutex
	all   []*Op
	names []string // the names of all, by id, once opNames asked
}

// NewOp declares an operation kind that touches no shared location.
func NewOp(name string) *Op { return newOp(name, NoAccess, false) }

// NewAccessOp declares an operation kind that accesses its object as a says.
// A Read changes nothing: pollers (see G.Polled) do not look again after
// one.
func NewAccessOp(name string, a Access) *Op { return newOp(name, a, a == Read) }

// NewPureOp declares an operation kind that touches no shared location and
// changes nothing another goroutine could observe (Now, Sleep, Yield):
// pollers do not look again after one. Declaring an operation that changes
// state pure would let a poller miss the change: when in doubt, NewOp.
func NewPureOp(name string) *Op { return newOp(name, NoAccess, true) }

// NewTryOp declares an operation kind that reads its object and writes it
// only if it holds an expected value, as CompareAndSwap does. A goroutine
// that spins on the object (see spin.go) waits at such an operation, as at
// a yield, until the object holds another value than the one it saw: the
// operation would fail again.
func NewTryOp(name string) *Op {
	o := newOp(name, ReadWrite, false)
	o.try = true
	return o
}

func newOp(name string, a Access, pure bool) *Op {
	h := fnv.New64a()
	h.Write([]byte(name))
	ops.Lock()
	defer ops.Unlock()
	o := &Op{name: name, hash: h.Sum64(), id: uint32(len(ops.all)), access: a, pure: pure}
	ops.all = append(ops.all, o)
	return o
}

// opNames returns the names of the ops declared so far, by id. The caller
// must not change them.
func opNames() []string {
	ops.Lock()
	defer ops.Unlock()
	for _, o := range ops.all[len(ops.names):] {
		ops.names = append(ops.names, o.name)
	}
	return ops.names[:len(ops.names):len(ops.names)]
}

// Access returns how the operation touches its object.
func (o *Op) Access() Access {
	if o == nil {
		return NoAccess
	}
	return o.access
}

// String returns the operation's name.
func (o *Op) String() string {
	if o == nil {
		return "?"
	}
	return o.name
}

// The operations the controller itself performs.
var (
	opStart = NewOp("start")
	opExit  = NewOp("exit")
	opFire  = NewOp("timer fires")
	opVisit = NewOp("visit") // a goroutine outside the execution's operation (visit.go)
)

// A Waiter tells whether a pending operation can proceed. The controller
// only runs goroutines whose pending operation is ready; a goroutine waiting
// for a held mutex, an empty channel or a timer is not enabled.
//
// Ready is called by the controller from whichever controlled goroutine is
// running, so it may read any state of the execution, but must not change it.
type Waiter interface {
	Ready() bool
}

// A SharedWaiter is a Waiter that stands for a condition of its object
// alone, the same for every goroutine waiting on it: every goroutine
// blocked in Lock of one mutex passes the same one (a pointer, compared
// with ==) with the mutex's object to Step. The controller then keeps
// those goroutines as one group, and asks the Waiter once for all of them
// when the object changes, so that an unlock costs the same with one
// goroutine waiting for the lock or ten thousand.
type SharedWaiter interface {
	Waiter
	// Shared marks the Waiter as shared; it does nothing.
	Shared()
}

// never is the Waiter of an operation that can never proceed, such as a send
// on a nil channel.
type never struct{}

func (never) Ready() bool { return false }

// Never is a Waiter that is never ready.
var Never Waiter = never{}
