package weft

import (
	"fmt"
	"strings"

	"github.com/weftdev/weft/sched"
)

// report formats a Finding for the test log.
func report(f *Finding, command, saved string, saveErr error) string {
	var b strings.Builder
	found := f.Found
	if rc := f.Recorded; rc != nil {
		fmt.Fprintf(&b, "weft: recorded run %d of at most %d failed under the Go scheduler (recorder %s: %d events, %d log bytes)\n", rc.Run, rc.Runs, rc.Algorithm, rc.Events, rc.Bytes)
		fmt.Fprintf(&b, "  recorded failure: %s\n", rc.Failure.Summary())
		if f.Failure.Kind == sched.Race && rc.Failure.Kind != sched.Race {
			fmt.Fprintf(&b, "  replayed from its log under the controller: the race detector reported a data race on the way\n")
		} else if rc.Faithful {
			fmt.Fprintf(&b, "  replayed from its log under the controller: same failure, every goroutine read the recorded values\n")
		} else {
			fmt.Fprintf(&b, "  replayed from its log under the controller: same failure, but departing from the recording:\n    %s\n", strings.Join(rc.Problems, "\n    "))
		}
		if rc.Log != "" {
			fmt.Fprintf(&b, "  log: %s\n", rc.Log)
		}
	} else {
		fmt.Fprintf(&b, "weft: found a failing schedule in execution %d (strategy %s, seed %#x", found.Iteration+1, found.Strategy, found.Seed)
		if found.Depth > 0 {
			fmt.Fprintf(&b, ", depth %d", found.Depth)
		}
		fmt.Fprintf(&b, "; %d execution%s run)\n", f.Executions, plural(f.Executions))
	}
	writeFailure(&b, f.Failure, f.Final.More)
	m := f.Minimized
	fmt.Fprintf(&b, "  preemptions: %d, minimized from %d (%d replays)\n", m.After, m.Before, m.Runs)
	if f.Nondeterminism != nil {
		fmt.Fprintf(&b, "  WARNING, not deterministic: %v\n", f.Nondeterminism)
	} else if f.Failure.Kind != sched.Blocked {
		fmt.Fprintf(&b, "  deterministic: replayed 3 times, same execution (event hash %#x)\n", f.Final.Hash)
	}
	writeTimeline(&b, f.Final)
	writeLogs(&b, f.Logs)
	if saveErr != nil {
		fmt.Fprintf(&b, "  could not save the schedule: %v\n  schedule:\n", saveErr)
		for _, line := range strings.Split(strings.TrimRight(string(f.Entry.Marshal()), "\n"), "\n") {
			fmt.Fprintf(&b, "    %s\n", line)
		}
		return b.String()
	}
	id := saved[strings.LastIndexAny(saved, `/\`)+1:]
	fmt.Fprintf(&b, "  saved: %s\n", saved)
	if f.Failure.Kind == sched.Race {
		command += " -race" // only the race detector reports it
	}
	fmt.Fprintf(&b, "  replay: %s\n", replayCommand(command, f.Entry.Test, id))
	return b.String()
}

// writeFailure writes the failure with its details: stacks, the goroutines
// stuck in a deadlock or leak, and the failures that followed.
func writeFailure(b *strings.Builder, f *sched.Failure, more []*sched.Failure) {
	switch f.Kind {
	case sched.Deadlock:
		fmt.Fprintf(b, "  failure: deadlock: no goroutine can run\n")
	case sched.Leak:
		fmt.Fprintf(b, "  failure: leak: the test returned while goroutines remain blocked\n")
	default:
		fmt.Fprintf(b, "  failure: %s\n", f.Summary())
	}
	if strings.Contains(f.Message, "\n") && f.Kind != sched.Deadlock && f.Kind != sched.Leak {
		writeIndented(b, "    ", f.Message)
	}
	if f.Stack != "" && len(f.Accesses) == 0 {
		writeIndented(b, "    ", f.Stack)
	}
	for _, w := range f.Waiting {
		who := "goroutine " + w.Goroutine
		if w.Goroutine == "" {
			who = "goroutine (plain go statement)"
		}
		fmt.Fprintf(b, "    %s blocked in %s at %s\n", who, w.Op, orDash(w.Site))
		if w.Stack != "" {
			writeIndented(b, "      ", w.Stack)
		}
	}
	for i, a := range f.Accesses {
		writeAccess(b, i, a)
	}
	for _, m := range more {
		fmt.Fprintf(b, "  then: %s\n", m.Summary())
	}
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

// writeTimeline writes the events around each preemption of a traced
// execution; without preemptions, the last events before the failure.
func writeTimeline(b *strings.Builder, r *sched.Result) {
	if len(r.Trace) == 0 {
		return
	}
	index := make(map[string]int, len(r.Trace))
	for i, e := range r.Trace {
		index[fmt.Sprintf("%s#%d", e.G, e.N)] = i
	}
	var preempts []sched.Choice
	for _, c := range r.Schedule {
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
	for i, c := range preempts {
		k, ok := index[fmt.Sprintf("%s#%d", c.G, c.N)]
		if !ok {
			continue
		}
		fmt.Fprintf(b, "  preemption %d of %d: goroutine %s was about to %s at %s; goroutine %s ran instead:\n",
			i+1, len(preempts), c.G, r.Trace[k].Op, orDash(r.Trace[k].Site), c.Next)
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
		fmt.Fprintf(b, "   %s %-8s %-28s %s\n", m, e.G, e.Op, orDash(e.Site))
	}
}

func sameCall(a, b sched.Event) bool {
	return a.G == b.G && a.N+1 == b.N && a.Op == b.Op && a.Site == b.Site && a.Site != ""
}

func writeLogs(b *strings.Builder, logs []string) {
	if len(logs) == 0 {
		return
	}
	fmt.Fprintf(b, "  log:\n")
	for _, l := range logs {
		writeIndented(b, "    ", l)
	}
}

func writeIndented(b *strings.Builder, indent, text string) {
	for _, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		b.WriteString(indent)
		b.WriteString(line)
		b.WriteByte('\n')
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
