// Package runtimestack reads its caller's stack, and holds atomics that
// its tests compare with reflect.DeepEqual: weft test calls sim's for
// runtime.Callers, runtime.CallersFrames and reflect.DeepEqual, which
// answer as go test's would.
package runtimestack

import (
	"runtime"
	"sync/atomic"
)

// Level holds an atomic level, as go.uber.org/zap's AtomicLevel does.
type Level struct{ l *atomic.Int32 }

// NewLevel returns a level of n.
func NewLevel(n int32) Level {
	l := Level{l: new(atomic.Int32)}
	l.l.Store(n)
	return l
}

// Callers returns the functions of its caller's stack.
func Callers() []string {
	pcs := make([]uintptr, 32)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs)])
	var fns []string
	for {
		f, more := frames.Next()
		fns = append(fns, f.Function)
		if !more {
			return fns
		}
	}
}

// CallerName returns the name of its caller's function as
// github.com/pkg/errors names a frame's: runtime.FuncForPC of the PC that
// runtime.Callers gives, held as a *runtime.Func.
func CallerName() string {
	pcs := make([]uintptr, 1)
	runtime.Callers(2, pcs)
	var fn *runtime.Func = runtime.FuncForPC(pcs[0] - 1)
	if fn == nil {
		return "unknown"
	}
	return fn.Name()
}
