// Package simctx is package context built from weft's primitives: a
// Context whose cancellation and deadlines are events of weft's schedule
// controller and run on virtual time.
//
// The API mirrors package context, but for Done, which returns a
// *sim.Chan[struct{}] rather than a raw channel, so that a goroutine waiting
// for cancellation is known to weft:
//
//	ctx, cancel := simctx.WithTimeout(simctx.Background(), time.Hour)
//	defer cancel()
//	sim.Select(
//		sim.OnRecv(ctx.Done(), func(struct{}) { err = ctx.Err() }),
//		sim.OnRecv(results, func(r Result) { res = r }),
//	)
//
// Semantics are package context's: cancellation propagates from a parent to
// its children and never back; canceling a context removes it from its
// parent; Err is set before Done is closed; a deadline that has already
// passed cancels the context at once with DeadlineExceeded; a child's
// deadline is the earlier of its own and its parent's. Err, Cause and the
// errors are the same values as package context's (Canceled and
// DeadlineExceeded are context.Canceled and context.DeadlineExceeded).
//
// Like every primitive of package sim, a context works in both modes. In
// plain mode it behaves like package context on real time, from any
// goroutine. Under control (weft.Check, sched.Run) its state is guarded by a
// sim.Mutex, Done is closed by Chan.Close, deadlines are sim timers and
// AfterFunc's function runs in a goroutine started with sim.Go: every
// cancellation is an event of the schedule, a deadline fires on the virtual
// clock (when it is due, when every goroutine is blocked and the clock
// jumps to it, or earlier at the strategy's choice, within its lag: see
// package sim's time), and a goroutine left
// blocked on the Done of a context that nobody cancels is reported as a
// leak. Done itself is not an event (it returns a channel made with the
// context, and only cancels it first if it finds the standard context of a
// FromStd ancestor done); Err and Cause are.
//
// A context that can be canceled belongs to plain mode or to one execution,
// as the state of the sim values it is built from does: create it in the
// execution (or plain code) that uses it. Contexts that are never canceled
// (Background, TODO, WithValue and WithoutCancel over them) can be shared
// freely.
//
// FromStd and ToStd cross the boundary with code that weft does not
// instrument; see their documentation for what they can and cannot promise
// under control.
package simctx

import (
	"cmp"
	"context"
	"reflect"
	"slices"
	"time"

	"github.com/weftdev/weft/sim"
)

// A Context carries a deadline, a cancellation signal, and other values
// across API boundaries, like context.Context. Its methods may be called by
// multiple goroutines simultaneously.
type Context interface {
	// Deadline returns the time when work done on behalf of this context
	// should be canceled; ok is false when no deadline is set. Under
	// control the deadline is on virtual time.
	Deadline() (deadline time.Time, ok bool)

	// Done returns a channel that is closed when this context is
	// canceled, or nil if it can never be. Receiving from it (Recv,
	// sim.OnRecv) waits for cancellation. Successive calls return the same
	// channel.
	Done() *sim.Chan[struct{}]

	// Err returns nil while Done is not closed; once it is, Canceled if
	// the context was canceled or DeadlineExceeded if its deadline
	// passed. After Err returns a non-nil error, it returns the same error.
	Err() error

	// Value returns the value associated with this context for key, or
	// nil.
	Value(key any) any
}

// Canceled is the error returned by Context.Err when the context is
// canceled for some reason other than its deadline passing. It is
// context.Canceled.
var Canceled = context.Canceled

// DeadlineExceeded is the error returned by Context.Err when the context is
// canceled due to its deadline passing. It is context.DeadlineExceeded.
var DeadlineExceeded error = context.DeadlineExceeded

// A CancelFunc tells an operation to abandon its work. It does not wait for
// the work to stop. It may be called by multiple goroutines simultaneously;
// after the first call, subsequent calls do nothing.
type CancelFunc func()

// A CancelCauseFunc behaves like a CancelFunc but additionally sets the
// cancellation cause, which Cause returns for the canceled context and its
// children. If the context has already been canceled, it does not set the
// cause. Calling it with nil sets the cause to Canceled.
type CancelCauseFunc func(cause error)

// An emptyCtx is never canceled, has no values and no deadline.
type emptyCtx struct{}

func (emptyCtx) Deadline() (deadline time.Time, ok bool) { return }
func (emptyCtx) Done() *sim.Chan[struct{}]               { return nil }
func (emptyCtx) Err() error                              { return nil }
func (emptyCtx) Value(key any) any                       { return nil }

type backgroundCtx struct{ emptyCtx }

func (backgroundCtx) String() string { return "simctx.Background" }

type todoCtx struct{ emptyCtx }

func (todoCtx) String() string { return "simctx.TODO" }

// Background returns a non-nil, empty Context. It is never canceled (its
// Done is nil), has no values and no deadline, like context.Background.
func Background() Context { return backgroundCtx{} }

// TODO returns a non-nil, empty Context, like context.TODO: use it where it
// is unclear which Context to use.
func TODO() Context { return todoCtx{} }

// WithCancel returns a derived context whose Done channel is closed when
// the returned cancel function is called or when the parent's Done channel
// is closed, whichever happens first. Canceling it releases the resources
// associated with it: call cancel as soon as the work it covers completes.
func WithCancel(parent Context) (ctx Context, cancel CancelFunc) {
	c := withCancel(parent)
	return c, func() { c.cancel(true, Canceled, nil) }
}

// WithCancelCause behaves like WithCancel but returns a CancelCauseFunc:
// calling it with a non-nil error records that error as the cause that
// Cause returns, while Err returns Canceled.
func WithCancelCause(parent Context) (ctx Context, cancel CancelCauseFunc) {
	c := withCancel(parent)
	return c, func(cause error) { c.cancel(true, Canceled, cause) }
}

func withCancel(parent Context) *cancelCtx {
	if parent == nil {
		panic("cannot create context from nil parent")
	}
	c := &cancelCtx{done: sim.NewChan[struct{}](0)}
	c.propagateCancel(parent, c)
	return c
}

// Cause returns a non-nil error explaining why c was canceled: the cause
// given to the CancelCauseFunc (or the ...Cause constructor) of the first
// cancellation of c or one of its parents, or otherwise c.Err(). It returns
// nil if c has not been canceled.
func Cause(c Context) error {
	err := c.Err()
	if err == nil {
		return nil
	}
	if cc, ok := c.Value(&cancelCtxKey).(*cancelCtx); ok {
		cc.mu.Lock()
		cause := cc.cause
		cc.mu.Unlock()
		if cause != nil {
			return cause
		}
		// c was canceled by a custom Context implementation below cc.
	}
	return err
}

// AfterFunc arranges to call f in its own goroutine (started with sim.Go)
// after ctx is canceled; if ctx is already canceled, f starts at once. Each
// call is independent of the others.
//
// Calling the returned stop function stops the association of ctx with f.
// It reports whether the call stopped f from being run; false means that f
// has been started, or was already stopped. stop does not wait for f to
// complete.
//
// If ctx has an "AfterFunc(func()) func() bool" method, AfterFunc uses it.
func AfterFunc(ctx Context, f func()) (stop func() bool) {
	a := &afterFuncCtx{f: f}
	a.done = sim.NewChan[struct{}](0)
	a.cancelCtx.propagateCancel(ctx, a)
	return func() bool {
		stopped := false
		a.once.Do(func() { stopped = true })
		if stopped {
			a.cancel(true, Canceled, nil)
		}
		return stopped
	}
}

type afterFuncer interface {
	AfterFunc(func()) func() bool
}

// An afterFuncCtx is the child of AfterFunc's context whose cancellation
// starts f.
type afterFuncCtx struct {
	cancelCtx
	once sim.Once // either starts f or stops it from running
	f    func()
}

func (a *afterFuncCtx) cancel(removeFromParent bool, err, cause error) {
	a.cancelCtx.cancel(false, err, cause)
	if removeFromParent {
		removeChild(a.Context, a)
	}
	a.once.Do(func() { sim.Go(a.f) })
}

// A stopCtx is the parent of a cancelCtx whose parent is canceled through
// its AfterFunc method; stop unregisters the callback.
type stopCtx struct {
	Context
	stop func() bool
}

// &cancelCtxKey is the key that a cancelCtx returns itself for.
var cancelCtxKey int

// parentCancelCtx returns the *cancelCtx underlying parent: the innermost
// enclosing one, provided parent's Done is its channel (a custom wrapper
// with its own Done is not bypassed).
func parentCancelCtx(parent Context) (*cancelCtx, bool) {
	done := parent.Done()
	if done == nil {
		return nil, false
	}
	p, ok := parent.Value(&cancelCtxKey).(*cancelCtx)
	if !ok || p.done != done {
		return nil, false
	}
	return p, true
}

// removeChild removes a context from its parent.
func removeChild(parent Context, child canceler) {
	if s, ok := parent.(stopCtx); ok {
		s.stop()
		return
	}
	p, ok := parentCancelCtx(parent)
	if !ok {
		return
	}
	p.mu.Lock()
	if p.children != nil {
		delete(p.children, child)
	}
	p.mu.Unlock()
}

// A canceler is a context that can be canceled directly: *cancelCtx,
// *timerCtx, *afterFuncCtx, *stdCtx.
type canceler interface {
	cancel(removeFromParent bool, err, cause error)
	Done() *sim.Chan[struct{}]
}

// A cancelCtx can be canceled. When canceled, it also cancels its children.
type cancelCtx struct {
	Context // the parent

	mu   sim.Mutex           // guards the fields below
	done *sim.Chan[struct{}] // made with the context, closed by the first cancel
	// children maps each child to the order it was added in: children are
	// canceled in that order, so that an execution replays exactly (a
	// map's iteration order would not). Nil once canceled.
	children map[canceler]uint64
	added    uint64
	err      error         // set by the first cancel
	cause    error         // set by the first cancel
	raw      chan struct{} // ToStd's Done, made on demand, closed by the first cancel

	// ext is the nearest FromStd ancestor, whose cancellation from outside
	// Done and Err check for; nil if none.
	ext *stdCtx
}

func (c *cancelCtx) Value(key any) any {
	if key == &cancelCtxKey {
		return c
	}
	return value(c.Context, key)
}

func (c *cancelCtx) Done() *sim.Chan[struct{}] {
	c.poll()
	return c.done
}

func (c *cancelCtx) Err() error {
	c.poll()
	c.mu.Lock()
	err := c.err
	c.mu.Unlock()
	return err
}

// poll cancels the FromStd ancestor, and with it c, if its standard
// context is done.
func (c *cancelCtx) poll() {
	if c.ext != nil {
		c.ext.poll()
	}
}

// rawDone returns a raw channel closed when c is canceled, for ToStd.
func (c *cancelCtx) rawDone() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.raw == nil {
		c.raw = make(chan struct{})
		if c.err != nil {
			close(c.raw)
		}
	}
	return c.raw
}

// propagateCancel sets c's parent and arranges for child (c itself, or the
// context embedding it) to be canceled when parent is.
func (c *cancelCtx) propagateCancel(parent Context, child canceler) {
	c.Context = parent

	done := parent.Done()
	if done == nil {
		return // parent is never canceled
	}

	if p, ok := parentCancelCtx(parent); ok {
		// parent is a *cancelCtx, or derives from one.
		c.ext = p.ext
		p.mu.Lock()
		if p.err != nil {
			child.cancel(false, p.err, p.cause)
		} else {
			if p.children == nil {
				p.children = make(map[canceler]uint64)
			}
			p.added++
			p.children[child] = p.added
		}
		p.mu.Unlock()
		return
	}

	if sim.Select(sim.OnRecv(done, nil), sim.OnDefault(nil)) == 0 {
		// parent is already canceled
		child.cancel(false, parent.Err(), Cause(parent))
		return
	}

	if a, ok := parent.(afterFuncer); ok {
		c.mu.Lock()
		stop := a.AfterFunc(func() {
			child.cancel(false, parent.Err(), Cause(parent))
		})
		c.Context = stopCtx{Context: parent, stop: stop}
		c.mu.Unlock()
		return
	}

	// A custom parent: a goroutine waits for either to be done.
	sim.Go(func() {
		if sim.Select(sim.OnRecv(done, nil), sim.OnRecv(child.Done(), nil)) == 0 {
			child.cancel(false, parent.Err(), Cause(parent))
		}
	})
}

// cancel records err and cause, closes c.done, cancels c's children and, if
// removeFromParent is true, removes c from its parent's children. Only the
// first call does anything.
func (c *cancelCtx) cancel(removeFromParent bool, err, cause error) {
	if err == nil {
		panic("simctx: internal error: missing cancel error")
	}
	if cause == nil {
		cause = err
	}
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return // already canceled
	}
	c.err, c.cause = err, cause
	c.done.Close()
	if c.raw != nil {
		close(c.raw)
	}
	children := c.sortedChildren()
	c.children = nil
	for _, child := range children {
		// The child's lock is taken while holding the parent's, as in
		// package context.
		child.cancel(false, err, cause)
	}
	c.mu.Unlock()

	if removeFromParent {
		removeChild(c.Context, c)
	}
}

// sortedChildren returns c's children in the order they were added.
func (c *cancelCtx) sortedChildren() []canceler {
	if len(c.children) == 0 {
		return nil
	}
	type entry struct {
		c canceler
		n uint64
	}
	es := make([]entry, 0, len(c.children))
	for ch, n := range c.children {
		es = append(es, entry{ch, n})
	}
	slices.SortFunc(es, func(a, b entry) int {
		return cmp.Compare(a.n, b.n)
	})
	out := make([]canceler, len(es))
	for i, e := range es {
		out[i] = e.c
	}
	return out
}

func (c *cancelCtx) String() string { return contextName(c.Context) + ".WithCancel" }

// WithoutCancel returns a derived context that carries parent's values but
// is not canceled when parent is: its Deadline, Err and Done are empty
// (Done is nil), and Cause returns nil.
func WithoutCancel(parent Context) Context {
	if parent == nil {
		panic("cannot create context from nil parent")
	}
	return withoutCancelCtx{parent}
}

type withoutCancelCtx struct {
	c Context
}

func (withoutCancelCtx) Deadline() (deadline time.Time, ok bool) { return }
func (withoutCancelCtx) Done() *sim.Chan[struct{}]               { return nil }
func (withoutCancelCtx) Err() error                              { return nil }
func (c withoutCancelCtx) Value(key any) any                     { return value(c, key) }
func (c withoutCancelCtx) String() string                        { return contextName(c.c) + ".WithoutCancel" }

// WithDeadline returns a derived context whose deadline is no later than d:
// its Done channel is closed when the deadline passes (on virtual time
// under control), when the returned cancel function is called, or when the
// parent's Done channel is closed, whichever happens first. If the parent's
// deadline is already earlier than d, it is WithCancel(parent); if d has
// already passed, the context is canceled at once with DeadlineExceeded.
// Call cancel as soon as the work it covers completes: it stops the timer.
func WithDeadline(parent Context, d time.Time) (Context, CancelFunc) {
	return WithDeadlineCause(parent, d, nil)
}

// WithDeadlineCause behaves like WithDeadline but also sets the cause of
// the returned context when the deadline is exceeded. The returned
// CancelFunc does not set the cause.
func WithDeadlineCause(parent Context, d time.Time, cause error) (Context, CancelFunc) {
	if parent == nil {
		panic("cannot create context from nil parent")
	}
	if cur, ok := parent.Deadline(); ok && cur.Before(d) {
		// The current deadline is already sooner than the new one.
		return WithCancel(parent)
	}
	c := &timerCtx{deadline: d}
	c.done = sim.NewChan[struct{}](0)
	c.cancelCtx.propagateCancel(parent, c)
	dur := sim.Until(d)
	if dur <= 0 {
		c.cancel(true, DeadlineExceeded, cause) // the deadline has already passed
		return c, func() { c.cancel(false, Canceled, nil) }
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil {
		c.timer = sim.AfterFunc(dur, func() {
			c.cancel(true, DeadlineExceeded, cause)
		})
	}
	return c, func() { c.cancel(true, Canceled, nil) }
}

// A timerCtx is a cancelCtx with a deadline, enforced by a sim timer.
type timerCtx struct {
	cancelCtx
	timer    *sim.Timer // under cancelCtx.mu
	deadline time.Time
}

func (c *timerCtx) Deadline() (deadline time.Time, ok bool) { return c.deadline, true }

func (c *timerCtx) String() string {
	return contextName(c.cancelCtx.Context) + ".WithDeadline(" + c.deadline.String() + ")"
}

func (c *timerCtx) cancel(removeFromParent bool, err, cause error) {
	c.cancelCtx.cancel(false, err, cause)
	if removeFromParent {
		removeChild(c.cancelCtx.Context, c)
	}
	c.mu.Lock()
	if c.timer != nil {
		c.timer.Stop()
		c.timer = nil
	}
	c.mu.Unlock()
}

// WithTimeout returns WithDeadline(parent, sim.Now().Add(timeout)): under
// control the timeout runs on virtual time.
func WithTimeout(parent Context, timeout time.Duration) (Context, CancelFunc) {
	return WithDeadline(parent, sim.Now().Add(timeout))
}

// WithTimeoutCause behaves like WithTimeout but also sets the cause of the
// returned context when the timeout expires. The returned CancelFunc does
// not set the cause.
func WithTimeoutCause(parent Context, timeout time.Duration, cause error) (Context, CancelFunc) {
	return WithDeadlineCause(parent, sim.Now().Add(timeout), cause)
}

// WithValue returns a derived context in which the value associated with
// key is val. The key must be comparable (WithValue panics on a nil or
// non-comparable key) and, as with package context, should be of a type of
// its own rather than a built-in type.
func WithValue(parent Context, key, val any) Context {
	if parent == nil {
		panic("cannot create context from nil parent")
	}
	if key == nil {
		panic("nil key")
	}
	if !reflect.TypeOf(key).Comparable() {
		panic("key is not comparable")
	}
	return &valueCtx{parent, key, val}
}

// A valueCtx carries a key-value pair and delegates everything else to its
// parent.
type valueCtx struct {
	Context
	key, val any
}

func (c *valueCtx) Value(key any) any {
	if c.key == key {
		return c.val
	}
	return value(c.Context, key)
}

func (c *valueCtx) String() string {
	return contextName(c.Context) + ".WithValue(" + stringify(c.key) + ", " + stringify(c.val) + ")"
}

// value looks key up from c to the root, without recursion through this
// package's own types.
func value(c Context, key any) any {
	for {
		switch ctx := c.(type) {
		case *valueCtx:
			if key == ctx.key {
				return ctx.val
			}
			c = ctx.Context
		case *cancelCtx:
			if key == &cancelCtxKey {
				return c
			}
			c = ctx.Context
		case *timerCtx:
			if key == &cancelCtxKey {
				return &ctx.cancelCtx
			}
			c = ctx.Context
		case withoutCancelCtx:
			if key == &cancelCtxKey {
				return nil // Cause(WithoutCancel(ctx)) is nil
			}
			c = ctx.c
		case backgroundCtx, todoCtx:
			return nil
		default:
			return c.Value(key)
		}
	}
}

type stringer interface{ String() string }

func contextName(c Context) string {
	if s, ok := c.(stringer); ok {
		return s.String()
	}
	return reflect.TypeOf(c).String()
}

func stringify(v any) string {
	switch s := v.(type) {
	case stringer:
		return s.String()
	case string:
		return s
	case nil:
		return "<nil>"
	}
	return reflect.TypeOf(v).String()
}
