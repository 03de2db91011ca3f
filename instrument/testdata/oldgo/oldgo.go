// Package oldgo is a module of Go 1.16: its rewritten files, which use
// sim's generic API, get a go1.21 build constraint, and keep the loop
// variables of their time.
package oldgo

import "sync"

// Captured returns what goroutines started in a loop saw of its variable:
// before Go 1.22, the one variable of the loop.
func Captured() []int {
	var mu sync.Mutex
	var wg sync.WaitGroup
	var seen []int
	fs := make([]func(), 0, 3)
	for i := 0; i < 3; i++ {
		fs = append(fs, func() {
			mu.Lock()
			seen = append(seen, i)
			mu.Unlock()
		})
	}
	for _, f := range fs {
		wg.Add(1)
		go func(f func()) {
			defer wg.Done()
			f()
		}(f)
	}
	wg.Wait()
	return seen
}

// Ranged ranges over a channel, closing over its variable.
func Ranged() []int {
	ch := make(chan int, 3)
	for i := 0; i < 3; i++ {
		ch <- i
	}
	close(ch)
	var fs []func() int
	for v := range ch {
		fs = append(fs, func() int { return v })
	}
	var out []int
	for _, f := range fs {
		out = append(out, f())
	}
	return out
}

// Labeled ranges over a channel under a label it breaks to.
func Labeled() int {
	ch := make(chan int, 3)
	for i := 0; i < 3; i++ {
		ch <- i
	}
	close(ch)
	n := 0
loop:
	for v := range ch {
		switch {
		case v == 2:
			break loop
		case v == 0:
			continue loop
		}
		n += v
	}
	return n
}
