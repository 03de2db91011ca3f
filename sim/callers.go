package sim

import (
	"runtime"
	"strings"

	"github.com/weftdev/weft/internal/frames"
)

// Callers is runtime.Callers as go test would fill pc: weft's frames are
// left out (a controlled goroutine runs on weft's worker, and a test's
// body on weft's runner), and a test's body is called by testing.tRunner,
// as under go test. A logger that reports its caller a number of frames
// up (go.uber.org/zap's AddCallerSkip) then finds the frame go test has
// there, runtime.goexit at the bottom.
//
//go:noinline
func Callers(skip int, pc []uintptr) int {
	st := stackAsGo()
	if skip == 0 {
		// Frame 0 is runtime.Callers itself.
		var self [1]uintptr
		runtime.Callers(0, self[:])
		st = append(self[:], st...)
	} else {
		skip--
	}
	if skip < 0 || skip >= len(st) {
		return 0
	}
	return copy(pc, st[skip:])
}

// Caller is runtime.Caller on the stack as Callers shows it.
//
//go:noinline
func Caller(skip int) (pc uintptr, file string, line int, ok bool) {
	st := stackAsGo()
	if skip < 0 || skip >= len(st) {
		return 0, "", 0, false
	}
	f, _ := runtime.CallersFrames(st[skip : skip+1]).Next()
	return f.PC, f.File, f.Line, f.PC != 0
}

// stackAsGo returns the return PCs of the calling goroutine's stack, one a
// frame, from the caller of the function of sim that calls it, as go test
// would show them (asGo).
//
//go:noinline
func stackAsGo() []uintptr {
	pcs := make([]uintptr, 64)
	for {
		// Skip runtime.Callers, stackAsGo and its caller in sim.
		n := runtime.Callers(3, pcs)
		if n < len(pcs) {
			return asGo(pcs[:n], frames.TestRunner())
		}
		pcs = make([]uintptr, 2*len(pcs))
	}
}

// asGo returns pcs, the return PCs of a goroutine's stack as
// runtime.Callers gives them (one a frame, inlined ones included), as go
// test would give them: without weft's frames, and where weft's test runner
// (its package testing) calls the program's code, with runner, a return PC
// in testing.tRunner, and runtime.goexit below it. It reuses pcs.
func asGo(pcs []uintptr, runner uintptr) []uintptr {
	if len(pcs) == 0 {
		return pcs
	}
	last := pcs[len(pcs)-1]
	out := pcs[:0]
	for _, pc := range pcs {
		fn := runtime.FuncForPC(pc - 1)
		if fn == nil {
			out = append(out, pc)
			continue
		}
		name := fn.Name()
		file, _ := fn.FileLine(pc - 1)
		if !frames.WeftFunction(name) && !frames.WeftFile(file) {
			out = append(out, pc)
			continue
		}
		if runner != 0 && len(out) > 0 && strings.HasPrefix(name, weftPrefix+"testing.") {
			out = append(out, runner)
			if f := runtime.FuncForPC(last - 1); f != nil && f.Name() == "runtime.goexit" {
				out = append(out, last)
			}
			return out
		}
	}
	return out
}

// Frames is runtime.Frames, which weft test gives for runtime's: the
// functions of its frames are named as go test names them, a test's body
// (the closure TestX.func1 that weft test runs) as the test function TestX
// (go.uber.org/zap's TestStacktraceWithCallerSkip looks for the test
// function in a stack trace with ".", a closure's, after it).
type Frames struct {
	frames *runtime.Frames
}

// CallersFrames is runtime.CallersFrames, with its frames' functions named
// as go test names them (see Frames).
func CallersFrames(callers []uintptr) *Frames {
	return &Frames{frames: runtime.CallersFrames(callers)}
}

// Next is runtime.Frames' Next, the frame's function named as go test
// names it.
func (f *Frames) Next() (frame runtime.Frame, more bool) {
	if f == nil || f.frames == nil {
		return runtime.Frame{}, false
	}
	frame, more = f.frames.Next()
	frame.Function = frames.Rename(frame.Function)
	return frame, more
}

// Func is runtime.Func, which weft test gives for runtime's: its Name is
// the function's as go test names it (see Frames). github.com/pkg/errors
// names a stack's frames with runtime.FuncForPC(pc).Name(), and
// rs/zerolog's pkgerrors tests look for the test function there.
type Func struct {
	fn *runtime.Func
}

// FuncForPC is runtime.FuncForPC: nil where runtime's is nil.
func FuncForPC(pc uintptr) *Func {
	fn := runtime.FuncForPC(pc)
	if fn == nil {
		return nil
	}
	return &Func{fn: fn}
}

// Name is runtime.Func's Name, as go test names the function.
func (f *Func) Name() string {
	if f == nil {
		return ""
	}
	return frames.Rename(f.fn.Name())
}

// Entry is runtime.Func's Entry.
func (f *Func) Entry() uintptr {
	if f == nil {
		return 0
	}
	return f.fn.Entry()
}

// FileLine is runtime.Func's FileLine.
func (f *Func) FileLine(pc uintptr) (file string, line int) {
	if f == nil {
		return "", 0
	}
	return f.fn.FileLine(pc)
}
