package sim

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"

	"github.com/weftdev/weft/internal/frames"
)

// weftPrefix begins the import paths of weft's packages.
const weftPrefix = frames.Module + "/"

// Stack is runtime.Stack as go test would show it: the frames of weft's
// packages (a controlled goroutine's scheduler and primitives, the worker
// it runs on, the exploration that runs the test) are left out of each
// goroutine's trace, and with all, so are the goroutines that are weft's
// alone (its idle workers, the watchdog). A leak checker that reads the
// dump (go.uber.org/goleak) then sees the goroutines the test has, with
// their own functions on top, as its options name them.
func Stack(buf []byte, all bool) int {
	if g, _ := who(); g != nil {
		// The test's own goroutine, which the dump hides, tells what the
		// root shows, even in the current goroutine's trace alone.
		return copy(buf, controlledDump(g, runtimeStack(len(buf), true), all))
	}
	return copy(buf, withoutWeft(runtimeStack(len(buf), all)))
}

// runtimeStack returns runtime.Stack's whole dump, in a buffer of at least
// size bytes.
func runtimeStack(size int, all bool) []byte {
	dump := make([]byte, max(size, 64<<10))
	for {
		n := runtime.Stack(dump, all)
		if n < len(dump) {
			return dump[:n]
		}
		dump = make([]byte, 2*len(dump))
	}
}

// withoutWeft returns a goroutine dump without weft's frames, and without
// the goroutines that are weft's.
func withoutWeft(dump []byte) []byte {
	var out []byte
	for _, g := range bytes.Split(bytes.TrimRight(dump, "\n"), []byte("\n\n")) {
		kept, ok := goroutineTrace(g)
		if !ok {
			continue
		}
		if len(out) > 0 {
			out = append(out, "\n\n"...)
		}
		out = append(out, kept...)
	}
	if len(out) > 0 {
		out = append(out, '\n')
	}
	return out
}

// A frame is a function line of a goroutine's trace (or its "created by"
// line), with the file line that follows it, if any.
type frame struct {
	fn, file []byte
}

// weft reports whether the frame is a function of weft's runtime, or code
// of weft's inlined into another package's function (a closure of weft's
// TB.Run, inlined into the test's body, is named after the body).
func (f frame) weft() bool {
	if f.weftFunction() {
		return true
	}
	file := bytes.TrimSpace(f.file)
	if i := bytes.LastIndexByte(file, ':'); i > 0 && !bytes.HasPrefix(f.fn, []byte("created by ")) {
		return frames.WeftFile(string(file[:i]))
	}
	return false
}

// weftFunction reports whether the frame's function is one of weft's
// runtime, by its name.
func (f frame) weftFunction() bool {
	return frames.WeftFunction(strings.TrimPrefix(string(f.fn), "created by "))
}

// std reports whether the frame is a function of the standard library.
func (f frame) std() bool { return frames.StdFile(string(bytes.TrimSpace(f.file))) }

// goroutineTrace returns one goroutine's trace without weft's frames and
// the standard library's frames above the topmost (which weft called), or false
// for a goroutine that is weft's: one with weft's frames and none of
// the program's but the standard library's (an idle worker, the
// watchdog), or one that is not a controlled goroutine and waits in
// weft's runtime (the test's own goroutine, waiting for the executions
// that run its body) rather than in a primitive of sim.
func goroutineTrace(g []byte) ([]byte, bool) {
	header, frames := parseTrace(g)
	out, own := keptFrames(frames)
	if !own {
		return nil, false
	}
	if out == nil {
		return g, true
	}
	return append(append([]byte(nil), header...), out...), true
}

// keptFrames returns the lines of a goroutine's frames that goroutineTrace
// keeps, each after a newline, and whether the program's code is among
// them; nil if no frame is weft's (all are kept), and nil and false for a
// goroutine that is weft's.
func keptFrames(frames []frame) ([]byte, bool) {
	top, controlled := -1, false
	for i, f := range frames {
		if f.weft() {
			if top < 0 {
				top = i
			}
			controlled = controlled || bytes.HasPrefix(f.fn, []byte(weftPrefix+"sched.(*Controller).goroutine("))
		}
	}
	if top < 0 {
		return nil, true
	}
	if !controlled {
		for _, f := range frames {
			if !f.std() {
				// By its name: a function of the program that weft's code
				// was inlined into is the program's.
				if f.weftFunction() && !bytes.HasPrefix(f.fn, []byte(weftPrefix+"sim.")) {
					return nil, false
				}
				break
			}
		}
	}
	// The frames above the topmost of weft's are weft's callees if they
	// are the standard library's (a wait of the scheduler's).
	from := top
	for _, f := range frames[:top] {
		if !f.std() {
			from = 0
		}
	}
	out := []byte{}
	own := false
	for i, f := range frames[from:] {
		if f.weft() {
			// weft's own but for a twin of sync's called by the program,
			// which shows as sync's method (its file is still weft's).
			twin := f
			if next := from + i + 1; next < len(frames) && !frames[next].weft() {
				twin = syncTwin(f)
			}
			if bytes.Equal(twin.fn, f.fn) {
				continue
			}
			f = twin
		}
		own = own || !f.std()
		out = append(append(out, '\n'), f.fn...)
		if f.file != nil {
			out = append(append(out, '\n'), f.file...)
		}
	}
	return out, own
}

// syncTwins are the methods of sim's twins of sync's types, by the name
// sync gives them.
var syncTwins = map[string]bool{
	"Mutex.Lock": true, "Mutex.TryLock": true, "Mutex.Unlock": true,
	"RWMutex.Lock": true, "RWMutex.TryLock": true, "RWMutex.Unlock": true,
	"RWMutex.RLock": true, "RWMutex.TryRLock": true, "RWMutex.RUnlock": true,
	"WaitGroup.Wait": true, "WaitGroup.Go": true, "Cond.Wait": true, "Once.Do": true,
}

// syncTwin returns the frame of a method of sim's twin of a sync type,
// called by the program (the rewrite of a sync.Mutex's Lock), as the
// method of sync it stands for: go test's dump shows sync.(*Mutex).Lock
// there, which tests that wait for a goroutine to reach a lock look for
// in runtime.Stack (otter's waitForFrame); and weft's TB.Run as
// testing.(*T).Run. Any other frame is returned as it is.
func syncTwin(f frame) frame {
	if args, ok := bytes.CutPrefix(f.fn, []byte(weftPrefix+"testing.(*TB).Run(")); ok {
		// A test's body waiting for its subtest: go test shows
		// testing.(*T).Run, which goleak takes for the test runner's.
		return frame{fn: append([]byte("testing.(*T).Run("), args...), file: f.file}
	}
	rest, ok := bytes.CutPrefix(f.fn, []byte(weftPrefix+"sim.(*"))
	if !ok {
		return f
	}
	typ, rest, ok := bytes.Cut(rest, []byte(")."))
	if !ok {
		return f
	}
	method, args, ok := bytes.Cut(rest, []byte("("))
	if !ok || !syncTwins[string(typ)+"."+string(method)] {
		return f
	}
	fn := fmt.Appendf(nil, "sync.(*%s).%s(%s", typ, method, args)
	return frame{fn: fn, file: f.file}
}

// parseTrace splits a goroutine's trace into its header line and frames.
func parseTrace(g []byte) ([]byte, []frame) {
	lines := bytes.Split(g, []byte("\n"))
	var frames []frame
	for _, line := range lines[1:] {
		if bytes.HasPrefix(line, []byte("\t")) && len(frames) > 0 && frames[len(frames)-1].file == nil {
			frames[len(frames)-1].file = line
			continue
		}
		frames = append(frames, frame{fn: line})
	}
	return lines[0], frames
}
