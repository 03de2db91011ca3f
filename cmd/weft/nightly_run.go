package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/weftdev/weft/report"
)

// explore runs the tests one after another, each in a test process of its
// own with its share of what is left of the budget, until the budget ends
// or a signal says to stop. The budget starts once the tests are built. A
// test that turns out not to be a weft test ends at once, leaving its
// share to the tests after it; if time is left after the last, the weft
// tests run again, in rounds, each exploring other executions (see
// roundSeed), unless -explore.iters bounds them.
func (n *nightly) explore() {
	stopSignals := n.catchSignals()
	defer stopSignals()
	n.mu.Lock()
	n.began = time.Now()
	n.mu.Unlock()
	stopProgress := n.progress()
	defer stopProgress()
	tests := n.tests
	for round := 0; len(tests) > 0 && round < maxRounds; round++ {
		n.mu.Lock()
		n.round, n.roundTests, n.done = round, len(tests), 0
		n.mu.Unlock()
		n.runRound(tests, round)
		left := n.a.total - time.Since(n.began)
		if n.stopped() || n.a.iters > 0 || left < max(minRound, n.a.total/20) {
			return
		}
		var again []*nightlyTest
		for _, t := range tests {
			if len(t.tests) > 0 {
				again = append(again, t)
			}
		}
		tests = again
	}
}

// Rounds after the first run only with minRound left at least (and a
// twentieth of the budget), maxRounds at most.
const (
	minRound  = 2 * time.Second
	maxRounds = 100
)

// stopped reports whether a signal stopped the run.
func (n *nightly) stopped() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.interrupted
}

// runRound runs the tests of a round, each with its share of what is left
// of the budget.
func (n *nightly) runRound(tests []*nightlyTest, round int) {
	for i, t := range tests {
		left := n.a.total - time.Since(n.began)
		switch {
		case n.stopped():
			if round == 0 {
				t.note = "not run: interrupted"
			}
			continue
		case left <= 0:
			if round == 0 {
				t.note = "not run: out of time"
			}
			continue
		}
		var weights float64
		for _, u := range tests[i:] {
			weights += u.weight
		}
		n.runTest(t, round, time.Duration(float64(left)*t.weight/weights))
	}
}

// roundSeed is the base seed of a test's exploration in a round after the
// first: the first round's, moved by the round. Shards agree on it, as
// they agree on the first round's.
func roundSeed(first string, round int) (string, bool) {
	s, err := strconv.ParseUint(first, 0, 64)
	if err != nil || round == 0 {
		return "", false
	}
	return report.Seed(s + uint64(round)*0x9e3779b97f4a7c15), true
}

// progressLine is a test process's progress line (see testing's
// exploreTest).
var progressLine = regexp.MustCompile(`^weft: (.+): elapsed: .*, execs: (\d+) \(.*\), failures: (\d+)$`)

// runTest runs one test's exploration in a test process, with a budget.
func (n *nightly) runTest(t *nightlyTest, round int, budget time.Duration) {
	t.ran = true
	t.budget += budget
	id := fmt.Sprintf("%s-%d-%d", filepath.Base(t.pkg.bin), slices.Index(n.tests, t), round)
	js := filepath.Join(n.tmp, id+".json")
	args := []string{"-test.run=^" + regexp.QuoteMeta(t.name) + "$", "-test.count=1", "-test.timeout=0",
		"-explore", "-explore.continue", "-explore.time=" + budget.String(), "-explore.json=" + js}
	if n.a.iters > 0 {
		args = append(args, "-explore.iters="+strconv.Itoa(n.a.iters))
	}
	if n.a.shard != "" {
		args = append(args, "-explore.shard="+n.a.shard)
	}
	switch seed, ok := roundSeed(t.seed(n.a.seed), round); {
	case ok:
		args = append(args, "-explore.seed="+seed)
	case n.a.seed != "":
		args = append(args, "-explore.seed="+n.a.seed)
	}
	if n.a.html != "" {
		args = append(args, "-explore.html="+n.a.html)
	}
	if n.a.profile != "" {
		prof := filepath.Join(n.tmp, id+".pb.gz")
		t.profs = append(t.profs, prof)
		args = append(args, "-explore.profile="+prof)
	}
	if n.a.verbose {
		args = append(args, "-test.v")
	}
	args = append(args, n.a.binFlags...)
	cmd := exec.Command(t.pkg.bin, args...)
	cmd.Dir = t.pkg.dir
	// WEFT_COMMAND: the replay commands in reports say weft test.
	cmd.Env = append(os.Environ(), "WEFT_COMMAND=weft test")
	cmd.SysProcAttr = childAttr()
	r, w, err := os.Pipe()
	if err != nil {
		t.failed, t.note = true, err.Error()
		return
	}
	cmd.Stdout, cmd.Stderr = w, w
	n.mu.Lock()
	n.current, n.execs, n.found = t, 0, 0
	err = cmd.Start()
	if err == nil {
		n.child = cmd.Process
	}
	n.mu.Unlock()
	w.Close()
	if err != nil {
		r.Close()
		t.failed, t.note = true, err.Error()
		return
	}
	overran := n.watch(cmd.Process, budget)
	n.readOutput(t, r)
	err = cmd.Wait()
	n.mu.Lock()
	n.child = nil
	n.mu.Unlock()
	var exit *exec.ExitError
	switch {
	case overran():
		t.failed, t.note = true, fmt.Sprintf("ended: it ran %v past its budget of %v", overtime(budget), budget.Round(time.Millisecond))
	case errors.As(err, &exit):
		t.failed, t.note = true, exit.String()
	case err != nil:
		t.failed, t.note = true, err.Error()
	}
	var found []report.Test
	if rep, rerr := report.Read(js); rerr == nil {
		found = rep.Tests
		t.add(rep.Tests)
	}
	n.finished(t, found)
}

// overtime is how long a test process may run past its budget: its
// exploration's own overtime, the judging of its last failures, the replay
// of its saved schedules and its tests that are no weft tests.
func overtime(budget time.Duration) time.Duration { return max(budget/5, 2*time.Minute) }

// watch ends a test process that runs past its budget and overtime, as
// hung: SIGTERM, so that it saves what it found, then SIGKILL 30 s later.
// The returned function stops watching, and reports whether it had to.
func (n *nightly) watch(p *os.Process, budget time.Duration) (overran func() bool) {
	var ended atomic.Bool
	term := time.AfterFunc(budget+overtime(budget), func() {
		ended.Store(true)
		fmt.Fprintf(n.stderr, "weft nightly: a test process ran %v past its budget: ending it\n", overtime(budget))
		p.Signal(syscall.SIGTERM)
	})
	kill := time.AfterFunc(budget+overtime(budget)+30*time.Second, func() { p.Kill() })
	return func() bool {
		term.Stop()
		kill.Stop()
		return ended.Load()
	}
}

// seed returns the first round's base seed of a test's exploration: the
// one given, or the one its report says.
func (t *nightlyTest) seed(given string) string {
	if given != "" {
		return given
	}
	if len(t.tests) > 0 {
		return t.tests[0].Seed
	}
	return ""
}

// add takes in the explorations of a round of a test: an exploration the
// test ran in an earlier round adds to it.
func (t *nightlyTest) add(rts []report.Test) {
	for _, rt := range rts {
		i := slices.IndexFunc(t.tests, func(x report.Test) bool { return x.Test == rt.Test })
		if i < 0 {
			t.tests = append(t.tests, rt)
			continue
		}
		x := &t.tests[i]
		x.BudgetSeconds += rt.BudgetSeconds
		x.BudgetExecutions += rt.BudgetExecutions
		x.Executions += rt.Executions
		x.ElapsedSeconds += rt.ElapsedSeconds
		x.ExecutionsPerSecond = float64(x.Executions) / max(x.ElapsedSeconds, 1e-9)
		x.Failures = append(x.Failures, rt.Failures...)
		x.Saved += rt.Saved
		x.Interrupted = x.Interrupted || rt.Interrupted
		if x.Error == "" {
			x.Error = rt.Error
		}
		for _, k := range rt.Known {
			if !slices.Contains(x.Known, k) && !slices.ContainsFunc(x.Failures, func(f report.Failure) bool { return f.Signature == k }) {
				x.Known = append(x.Known, k)
			}
		}
	}
}

// readOutput reads what a test process prints: its progress lines update
// the run's, the rest is kept for the summary (and shown at once with -v).
func (n *nightly) readOutput(t *nightlyTest, r io.ReadCloser) {
	defer r.Close()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		line := sc.Text()
		if m := progressLine.FindStringSubmatch(line); m != nil {
			execs, _ := strconv.Atoi(m[2])
			failures, _ := strconv.Atoi(m[3])
			n.mu.Lock()
			n.execs, n.found = execs, failures
			n.mu.Unlock()
			continue
		}
		t.output = append(append(t.output, line...), '\n')
		if n.a.verbose {
			fmt.Fprintln(n.stdout, line)
		}
	}
}

// finished takes a test's outcome into the run's counts, and shows the
// output of a test whose process failed, as go test does.
func (n *nightly) finished(t *nightlyTest, found []report.Test) {
	n.mu.Lock()
	n.current, n.execs, n.found = nil, 0, 0
	n.done++
	for _, rt := range found {
		n.doneExecs += rt.Executions
		n.failures += len(rt.Failures)
	}
	n.mu.Unlock()
	if t.failed && !n.a.verbose {
		n.stdout.Write(t.output)
	}
}

// catchSignals passes SIGINT and SIGTERM on to the running test process,
// which saves what it found and ends, and stops the run; until the
// returned function is called. The test processes run in process groups
// of their own, so that a terminal's Ctrl-C reaches them once, from here.
func (n *nightly) catchSignals() func() {
	c := make(chan os.Signal, 2)
	signal.Notify(c, os.Interrupt, syscall.SIGTERM)
	end := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-end:
				return
			case sig := <-c:
				n.mu.Lock()
				if !n.interrupted {
					fmt.Fprintf(n.stderr, "weft nightly: %v: stopping; the failures found are saved\n", sig)
				}
				n.interrupted = true
				if n.child != nil {
					n.child.Signal(sig)
				}
				n.mu.Unlock()
			}
		}
	})
	return func() {
		signal.Stop(c)
		close(end)
		wg.Wait()
	}
}

// progress prints the run's progress line every few seconds, as Go's
// fuzzing does, unless -explore.quiet; until the returned function is
// called.
func (n *nightly) progress() func() {
	if n.a.quiet {
		return func() {}
	}
	end := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(progressEvery)
		defer tick.Stop()
		for {
			select {
			case <-end:
				return
			case <-tick.C:
				fmt.Fprintln(n.stdout, n.progressLine())
			}
		}
	})
	return func() { close(end); wg.Wait() }
}

// progressEvery is how often the progress line is printed.
const progressEvery = 3 * time.Second

func (n *nightly) progressLine() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	elapsed := time.Since(n.start)
	execs, failures := n.doneExecs+n.execs, n.failures+n.found
	line := fmt.Sprintf("weft nightly: elapsed: %v, tests: %d/%d", elapsed.Round(time.Second), n.done, n.roundTests)
	if n.round > 0 {
		line = fmt.Sprintf("weft nightly: elapsed: %v, round %d, tests: %d/%d", elapsed.Round(time.Second), n.round+1, n.done, n.roundTests)
	}
	if t := n.current; t != nil {
		line += fmt.Sprintf(", %s %s", n.relDir(t.pkg), t.name)
	}
	rate := 0.0
	if !n.began.IsZero() {
		rate = float64(execs) / max(time.Since(n.began).Seconds(), 1e-9)
	}
	return line + fmt.Sprintf(", execs: %d (%.0f/sec), failures: %d", execs, rate, failures)
}
