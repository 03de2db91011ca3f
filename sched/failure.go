package sched

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/weftdev/weft/internal/text"
)

// A FailureKind classifies what went wrong in an execution.
type FailureKind uint8

const (
	// Error: the test reported an error (weft.T's Errorf or Fatalf).
	Error FailureKind = iota + 1
	// Panic: a controlled goroutine panicked, Go's own channel and sync
	// panics included.
	Panic
	// Deadlock: no goroutine could run, none was waiting for virtual time,
	// and the test body had not returned.
	Deadlock
	// Leak: the test body returned, and controlled goroutines remained
	// blocked forever.
	Leak
	// Escape: a goroutine started with a plain go statement, outside the
	// controller, outlived the execution or used a weft primitive.
	Escape
	// Blocked: a controlled goroutine blocked outside weft's knowledge (a raw
	// channel, a sync.Mutex, I/O) longer than the block timeout.
	Blocked
	// Runaway: the execution exceeded its step budget (a livelock, or an
	// endless loop of weft operations).
	Runaway
	// Race: the race detector (a -race build) reported a data race between
	// two goroutines of the execution: two accesses to the same memory, at
	// least one a write, not ordered by the happens-before edges of the
	// primitives.
	Race
	// Outside: a goroutine outside the execution (started before it, in
	// plain mode: in init, by an earlier test) used one of the
	// execution's objects while it ran, in real time and outside every
	// schedule (see Controller.Outside). Like Blocked, something weft
	// cannot control, not a bug of the test: it is not replayed.
	Outside
	// Timeout: no goroutine could run, and the next timer was due past
	// the execution's time limit (Options.TimeLimit, go test's -timeout):
	// the goroutines wait for something that only time passing could
	// bring, and under go test the test would time out (a lost wakeup
	// with a ticker still running, which Go's deadlock detection misses
	// too).
	Timeout
)

var kindNames = [...]string{
	Error:    "error",
	Panic:    "panic",
	Deadlock: "deadlock",
	Leak:     "leak",
	Escape:   "escape",
	Blocked:  "blocked",
	Runaway:  "runaway",
	Race:     "race",
	Outside:  "outside",
	Timeout:  "timeout",
}

func (k FailureKind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return fmt.Sprintf("FailureKind(%d)", k)
}

// ParseFailureKind is the inverse of FailureKind.String.
func ParseFailureKind(s string) (FailureKind, bool) {
	for k, name := range kindNames {
		if name != "" && name == s {
			return FailureKind(k), true
		}
	}
	return 0, false
}

// A Failure describes why an execution failed.
type Failure struct {
	Kind FailureKind
	// Goroutine is the lineage of the goroutine that failed, for Error,
	// Panic and Blocked.
	Goroutine string
	// Message is the error text, the panic value, or a summary.
	Message string
	// Site is the file:line where the failure was raised: the Errorf call,
	// the panicking statement, the blocked call.
	Site string
	// Stack is the failing goroutine's stack, for Panic and Blocked.
	Stack string
	// Waiting lists the goroutines stuck at a Deadlock, Leak or Timeout, or the
	// escaped goroutines of an Escape, or what each goroutine was doing
	// when a Runaway was stopped, or, for an Outside failure, the
	// execution's goroutines left waiting on the object used from outside.
	Waiting []Waiting
	// Running is set on a Leak of goroutines that kept running after the
	// test returned (Options.StrictLeaks), rather than blocked for good.
	Running bool
	// Accesses are a Race's two accesses: the one the race detector
	// reported, then the earlier one it races with. Empty when the race
	// detector's report could not be read back.
	Accesses []RaceAccess
}

// A RaceAccess is one side of a data race.
type RaceAccess struct {
	Goroutine string // lineage; empty for a goroutine outside the execution
	Kind      string // how it touched memory: "read", "write", "atomic write", ...
	Site      string // file:line of the innermost user frame
	Stack     string // the user frames, "function\n\tfile:line" each
	Started   string // file:line of the go statement that started the goroutine
}

// Waiting is a goroutine stuck when a Deadlock or Leak was detected.
type Waiting struct {
	Goroutine string // lineage; empty for an escaped goroutine
	Op        string // the operation it waits in, e.g. "Chan.Recv"
	Site      string // file:line of that operation
	Stack     string
	// Polling: the goroutine was polling (a select with a default, a
	// Yield, a failed TryLock...) with nothing left that could change
	// what it polls.
	Polling bool
}

// Signature identifies a failure for comparison across executions: the
// same kind raised at the same place. Messages are left out, since they
// often carry values that differ from run to run.
func (f *Failure) Signature() string {
	if f == nil {
		return ""
	}
	switch f.Kind {
	case Runaway:
		// Where a runaway is stopped is arbitrary: every runaway is the
		// same failure, so that minimization can shrink one.
		return f.Kind.String()
	case Deadlock, Leak, Escape, Timeout:
		// Where the goroutines wait, each place once: how many wait
		// there depends on the schedule (karlseguin/ccache's leak left
		// 284 or 300 goroutines blocked in the same send), and the
		// minimization of one schedule must keep the failure, not the
		// count.
		var sites []string
		for _, w := range f.Waiting {
			sites = append(sites, w.Op+"@"+w.Site)
		}
		sort.Strings(sites)
		return f.Kind.String() + " " + strings.Join(slices.Compact(sites), ",")
	case Race:
		// Either access may come first in another schedule.
		var sites []string
		for _, a := range f.Accesses {
			sites = append(sites, a.Site)
		}
		if len(sites) == 0 {
			sites = append(sites, f.Site)
		}
		sort.Strings(sites)
		return f.Kind.String() + " " + strings.Join(sites, ",")
	}
	if f.Site == "" {
		return f.Kind.String() // as a corpus entry saves it
	}
	return f.Kind.String() + " " + f.Site
}

// Summary is a one-line description of the failure.
func (f *Failure) Summary() string {
	if f == nil {
		return "no failure"
	}
	switch f.Kind {
	case Deadlock, Leak, Timeout:
		parts := make([]string, 0, min(len(f.Waiting), maxSummarized+1))
		for i, w := range f.Waiting {
			if i == maxSummarized {
				parts = append(parts, "and "+strconv.Itoa(len(f.Waiting)-i)+" more")
				break
			}
			parts = append(parts, w.describe())
		}
		what := "deadlock: no goroutine can run"
		switch {
		case f.Kind == Leak && f.Running:
			what = "leak: the test returned while goroutines kept running"
		case f.Kind == Leak:
			what = "leak: the test returned while goroutines remain blocked"
		case f.Kind == Timeout:
			what = "timeout: " + f.Message
		}
		return what + ": " + strings.Join(parts, "; ")
	}
	var b strings.Builder
	b.WriteString(f.Kind.String())
	if f.Goroutine != "" {
		fmt.Fprintf(&b, " in goroutine %s", f.Goroutine)
	}
	if f.Site != "" {
		fmt.Fprintf(&b, " at %s", f.Site)
	}
	if f.Message != "" {
		b.WriteString(": ")
		b.WriteString(firstLine(f.Message))
	}
	return b.String()
}

// maxSummarized bounds the goroutines a summary lists: a leak of 40,000
// workers is one line of a report, and its Waiting lists them all.
const maxSummarized = 16

// describe says where the goroutine is, in a summary.
func (w Waiting) describe() string {
	how := "in"
	if w.Polling {
		how = "polling in"
	}
	return fmt.Sprintf("%s %s %s at %s", w.Goroutine, how, w.Op, text.OrDash(w.Site))
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}
