package sched

import (
	"bytes"
	"runtime/pprof"
	"strings"

	"github.com/google/pprof/profile"
)

// The goroutine profile is how weft finds the stacks of goroutines: every
// controlled goroutine runs on a worker (see worker.go) that carries the
// profiler labels weft.test and weft.w (the worker's number in the
// process), and a goroutine started from it with a plain go statement
// inherits them. Reading the profile is costly, so it is done
// only to report a failure, by the watchdog, and to confirm an escape.

// A goroutineStack is one sample of the goroutine profile: count goroutines
// with the same labels and stack.
type goroutineStack struct {
	count  int
	labels map[string][]string
	frames []frame // innermost first
}

type frame struct {
	fn, file string
	line     int
}

// goroutineStacks returns the goroutines that carry a worker's labels:
// workers, and the goroutines started from them with a go statement.
func goroutineStacks() []goroutineStack {
	var buf bytes.Buffer
	if err := pprof.Lookup("goroutine").WriteTo(&buf, 0); err != nil {
		return nil
	}
	p, err := profile.Parse(&buf)
	if err != nil {
		return nil
	}
	var out []goroutineStack
	for _, s := range p.Sample {
		if first(s.Label["weft.w"]) == "" {
			continue
		}
		gs := goroutineStack{count: int(s.Value[0]), labels: s.Label}
		for _, loc := range s.Location {
			// Lines of a location are innermost first too (inlining).
			for _, l := range loc.Line {
				if l.Function != nil {
					gs.frames = append(gs.frames, frame{fn: l.Function.Name, file: l.Function.Filename, line: int(l.Line)})
				}
			}
		}
		out = append(out, gs)
	}
	return out
}

func first(vs []string) string {
	if len(vs) == 0 {
		return ""
	}
	return vs[0]
}

// worker reports whether the stack is a worker's, running a controlled
// goroutine or idle, rather than one that escaped from it with its labels.
func (s goroutineStack) worker() bool {
	for _, f := range s.frames {
		if f.fn == workerLoop {
			return true
		}
	}
	return false
}

// stdDaemon reports whether the goroutine is one the standard library
// starts once and keeps for the life of the process: os/signal's loop,
// which the first signal.Notify starts (oklog/run's SignalHandler calls it
// from a controlled goroutine), and the runtime's signal mask goroutine.
// It outlives the execution that started it by design, as goleak's
// default filters accept.
func (s goroutineStack) stdDaemon() bool {
	for _, f := range s.frames {
		switch f.fn {
		case "os/signal.loop", "os/signal.signal_recv", "runtime.ensureSigM.func1":
			return true
		}
	}
	return false
}

// blocked reports whether the goroutine waits (parked by the runtime, or in
// a system call) rather than runs.
func (s goroutineStack) blocked() bool {
	if len(s.frames) == 0 {
		return false
	}
	fn := s.frames[0].fn
	return strings.HasPrefix(fn, "runtime.gopark") || strings.HasPrefix(fn, "syscall.") ||
		strings.HasPrefix(fn, "internal/runtime/syscall.") || fn == "runtime.notetsleepg"
}

// user returns the innermost user frame's site and the user frames, one
// "function\n\tfile:line" each, as a stack trace shows them.
func (s goroutineStack) user() (site, stack string) {
	var b strings.Builder
	for _, f := range s.frames {
		if Internal(f.fn, f.file) {
			continue
		}
		if site == "" {
			site = Site(f.file, f.line)
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(f.fn + "\n\t" + f.file + ":" + itoa(f.line))
	}
	return site, b.String()
}

// stackOf returns the stack of controlled goroutine g.
func (c *Controller) stackOf(stacks []goroutineStack, g *G) (goroutineStack, bool) {
	var fresh goroutineStack
	found := false
	for _, s := range stacks {
		if first(s.labels["weft.w"]) == g.w.num && s.worker() {
			if !s.unstarted() {
				return s, true
			}
			fresh, found = s, true
		}
	}
	return fresh, found
}

// unstarted reports whether the stack is a worker's that waits for its
// first goroutine, in loop itself. A worker started by a go statement of
// a controlled goroutine carries that one's labels until it runs a
// goroutine of its own (see worker.label): its stack is not the one of the
// goroutine those labels name, which runs deeper in its own worker.
func (s goroutineStack) unstarted() bool {
	for _, f := range s.frames {
		if strings.HasPrefix(f.fn, "runtime.") {
			continue
		}
		return f.fn == workerLoop
	}
	return false
}

// workerStacks indexes the stacks of weft's workers by their weft.w label,
// for a lookup per goroutine where stackOf would search them all.
func workerStacks(stacks []goroutineStack) map[string]goroutineStack {
	m := make(map[string]goroutineStack, len(stacks))
	for _, s := range stacks {
		if s.worker() {
			if num := first(s.labels["weft.w"]); num != "" {
				if old, dup := m[num]; !dup || old.unstarted() {
					m[num] = s
				}
			}
		}
	}
	return m
}

// waitsForChild reports whether the goroutine starts a child process
// (syscall.forkExec waits for its exec) or waits for one to exit
// (os.Process.Wait, under exec.Cmd.Run and Wait): blocked in a system
// call, on a process that the machine runs, not on the execution.
func (s goroutineStack) waitsForChild() bool {
	for _, f := range s.frames {
		if f.fn == "os.(*Process).wait" || f.fn == "syscall.forkExec" {
			return true
		}
	}
	return false
}

// waitingIn names the innermost function outside the runtime the goroutine
// waits in, such as sync.(*Mutex).Lock.
func (s goroutineStack) waitingIn() string {
	for _, f := range s.frames {
		if !strings.HasPrefix(f.fn, "runtime.") && !strings.HasPrefix(f.fn, "internal/") {
			return f.fn
		}
	}
	return "the runtime"
}
