// Package maprange ranges over maps in every form the rewriter rewrites.
package maprange

import (
	"slices"
	"sort"
)

// Addr is a key of two strings, as GoKer's etcd_7443 has.
type Addr struct{ Host, Port string }

// Conns is a named map type.
type Conns map[Addr]*int

// Keys returns the keys of m, sorted.
func Keys(m map[string]int) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Closures returns a function per entry, each of which sees its own
// variables (Go 1.22), and declares them again in the body.
func Closures(c Conns) []func() string {
	var fs []func() string
	for a, p := range c {
		a := a
		fs = append(fs, func() string { return a.Host + ":" + a.Port + "=" + string(rune('0'+*p)) })
	}
	return fs
}

// Total sums the values, through the assignment form, into variables of
// other types than the map's.
func Total(m map[int]int) (sum int, last any) {
	var k any
	var box struct{ v int }
	for k, box.v = range m {
		sum += box.v
		last = k
	}
	return sum, last
}

// Labeled breaks, continues and jumps out of nested loops over maps.
func Labeled(m map[int][]int) (n int) {
outer:
	for k, vs := range m {
		for _, v := range vs {
			switch {
			case v < 0:
				continue outer
			case v > 100:
				break outer
			case k == 99:
				goto done
			}
			n++
		}
	}
done:
	return n
}

// Find returns from inside the loop and defers in it.
func Find(m map[string]int, want int) (key string, deferred int) {
	defer func() {}()
	for k, v := range m {
		defer func() { deferred++ }()
		if v == want {
			return k, 0
		}
	}
	return "", 0
}

// Count ranges without variables, in all three spellings.
func Count(m map[Addr]bool) int {
	n := 0
	for range m {
		n++
	}
	for _ = range m {
		n++
	}
	for _, _ = range m {
		n++
	}
	return n / 3
}

// Values ranges over a map of a type parameter, and over one whose core
// type is a map.
func Values[M ~map[K]V, K comparable, V any](m M) []V {
	var out []V
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// Sum ranges over a map[K]V spelled out.
func Sum[K comparable](m map[K]float64) float64 {
	s := 0.0
	for k, v := range m {
		_ = k
		s += v
	}
	return s
}

// Drain receives from each channel of a map of channels, which the
// rewriter rewrites to weft's.
func Drain(m map[string]chan int) []int {
	var out []int
	for name, ch := range m {
		_ = name
		out = append(out, <-ch)
	}
	slices.Sort(out)
	return out
}

// calls counts the calls of source.
var calls int

func source(n int) map[int]int {
	calls++
	m := map[int]int{}
	for i := 1; i <= n; i++ {
		m[i] = i
	}
	return m
}

// Once ranges over a map a call returns, spelled over several lines: the
// call is made once.
func Once() (int, int) {
	calls = 0
	n := 0
	for k := range source(
		3,
	) {
		n += k
	}
	return n, calls
}

// Deleting deletes the entries after the first: they are not produced.
func Deleting(m map[int]int) int {
	n := 0
	for k := range m {
		n++
		for j := range m {
			if j != k {
				delete(m, j)
			}
		}
	}
	return n
}
