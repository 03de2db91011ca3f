package simctx

import (
	"context"
	"runtime/pprof"
	"sync/atomic"
	"time"

	"github.com/weftdev/weft/sched"
	"github.com/weftdev/weft/sim"
)

// The boundary with code that weft does not instrument, which uses package
// context.

// FromStd returns a Context that carries ctx's values and deadline and is
// canceled when ctx is, with ctx's error and cause. FromStd(ToStd(c)) is
// c; FromStd(nil) is nil.
//
// A ctx that can never be canceled (its Done is nil) gives a context that
// can never be canceled either. Otherwise:
//
//   - In plain mode, the returned context is canceled when ctx is done, by a
//     callback registered with context.AfterFunc (no goroutine waits).
//   - Under control, a standard context is canceled from outside the
//     execution, which cannot be an event of its schedule. A ctx already
//     done when FromStd is called gives a context canceled at once. A later
//     cancellation only becomes visible lazily: the returned context and
//     its descendants check ctx whenever their Done or Err is called (or
//     Cause, or a context is derived from them), and then cancel themselves.
//     A goroutine already blocked on Done is not woken by ctx's
//     cancellation alone. Whether a check sees it depends on real timing,
//     so an execution that depends on it does not replay exactly. Deadline
//     reports ctx's deadline, which is on real time while the execution's
//     clock is virtual (it starts at sched.Epoch, in 2000): only ctx's
//     cancellation counts, not that deadline.
//
// The returned context follows the mode it was created in: create it on
// the goroutines (plain or controlled) that use it.
func FromStd(ctx context.Context) Context {
	if ctx == nil {
		return nil // as ToStd: a conversion keeps a nil context nil
	}
	if v, ok := ctx.(*stdView); ok {
		return v.c
	}
	if ctx.Done() == nil {
		return fromStd{ctx}
	}
	s := &stdCtx{std: ctx}
	s.Context = fromStd{ctx}
	s.done = sim.NewChan[struct{}](0)
	s.ext = s
	s.poll() // already done: canceled at once
	if !s.polled.Load() && sched.Current() == nil {
		context.AfterFunc(ctx, func() {
			// This goroutine was started by whoever canceled ctx; it
			// belongs to no execution even if that one did, so that s's
			// plain-mode state is what changes.
			pprof.SetGoroutineLabels(context.Background())
			s.poll()
		})
	}
	return s
}

// A fromStd is a standard context that is never canceled seen as a
// Context, and the parent of a stdCtx, carrying the standard context's
// values and deadline.
type fromStd struct{ std context.Context }

func (c fromStd) Deadline() (deadline time.Time, ok bool) { return c.std.Deadline() }
func (c fromStd) Done() *sim.Chan[struct{}]               { return nil }
func (c fromStd) Err() error                              { return c.std.Err() }
func (c fromStd) Value(key any) any                       { return c.std.Value(key) }
func (c fromStd) String() string                          { return "simctx.FromStd(" + stdName(c.std) + ")" }

// A stdCtx is a standard context that can be canceled, seen as a Context: a
// cancelCtx canceled when its standard context is found done.
type stdCtx struct {
	cancelCtx
	std    context.Context
	polled atomic.Bool // std was found done and s canceled
}

// poll cancels s if its standard context is done. It is not an event
// unless it cancels s.
func (s *stdCtx) poll() {
	if s.polled.Load() {
		return
	}
	select {
	case <-s.std.Done():
		s.cancel(false, s.std.Err(), context.Cause(s.std))
		s.polled.Store(true)
	default:
	}
}

func (s *stdCtx) String() string { return "simctx.FromStd(" + stdName(s.std) + ")" }

func stdName(c context.Context) string {
	if s, ok := c.(stringer); ok {
		return s.String()
	}
	return "context"
}

// ToStd returns a context.Context view of ctx for code that weft does not
// instrument: its Done is a raw channel closed when ctx is canceled, and
// Err, Value and Deadline report ctx's. ToStd(FromStd(c)) is c,
// ToStd(Background()) is context.Background() and ToStd(TODO()) is
// context.TODO().
//
// The view never performs an event of weft, so uninstrumented code may use
// it from any goroutine. When ctx is (or derives without a custom Context
// in between from) a context of this package, its raw Done is closed by
// the cancellation itself, in the same step as Err is set; for a custom
// Context it is closed by a goroutine started with AfterFunc. Either way,
// the view's Err is nil until its Done is closed. Under control, a
// goroutine blocked on the raw channel blocks outside weft's knowledge.
//
// A nil ctx gives a nil context.Context, which code weft does not
// instrument gets as it would without weft (log/slog's Logger.Log takes a
// nil context for context.Background(): go.uber.org/fx's SlogLogger).
//
// Limits: context.Cause of the view returns its Err, not ctx's cause (use
// Cause on ctx); contexts that package context derives from the view are
// canceled by a goroutine of package context that waits on the raw
// channel, which under control must end (its context canceled) before the
// execution does, or weft reports it as an escape.
func ToStd(ctx Context) context.Context {
	if ctx == nil {
		return nil
	}
	switch c := ctx.(type) {
	case *stdCtx:
		return c.std
	case fromStd:
		return c.std
	case backgroundCtx:
		return context.Background()
	case todoCtx:
		return context.TODO()
	}
	v := &stdView{c: ctx}
	if ctx.Done() == nil {
		return v
	}
	if p, ok := parentCancelCtx(ctx); ok {
		v.cc = p
		v.done = p.rawDone()
		return v
	}
	raw := make(chan struct{})
	v.done = raw
	AfterFunc(ctx, func() {
		v.err = ctx.Err()
		close(raw)
	})
	return v
}

// A stdView is ToStd's view of a Context. It reads only what is immutable
// once its raw channel is closed, so it needs no lock of weft's.
type stdView struct {
	c    Context
	done <-chan struct{} // nil if c is never canceled
	cc   *cancelCtx      // c's cancelCtx, which closes done; nil for a custom Context
	err  error           // for a custom Context: c's error, set before done is closed
}

func (v *stdView) Deadline() (deadline time.Time, ok bool) { return v.c.Deadline() }
func (v *stdView) Done() <-chan struct{}                   { return v.done }
func (v *stdView) Value(key any) any                       { return v.c.Value(key) }
func (v *stdView) String() string                          { return "simctx.ToStd(" + contextName(v.c) + ")" }

func (v *stdView) Err() error {
	if v.done == nil {
		return nil
	}
	select {
	case <-v.done:
	default:
		return nil
	}
	if v.cc != nil {
		return v.cc.err // set before done was closed, never changed after
	}
	return v.err
}
