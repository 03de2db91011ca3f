// Package rangecall ranges over a channel that a call returns, as
// Workiva/go-datastructures' Ctrie.Size does over c.Iterator(nil): the
// call is made once, before the loop, as range evaluates its expression
// once.
package rangecall

// A Set holds values.
type Set struct{ vs []int }

// Iterator returns a channel on which a goroutine sends the set's values,
// then closes it.
func (s *Set) Iterator() <-chan int {
	ch := make(chan int)
	go func() {
		for _, v := range s.vs {
			ch <- v
		}
		close(ch)
	}()
	return ch
}

// Size counts the values the iterator sends.
func (s *Set) Size() int {
	n := 0
	for _ = range s.Iterator() {
		n++
	}
	return n
}

// Sum adds the values up, in a labeled loop.
func (s *Set) Sum() int {
	sum := 0
values:
	for v := range s.Iterator() {
		if v < 0 {
			break values
		}
		sum += v
	}
	return sum
}

// Count counts the values without naming them.
func (s *Set) Count() int {
	n := 0
	for range s.Iterator() {
		n++
	}
	return n
}
