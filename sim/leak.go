package sim

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// A leak checker such as go.uber.org/goleak lists the process's goroutines
// (runtime.Stack) and retries in real time until only the caller and the
// test runner are left. Under control it would see weft's own goroutines
// (pooled workers, the controller's watchdog, the test runner waiting in
// weft.Check) and, holding the baton while it sleeps in real time, keep the
// execution's other goroutines from ending. weft test hands its VerifyNone
// and Find to VerifyNone and Find here, which check the execution's
// goroutines instead, retrying in virtual time as goleak does in real time.

// Leak checks retry as goleak does: after 1 µs, then twice as long each
// time up to leakMaxSleep, leakRetries times (about half a second).
const (
	leakRetries  = 20
	leakMaxSleep = 100 * time.Millisecond
)

// VerifyNone wraps goleak.VerifyNone (weft test rewrites
// goleak.VerifyNone(t, opts...) as sim.VerifyNone(goleak.VerifyNone)(t,
// opts...)). In plain mode and recording, verify runs as it is. Under
// control, the check waits, in virtual time, for the execution's other
// goroutines to end, and reports those left to t.Error, as goleak would.
// With options (goleak.IgnoreCurrent, IgnoreTopFunction...), which only
// goleak can apply, it waits alike but reports nothing: a goroutine an
// option ignores would otherwise be a false leak.
func VerifyNone[T interface{ Error(...any) }, O any](verify func(T, ...O)) func(T, ...O) {
	return func(t T, opts ...O) {
		if current() == nil {
			verify(t, opts...)
			return
		}
		if err := leftBehind(len(opts) > 0); err != nil {
			if h, ok := any(t).(interface{ Helper() }); ok {
				h.Helper()
			}
			t.Error(err)
		}
	}
}

// Find wraps goleak.Find as VerifyNone wraps goleak.VerifyNone: under
// control, the error names the execution's goroutines left behind.
func Find[O any](find func(...O) error) func(...O) error {
	return func(opts ...O) error {
		if current() == nil {
			return find(opts...)
		}
		return leftBehind(len(opts) > 0)
	}
}

// leftBehind waits for the execution's goroutines but the caller to end,
// and describes those still there after the retries; quiet (options it
// cannot apply) reports none.
func leftBehind(quiet bool) error {
	g := current()
	for i := 0; ; i++ {
		if g.Live() <= 1 {
			return nil
		}
		if i == leakRetries {
			break
		}
		Sleep(min(time.Microsecond<<i, leakMaxSleep))
	}
	ws := g.Others()
	if quiet || len(ws) == 0 {
		return nil
	}
	var b strings.Builder
	b.WriteString("found unexpected goroutines:")
	for _, w := range ws {
		fmt.Fprintf(&b, "\n  goroutine %s in %s at %s", w.Goroutine, w.Op, w.Site)
		if w.Stack != "" {
			b.WriteString("\n    " + strings.ReplaceAll(strings.TrimSpace(w.Stack), "\n", "\n    "))
		}
	}
	return errors.New(b.String())
}
