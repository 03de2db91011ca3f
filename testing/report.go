package weft

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/weftdev/weft/internal/text"
	"github.com/weftdev/weft/sched"
)

// report formats a Finding for the test log.
func report(f *Finding, cfg *config, saved string, saveErr error) string {
	if f.Property != nil {
		return propertyReport(f, cfg, saved, saveErr)
	}
	var b strings.Builder
	found := f.Found
	how := fmt.Sprintf("strategy %s, seed %#x", found.Strategy, found.Seed)
	if found.Depth > 0 {
		how += fmt.Sprintf(", depth %d", found.Depth)
	}
	how += "; " + text.Count(f.Executions, "execution") + " run"
	switch rc := f.Recorded; {
	case rc != nil:
		writeRecording(&b, rc, f.Failure)
	case f.Crash != nil:
		fmt.Fprintf(&b, "weft: execution %d (%s) ended its worker process: not saved, as it left no schedule\n", found.Iteration+1, how)
	case f.Nondeterminism != nil:
		fmt.Fprintf(&b, "weft: execution %d (%s) failed, but does not replay identically: not saved\n", found.Iteration+1, how)
	case f.Failure != nil && f.Failure.Kind == sched.Outside:
		fmt.Fprintf(&b, "weft: execution %d (%s) had its objects used by a goroutine outside it, which weft does not run: not saved, as no replay can show that goroutine again\n", found.Iteration+1, how)
	default:
		fmt.Fprintf(&b, "weft: found a failing schedule in execution %d (%s)\n", found.Iteration+1, how)
	}
	if c := f.Crash; c != nil {
		what := "died"
		if c.Hung {
			what = "hung"
		}
		fmt.Fprintf(&b, "  the worker process %s running it (%s); it printed:\n", what, c.Why)
		writeIndented(&b, "    ", c.Output)
		fmt.Fprintf(&b, "  to run it in the test process: %s -explore -explore.seed %#x -explore.iters %d -explore.workers 1\n",
			runCommand(cfg.command, cfg.name), cfg.seed, found.Iteration+1)
		writeUnreplayed(&b, f.Unreplayed, f.Unlisted)
		return b.String()
	}
	writeFailure(&b, f.Failure, f.Final.More)
	if f.Failure.Kind == sched.Outside && f.Nondeterminism == nil {
		writeUnreplayed(&b, f.Unreplayed, f.Unlisted)
		return b.String()
	}
	if f.Nondeterminism != nil {
		fmt.Fprintf(&b, "  replayed: %v\n", f.Nondeterminism)
		writeUnreplayed(&b, f.Unreplayed, f.Unlisted)
		return b.String()
	}
	m := f.Minimized
	fmt.Fprintf(&b, "  preemptions: %d, minimized from %d (%d replays)\n", m.After, m.Before, m.Runs)
	switch f.Failure.Kind {
	case sched.Blocked:
	case sched.Runaway:
		fmt.Fprintf(&b, "  deterministic: replayed once, same execution (event hash %#x)\n", f.Final.Hash)
	default:
		fmt.Fprintf(&b, "  deterministic: replayed 3 times, same execution (event hash %#x)\n", f.Final.Hash)
	}
	writeTimeline(&b, f.Final)
	writeUnreplayed(&b, f.Unreplayed, f.Unlisted)
	if tooLong := (*tooLongError)(nil); errors.As(saveErr, &tooLong) {
		fmt.Fprintf(&b, "  not saved: %v\n", tooLong)
		fmt.Fprintf(&b, "  to run it again: %s -explore -explore.seed %#x -explore.iters %d -explore.workers 1\n",
			runCommand(cfg.command, cfg.name), cfg.seed, found.Iteration+1)
		return b.String()
	}
	if saveErr != nil {
		fmt.Fprintf(&b, "  could not save the schedule: %v\n  schedule:\n", saveErr)
		for _, line := range strings.Split(strings.TrimRight(string(f.Entry.Marshal()), "\n"), "\n") {
			fmt.Fprintf(&b, "    %s\n", line)
		}
		return b.String()
	}
	id := saved[strings.LastIndexAny(saved, `/\`)+1:]
	fmt.Fprintf(&b, "  saved: %s\n", saved)
	command := cfg.command
	if f.Failure.Kind == sched.Race {
		command += " -race" // only the race detector reports it
	}
	fmt.Fprintf(&b, "  replay: %s\n", replayCommand(command, f.Entry.Test, id))
	return b.String()
}

// keptRunning says which goroutines kept running after the test returned.
func keptRunning(ws []sched.Waiting) string {
	var b strings.Builder
	fmt.Fprintf(&b, "weft: %s kept running after the test returned (not a failure; -explore.strictleaks makes it one):", text.Count(len(ws), "goroutine"))
	for _, w := range ws {
		fmt.Fprintf(&b, "\n  goroutine %s in %s at %s", w.Goroutine, w.Op, text.OrDash(w.Site))
	}
	return b.String()
}

// writeRecording writes where a Finding of -record came from; replayed is
// the failure its replay gave.
func writeRecording(b *strings.Builder, rc *Recording, replayed *sched.Failure) {
	fmt.Fprintf(b, "weft: recorded run %d of at most %d failed under the Go scheduler (recorder %s: %d events, %d log bytes)\n", rc.Run, rc.Runs, rc.Algorithm, rc.Events, rc.Bytes)
	fmt.Fprintf(b, "  recorded failure: %s\n", rc.Failure.Summary())
	if replayed != nil && replayed.Kind == sched.Race && rc.Failure.Kind != sched.Race {
		fmt.Fprintf(b, "  replayed from its log under the controller: the race detector reported a data race on the way\n")
	} else if rc.Faithful {
		fmt.Fprintf(b, "  replayed from its log under the controller: same failure, every goroutine read the recorded values\n")
	} else {
		fmt.Fprintf(b, "  replayed from its log under the controller: same failure, but departing from the recording:\n    %s\n", strings.Join(rc.Problems, "\n    "))
	}
	if rc.Log != "" {
		fmt.Fprintf(b, "  log: %s\n", rc.Log)
	}
}

// writeUnreplayed lists the failing executions exploration went past
// because they did not replay identically.
func writeUnreplayed(b *strings.Builder, us []*Finding, unlisted int) {
	for _, u := range us {
		fmt.Fprintf(b, "  also: execution %d failed, but does not replay identically: not saved\n    failure: %s\n    replayed: %v\n",
			u.Found.Iteration+1, u.Failure.Summary(), u.Nondeterminism)
	}
	if unlisted > 0 {
		fmt.Fprintf(b, "  also: %d more failing executions that do not replay identically: not saved\n", unlisted)
	}
}

// runCommand is the command that runs test name of the current package.
func runCommand(command, name string) string {
	var parts []string
	for _, p := range strings.Split(name, "/") {
		parts = append(parts, "^"+regexp.QuoteMeta(p)+"$")
	}
	return fmt.Sprintf("%s -run '%s' %s", command, strings.Join(parts, "/"), packageDir())
}

// show writes what an execution wrote to t, as go test shows a test's
// output: its log lines, and its subtests, run as subtests of t with their
// own lines and results. The errors of a failing execution's test itself
// are left to its report.
func show(t *testing.T, out *output, failing bool) {
	if out == nil {
		return
	}
	w := t.Output()
	for _, it := range out.items {
		switch {
		case it.sub != nil:
			sub := it.sub
			t.Run(sub.name, func(t *testing.T) {
				showSub(t, sub)
			})
		case it.error && failing:
		default:
			writeLine(w, it.line)
		}
	}
}

// writeLine writes a log line as testing.T.Log does: the lines after the
// first indented once more.
func writeLine(w io.Writer, line string) {
	io.WriteString(w, strings.ReplaceAll(line, "\n", "\n    ")+"\n")
}

func showSub(t *testing.T, out *output) {
	w := t.Output()
	for _, it := range out.items {
		if it.sub != nil {
			sub := it.sub
			t.Run(sub.name, func(t *testing.T) { showSub(t, sub) })
			continue
		}
		writeLine(w, it.line)
	}
	if out.failed {
		t.Fail()
	} else if out.skipped {
		t.SkipNow()
	}
}

// writeFailure writes the failure with its details: stacks, the goroutines
// stuck in a deadlock or leak, and the failures that followed.
func writeFailure(b *strings.Builder, f *sched.Failure, more []*sched.Failure) {
	switch f.Kind {
	case sched.Deadlock:
		fmt.Fprintf(b, "  failure: deadlock: no goroutine can run\n")
	case sched.Leak:
		if f.Running {
			fmt.Fprintf(b, "  failure: leak: the test returned while goroutines kept running\n")
		} else {
			fmt.Fprintf(b, "  failure: leak: the test returned while goroutines remain blocked\n")
		}
	default:
		fmt.Fprintf(b, "  failure: %s\n", f.Summary())
	}
	if strings.Contains(f.Message, "\n") && f.Kind != sched.Deadlock && f.Kind != sched.Leak {
		writeIndented(b, "    ", f.Message)
	}
	if f.Stack != "" && len(f.Accesses) == 0 {
		writeIndented(b, "    ", f.Stack)
	}
	writeWaiting(b, f)
	for i, a := range f.Accesses {
		writeAccess(b, i, a)
	}
	for _, m := range more {
		fmt.Fprintf(b, "  then: %s\n", m.Summary())
	}
}

// writeWaiting writes the goroutines a deadlock, leak or runaway lists:
// those in the same state, operation, place and stack as one group, named
// together, with the stack once (karlseguin/ccache's leak left 300
// goroutines in the same send, 2,700 lines one by one).
func writeWaiting(b *strings.Builder, f *sched.Failure) {
	type group struct {
		how   string
		first sched.Waiting
		who   []string
	}
	var groups []*group
	index := make(map[[4]string]*group)
	for _, w := range f.Waiting {
		how := "blocked in"
		switch {
		case f.Kind == sched.Runaway || f.Running:
			how = "in"
		case w.Polling:
			how = "polling in vain in"
		}
		who := w.Goroutine
		if who == "" {
			who = "(plain go statement)"
		}
		key := [4]string{how, w.Op, w.Site, w.Stack}
		g := index[key]
		if g == nil {
			g = &group{how: how, first: w}
			index[key] = g
			groups = append(groups, g)
		}
		g.who = append(g.who, who)
	}
	for _, g := range groups {
		fmt.Fprintf(b, "    %s %s %s at %s\n", goroutines(g.who), g.how, g.first.Op, text.OrDash(g.first.Site))
		if g.first.Stack != "" {
			writeIndented(b, "      ", g.first.Stack)
		}
	}
}

// goroutines names a group of goroutines: each of the first four, then
// how many more.
func goroutines(ids []string) string {
	const named = 4
	switch {
	case len(ids) == 1:
		return "goroutine " + ids[0]
	case len(ids) <= named:
		return "goroutines " + strings.Join(ids[:len(ids)-1], ", ") + " and " + ids[len(ids)-1]
	}
	return fmt.Sprintf("goroutines %s and %d more", strings.Join(ids[:named], ", "), len(ids)-named)
}

// writeAccess writes one side of a data race, the reported one (i == 0) or
// the earlier one: how and by which goroutine it touched memory, and its
// stack.
func writeAccess(b *strings.Builder, i int, a sched.RaceAccess) {
	what := a.Kind
	if i > 0 {
		what = "earlier " + a.Kind
	}
	who := "a goroutine outside the execution"
	if a.Goroutine != "" {
		who = "goroutine " + a.Goroutine
	}
	fmt.Fprintf(b, "    %s by %s", what, who)
	if a.Started != "" {
		fmt.Fprintf(b, " (started at %s)", a.Started)
	}
	b.WriteString(":\n")
	if a.Stack == "" {
		b.WriteString("      (the race detector could not restore its stack)\n")
		return
	}
	writeIndented(b, "      ", a.Stack)
}

// maxPreemptionsShown bounds the preemptions a report shows, the last,
// nearest the failure: a failure that is not minimized (blocked, outside)
// may keep thousands (eapache/channels' blocked tests showed up to 16,000,
// 40,000 lines of report each, 52 MB of go test -json for the suite).
const maxPreemptionsShown = 16

// writeTimeline writes the events around each preemption of a traced
// execution (the last maxPreemptionsShown); without preemptions, the last
// events before the failure.
func writeTimeline(b *strings.Builder, r *sched.Result) {
	if len(r.Trace) == 0 {
		return
	}
	index := make(map[string]int, len(r.Trace))
	for i, e := range r.Trace {
		index[fmt.Sprintf("%s#%d", e.G, e.N)] = i
	}
	var preempts []sched.Choice
	for _, c := range r.Schedule() {
		if c.Kind == sched.RunChoice && c.Preempt {
			preempts = append(preempts, c)
		}
	}
	if len(preempts) == 0 {
		from := max(len(r.Trace)-8, 0)
		fmt.Fprintf(b, "  last events (goroutine, operation, site):\n")
		writeEvents(b, r.Trace[from:], -1)
		return
	}
	first := max(len(preempts)-maxPreemptionsShown, 0)
	if first > 0 {
		fmt.Fprintf(b, "  preemptions 1 to %d of %d not shown (the saved schedule has them all)\n", first, len(preempts))
	}
	for i, c := range preempts {
		if i < first {
			continue
		}
		k, ok := index[fmt.Sprintf("%s#%d", c.G, c.N)]
		if !ok {
			continue
		}
		instead := "goroutine " + c.Next + " ran instead"
		if c.Next == sched.Clock.ID() {
			instead = "the clock moved on instead (a timer fired before it was due)"
		}
		fmt.Fprintf(b, "  preemption %d of %d: goroutine %s was about to %s at %s; %s:\n",
			i+1, len(preempts), c.G, r.Trace[k].Op, text.OrDash(r.Trace[k].Site), instead)
		end := k + 1
		for end < len(r.Trace) && end < k+8 && r.Trace[end].G != c.G {
			end++
		}
		if end < len(r.Trace) {
			end++ // the preempted goroutine's next event
		}
		from := max(k-3, 0)
		writeEvents(b, r.Trace[from:end], k-from)
	}
}

// writeEvents writes events one a line, the one at index mark flagged.
// Consecutive events of the same call (a blocking operation arrives, then
// waits) show once.
func writeEvents(b *strings.Builder, events []sched.Event, mark int) {
	for i, e := range events {
		m := " "
		if i == mark {
			m = ">"
		} else if i+1 < len(events) && i+1 != mark && sameCall(e, events[i+1]) {
			continue
		}
		fmt.Fprintf(b, "   %s %-8s %-28s %s\n", m, e.G, e.Op, text.OrDash(e.Site))
	}
}

func sameCall(a, b sched.Event) bool {
	return a.G == b.G && a.N+1 == b.N && a.Op == b.Op && a.Site == b.Site && a.Site != ""
}

func writeIndented(b *strings.Builder, indent, text string) {
	for _, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		b.WriteString(indent)
		b.WriteString(line)
		b.WriteByte('\n')
	}
}
