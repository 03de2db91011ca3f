package sched

import (
	"fmt"
	"reflect"
	"runtime"
	"strconv"
	"testing"
)

// The cached site of a call stack is CallerSite's, whether the user frame
// is a few internal frames below the call or more than the first
// unwinding covers, and again once the cache holds them.
func TestSiteCacheMatchesCallerSite(t *testing.T) {
	s := new(siteCache)
	for range 2 {
		for depth := range 12 {
			r := &siteRecorder{cache: s}
			site := r.sprint(depth)
			if r.cached != r.want || r.want != site {
				t.Errorf("depth %d: cached site %q, CallerSite %q, want %q", depth, r.cached, r.want, site)
			}
		}
	}
}

// A siteRecorder is printed by fmt, from as deep inside fmt's frames (Go's,
// internal) as the slices that nest it: its String records the site of
// the user frame below them.
type siteRecorder struct {
	cache        *siteCache
	want, cached string
}

func (r *siteRecorder) String() string {
	r.want, r.cached = CallerSite(1), r.cache.callerSite(1)
	return ""
}

// sprint prints r nested in depth slices, and returns the site of its call
// of fmt.Sprint.
func (r *siteRecorder) sprint(depth int) string {
	v := reflect.ValueOf(r)
	for range depth {
		s := reflect.MakeSlice(reflect.SliceOf(v.Type()), 1, 1)
		s.Index(0).Set(v)
		v = s
	}
	_, line := fmt.Sprint(v.Interface()), callerLine()
	return "sites_test.go:" + strconv.Itoa(line)
}

// callerLine returns the line of its call.
func callerLine() int {
	_, _, line, _ := runtime.Caller(1)
	return line
}
