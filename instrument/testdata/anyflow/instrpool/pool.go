// Package instrpool is reduced from panjf2000/ants' PoolWithFunc: a pool
// hands each argument of Invoke, an any, to a function given by its user,
// through a channel of interfaces. Whether the channels its users pass
// stay Go's is decided on both sides: here (Pool formats the arguments it
// drops, so they reach fmt) and in the user's function, which asserts
// them back (Quiet's user formats them itself).
package instrpool

import (
	"fmt"
	"sync"
	"sync/atomic"
)

// Pool runs fn on each argument of Invoke, one at a time.
type Pool struct {
	fn     func(any)
	args   chan any
	done   chan struct{}
	closed bool
}

// New starts a pool that runs fn.
func New(fn func(any)) *Pool {
	p := &Pool{fn: fn, args: make(chan any), done: make(chan struct{})}
	go func() {
		for arg := range p.args {
			p.fn(arg)
			p.done <- struct{}{}
		}
	}()
	return p
}

// Invoke hands arg to the pool's function; an argument given to a closed
// pool is dropped, with an error that shows it.
func (p *Pool) Invoke(arg any) error {
	if p.closed {
		return fmt.Errorf("instrpool: closed, %v dropped", arg)
	}
	p.args <- arg
	return nil
}

// Wait waits for the function to return for one argument.
func (p *Pool) Wait() { <-p.done }

// Close stops the pool.
func (p *Pool) Close() {
	p.closed = true
	close(p.args)
}

// Quiet is a Pool that never shows its arguments.
type Quiet struct {
	fn   func(any)
	args chan any
	done chan struct{}
}

// NewQuiet starts a quiet pool that runs fn.
func NewQuiet(fn func(any)) *Quiet {
	q := &Quiet{fn: fn, args: make(chan any), done: make(chan struct{})}
	go func() {
		for arg := range q.args {
			q.fn(arg)
			q.done <- struct{}{}
		}
	}()
	return q
}

// Invoke hands arg to the pool's function.
func (q *Quiet) Invoke(arg any) { q.args <- arg }

// Wait waits for the function to return for one argument.
func (q *Quiet) Wait() { <-q.done }

// Close stops the pool.
func (q *Quiet) Close() { close(q.args) }

// Box holds values of any type, by name and in order, and shows them.
type Box struct {
	named  map[string]any
	list   []any
	latest atomic.Value
	spare  sync.Pool
}

// Put adds v under k.
func (b *Box) Put(k string, v any) {
	if b.named == nil {
		b.named = map[string]any{}
	}
	b.named[k] = v
	b.list = append(b.list, v)
}

// Get returns the value under k.
func (b *Box) Get(k string) any { return b.named[k] }

// Last returns the value put last.
func (b *Box) Last() any { return b.list[len(b.list)-1] }

// String shows the values.
func (b *Box) String() string { return fmt.Sprint(b.list) }

// Keep keeps v as the latest value, and as a spare.
func (b *Box) Keep(v any) {
	b.latest.Store(v)
	b.spare.Put(v)
}

// Latest returns the value kept last.
func (b *Box) Latest() any { return b.latest.Load() }

// Spare returns a value kept, if there is one.
func (b *Box) Spare() any { return b.spare.Get() }

// Run runs fn in a goroutine, and returns a channel closed once it has
// returned. fn's results reach fmt; the channel, Run's unnamed result on
// the line that spells fn's unnamed any, need not stay Go's for that.
func Run(fn func() (any, error)) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		if v, err := fn(); err != nil {
			panic(fmt.Sprint(v, err))
		}
		close(done)
	}()
	return done
}
