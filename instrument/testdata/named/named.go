package named

import "fmt"

// Signal is a named channel type without methods: it becomes an alias of
// weft's channel, and conversions keep compiling.
type Signal <-chan struct{}

// Closed converts a channel to a Signal and waits on it.
func Closed() Signal {
	ch := make(chan struct{})
	close(ch)
	s := Signal(ch)
	<-s
	return s
}

// sem is a named channel type with methods: it becomes a struct holding
// weft's channel.
type sem chan struct{}

func (s sem) acquire()  { s <- struct{}{} }
func (s sem) release()  { <-s }
func (s sem) held() int { return len(s) }

// out is a send-only named channel type with a method.
type out chan<- int

func (o out) put(v int) { o <- v }

// Acquire takes n tokens of a semaphore made with make.
func Acquire(n int) int {
	s := make(sem, n)
	for range n {
		s.acquire()
	}
	held := s.held()
	s.release()
	return held
}

// Put sends through a conversion to a named type with a method.
func Put(v int) int {
	ch := make(chan int, 1)
	out(ch).put(v)
	return <-ch
}

// Implicit assigns unnamed channels to named ones and back, passes them
// and returns them, compares them with nil.
func Implicit() (int, bool) {
	var s sem = make(chan struct{}, 2) // unnamed to named
	var raw chan struct{} = s          // named to unnamed
	use(raw)
	s = take(raw)
	var none sem
	if none != nil || s == nil {
		return 0, false
	}
	none = nil
	select {
	case s <- struct{}{}:
	default:
	}
	return len(s), none == nil
}

func use(c chan struct{})        { c <- struct{}{} }
func take(c chan struct{}) sem   { return c }
func (s sem) String() string     { return fmt.Sprint(len(s)) }
func pair() (sem, chan struct{}) { c := make(chan struct{}, 1); return c, c }
func ranges(s sem) (n int) {
	close(s)
	for range s {
		n++
	}
	return n
}
func convert(c chan struct{}) bool { return sem(c) != nil }

// Queue is a generic named channel type.
type Queue[T any] chan T

// Push sends on a generic named channel.
func Push[T any](q Queue[T], v T) { q <- v }

// Printed hands a named channel to fmt: its type stays a Go channel.
type printed chan int

// Print prints one.
func Print() string {
	p := make(printed)
	return fmt.Sprintf("%T", p)
}
