// Package flows moves channels through the places a flow analysis must
// follow: embedded fields, function values, interfaces with channel
// methods, anonymous structs, generic types, channels of channels.
package flows

// Doner is implemented by types whose Done returns a channel.
type Doner interface{ Done() <-chan struct{} }

type base struct{ done chan struct{} }

func (b base) Done() <-chan struct{} { return b.done }

// Job embeds base: its Done is promoted.
type Job struct {
	base
	id int
}

// NewJob returns a job, as a Doner.
func NewJob(id int) Doner {
	j := Job{base: base{done: make(chan struct{})}, id: id}
	go func() { close(j.done) }()
	return j
}

// Wait waits for a Doner.
func Wait(d Doner) { <-d.Done() }

// Queue is a generic queue of channels.
type Queue[T any] struct{ items chan T }

// NewQueue makes a queue.
func NewQueue[T any](n int) *Queue[T] { return &Queue[T]{items: make(chan T, n)} }

// Put puts a value.
func (q *Queue[T]) Put(v T) { q.items <- v }

// Get gets one.
func (q *Queue[T]) Get() (T, bool) {
	select {
	case v := <-q.items:
		return v, true
	default:
		var zero T
		return zero, false
	}
}

// Relay hands channels through a function value, an anonymous struct and
// a channel of channels.
func Relay() int {
	var handle func(chan int) int = func(c chan int) int { return <-c }
	box := struct{ c chan int }{c: make(chan int, 1)}
	box.c <- 7
	chans := make(chan chan int, 1)
	chans <- box.c
	var got int
	select {
	case c := <-chans:
		got = handle(c)
	}
	out := map[string][]chan int{"a": {box.c}}
	out["a"][0] <- 2
	return got + <-out["a"][0]
}
