package gostmts

import (
	"sync"
	"time"

	"example.com/gostmts/ext"
)

func wait(d time.Duration, done chan bool) { done <- true }
func ptr(p *int, done chan bool)           { done <- p == nil }
func wide(n int64, done chan int64)        { done <- n }
func sum(done chan int, xs ...int) {
	s := 0
	for _, x := range xs {
		s += x
	}
	done <- s
}
func two() (int, int)              { return 1, 2 }
func pair(a, b int)                { pairs <- a + b }
func add(a, b int, done chan int)  { done <- a + b }
func echo[T any](v T, done chan T) { done <- v }

var pairs = make(chan int, 1)

type flag bool

func flagged(f flag, done chan flag) { done <- f }

type counter struct {
	mu sync.Mutex
	n  int
}

func (c *counter) inc(done chan bool) {
	c.mu.Lock()
	c.n++
	c.mu.Unlock()
	done <- true
}

// Starts starts goroutines of every kind and waits for them.
func Starts() []any {
	var out []any
	b := make(chan bool)
	go wait(0, b) // an untyped constant for a time.Duration
	out = append(out, <-b)
	go ptr(nil, b) // nil
	out = append(out, <-b)
	const n = 2
	w := make(chan int64)
	go wide(n+1, w) // an untyped constant expression for an int64
	out = append(out, <-w)
	i := make(chan int)
	xs := []int{1, 2}
	go sum(i, xs...) // variadic, spread
	out = append(out, <-i)
	go sum(i, 1, 2, 3) // variadic
	out = append(out, <-i)
	c := &counter{}
	inc := c.inc
	go inc(b) // a method value
	<-b
	go c.inc(b) // a method call: the receiver is evaluated now
	<-b
	out = append(out, c.n)
	go echo(4, i) // a generic function, inferred
	out = append(out, <-i)
	go echo[int](5, i) // instantiated
	out = append(out, <-i)
	x, y := 1, 2
	f := make(chan flag)
	go flagged(x < y, f) // an untyped comparison for a named bool
	out = append(out, bool(<-f))
	go func(v int) { i <- v }(9) // a literal with an argument
	out = append(out, <-i)
	e := make(chan bool)
	go ext.Work(e) // a function weft does not instrument: a plain goroutine
	out = append(out, <-e)
	done := make(chan struct{})
	go close(done) // a builtin
	<-done
	go println()   // another
	go pair(two()) // the results of a call, one argument each
	out = append(out, <-pairs)
	p := pair
	go p(two()) // the same, with a function value evaluated now
	out = append(out, <-pairs)
	return out
}
