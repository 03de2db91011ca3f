package sched

import (
	"reflect"
	"runtime"
	"strings"
	"unsafe"

	"github.com/weftdev/weft/internal/race"
	"github.com/weftdev/weft/internal/racereport"
	"github.com/weftdev/weft/internal/text"
)

// Under the race detector (a -race build; see package internal/race), the
// controller hides its handoffs, so that the happens-before edges the race
// detector sees between the goroutines of an execution are those of the
// primitives, and a data race is reported in any schedule in which its two
// accesses are not ordered by them. The controller's own state is written
// by //go:norace functions, in weft's internal packages too, and never by
// the runtime's own checked operations (copy, a Go map's writes), which
// the race detector checks whatever the caller: the goroutines of an
// execution take turns to write that state, with the handoffs hidden. A
// report that slips through anyway names weft's bug, not the test's.
//
// A race is a failure of the execution: at its next event, the racing
// goroutine finds the race detector's count of reports grown, reads the
// report back (package racereport), and fails the execution with its two
// accesses, named by goroutine lineage. Without -race, race.Enabled is
// false and none of this is compiled in.

// raceBegin starts watching the race detector's reports for the execution,
// on the goroutine that runs it.
func (c *Controller) raceBegin() {
	c.raceLog = racereport.Begin()
	c.raceSeen = race.Errors()
}

// raceFinish ends the execution for the race detector, on the goroutine
// that runs it: it happens after everything the execution did, as a join
// of all its goroutines would (so that the next execution, which reuses
// the test's variables, does not race with this one), and it claims the
// races reported while the execution unwound.
func (c *Controller) raceFinish(abandoned bool) {
	if !abandoned {
		race.Acquire(unsafe.Pointer(&c.raceJoin))
		if race.Errors() != c.raceSeen {
			for _, f := range c.raceFailures(nil) {
				c.fail(f)
			}
		}
	}
	c.raceLog.End()
}

// raceCheck fails the execution if the race detector reported a race of its
// goroutines since the last check. It runs at every event and exit of a
// goroutine g, before the handoff is hidden: since the last check only g
// ran, so the race is g's access.
//
//go:norace
func (c *Controller) raceCheck(g *G) bool {
	n := race.Errors()
	if n == c.raceSeen || c.aborting {
		return false
	}
	c.raceSeen = n
	fs := c.raceFailures(g)
	if len(fs) == 0 {
		return false
	}
	for _, f := range fs {
		c.fail(f)
	}
	c.aborting = true
	return true
}

// raceExit is a goroutine's exit for the race detector: a last check, and
// its part of the execution's join.
func (c *Controller) raceExit(g *G) {
	c.raceCheck(g)
	race.ReleaseMerge(unsafe.Pointer(&c.raceJoin))
}

// raceFailures returns the races of the execution's goroutines reported
// since the last call, and claims their reports. If the reports cannot be
// read back, a report counted since is taken to be g's (nil: nobody's).
//
//go:norace
func (c *Controller) raceFailures(g *G) []*Failure {
	var fs []*Failure
	for _, r := range c.raceLog.Reports() {
		if len(r.Accesses) > 0 && c.markedBy(r.Accesses[0].Frames) != nil {
			c.raceLog.Claim(r)
			fs = append(fs, c.raceOf(&r))
		}
	}
	if len(fs) == 0 && g != nil && !c.raceLog.Readable() {
		fs = append(fs, &Failure{Kind: Race, Goroutine: g.id, Site: CallerSite(0),
			Message: "the race detector reported a data race while goroutine " + g.id +
				" ran up to here (weft could not read its report back: see standard error)"})
	}
	return fs
}

// raceOf turns the race detector's report into a Failure.
//
//go:norace
func (c *Controller) raceOf(r *racereport.Report) *Failure {
	f := &Failure{Kind: Race}
	for _, a := range r.Accesses {
		ra := RaceAccess{Kind: a.Kind}
		if h := c.markedBy(a.Frames); h != nil {
			ra.Goroutine = h.id
		}
		ra.Site, ra.Stack = userFrames(a.Frames)
		ra.Started, _ = userFrames(r.CreatedAt(a.Goroutine))
		f.Accesses = append(f.Accesses, ra)
	}
	first := f.Accesses[0]
	f.Goroutine, f.Site, f.Stack = first.Goroutine, first.Site, first.Stack
	if fn, ok := controllerState(r.Accesses); ok {
		f.Message = "the race detector reported an access to weft's own state, in " + fn +
			", not the test's: a bug in weft (please report it, with the race detector's report on standard error)"
		return f
	}
	f.Message = first.Kind
	if len(f.Accesses) > 1 {
		earlier := f.Accesses[1]
		f.Message += " races with an earlier " + earlier.Kind + " at " + text.OrDash(earlier.Site) + " by " + goroutineName(earlier.Goroutine)
	}
	return f
}

// controllerState reports whether every access of a race detector's report
// is weft's own, the controller's state that the goroutines of an
// execution take turns to write with the handoffs hidden (see Controller):
// the innermost frame outside the runtime is in package sched or in one
// of weft's internal packages. It returns that frame's function.
//
//go:norace
func controllerState(accesses []racereport.Access) (string, bool) {
	fn := ""
	for _, a := range accesses {
		inner := ""
		for _, f := range a.Frames {
			if !strings.HasPrefix(f.Func, "runtime.") {
				inner = f.Func
				break
			}
		}
		if !strings.HasPrefix(inner, schedPrefix) && !strings.HasPrefix(inner, weftInternalPrefix) {
			return "", false
		}
		if fn == "" {
			fn = inner
		}
	}
	return fn, fn != ""
}

func goroutineName(lineage string) string {
	if lineage == "" {
		return "a goroutine outside the execution"
	}
	return "goroutine " + lineage
}

// markedBy returns the goroutine of the execution whose stack frames are,
// by the marks raceChain left at their bottom; nil if none is.
//
//go:norace
func (c *Controller) markedBy(frames []racereport.Frame) *G {
	m, ok := raceMarkOf(frames)
	if !ok || m>>raceIndexBits != c.seq%(1<<raceSeqBits) {
		return nil
	}
	if i := int(m % (1 << raceIndexBits)); i < len(c.all) {
		return c.all[i]
	}
	return nil
}

// userFrames returns the site of the innermost user frame of a report's
// stack, and its user frames, as userSite does for a stack dump.
func userFrames(frames []racereport.Frame) (site, stack string) {
	var b strings.Builder
	for _, f := range frames {
		if Internal(f.Func, f.File) {
			continue
		}
		if site == "" {
			site = Site(f.File, f.Line)
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(f.Func + "\n\t" + f.File + ":" + itoa(f.Line))
	}
	return site, b.String()
}

// The race detector names goroutines by numbers of its own, neither the
// runtime's ids nor weft's lineages; and it reports a race only once per
// pair of stacks in a process. So raceChain calls each controlled
// goroutine's function below frames that mark it: one frame of raceBit0 or
// raceBit1 per bit of its mark, the execution's number (modulo 2^24) and
// the goroutine's index in it (modulo 2^16). A report's stacks then tell
// whose accesses they are, and a replay of an execution, with another
// number, reports its race again, as minimizing and verifying it need.
const (
	raceIndexBits = 16
	raceSeqBits   = 24
)

// raceMark returns g's mark.
func raceMark(c *Controller, g *G) uint64 {
	return c.seq%(1<<raceSeqBits)<<raceIndexBits | uint64(g.idx)%(1<<raceIndexBits)
}

// raceChain calls f below the frames of mark, lowest bit outermost.
func raceChain(mark uint64, bits int, f func()) {
	if bits == 0 {
		f()
		return
	}
	if mark&1 == 0 {
		raceBit0(mark>>1, bits-1, f)
	} else {
		raceBit1(mark>>1, bits-1, f)
	}
}

//go:noinline
func raceBit0(mark uint64, bits int, f func()) { raceChain(mark, bits, f) }

//go:noinline
func raceBit1(mark uint64, bits int, f func()) { raceChain(mark, bits, f) }

// The names the race detector's reports give raceBit0 and raceBit1.
var raceBitNames = [2]string{funcName(raceBit0), funcName(raceBit1)}

func funcName(f any) string { return runtime.FuncForPC(reflect.ValueOf(f).Pointer()).Name() }

// raceMarkOf reads the mark at the bottom of a report's stack (innermost
// frame first); ok is false if it has no complete mark.
func raceMarkOf(frames []racereport.Frame) (mark uint64, ok bool) {
	bits := 0
	for i := len(frames) - 1; i >= 0; i-- {
		switch frames[i].Func {
		case raceBitNames[1]:
			mark |= 1 << bits
			fallthrough
		case raceBitNames[0]:
			bits++
		}
	}
	return mark, bits == raceIndexBits+raceSeqBits
}
