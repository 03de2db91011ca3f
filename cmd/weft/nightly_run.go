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
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/weftdev/weft/report"
)

// explore runs the tests one after another, each in a test process of its
// own with its share of what is left of the budget, until the budget ends
// or a signal says to stop.
func (n *nightly) explore() {
	stopSignals := n.catchSignals()
	defer stopSignals()
	stopProgress := n.progress()
	defer stopProgress()
	for i, t := range n.tests {
		n.mu.Lock()
		interrupted := n.interrupted
		n.mu.Unlock()
		left := n.a.total - time.Since(n.start)
		switch {
		case interrupted:
			t.note = "not run: interrupted"
			continue
		case left <= 0:
			t.note = "not run: out of time"
			continue
		}
		var weights float64
		for _, u := range n.tests[i:] {
			weights += u.weight
		}
		t.budget = time.Duration(float64(left) * t.weight / weights)
		n.runTest(t, i)
	}
}

// progressLine is a test process's progress line (see testing's
// exploreTest).
var progressLine = regexp.MustCompile(`^weft: (.+): elapsed: .*, execs: (\d+) \(.*\), failures: (\d+)$`)

// runTest runs one test's exploration in a test process.
func (n *nightly) runTest(t *nightlyTest, i int) {
	t.ran = true
	t.json = filepath.Join(n.tmp, fmt.Sprintf("test%d.json", i))
	args := []string{"-test.run=^" + regexp.QuoteMeta(t.name) + "$", "-test.count=1", "-test.timeout=0",
		"-explore", "-explore.continue", "-explore.time=" + t.budget.String(), "-explore.json=" + t.json}
	if n.a.iters > 0 {
		args = append(args, "-explore.iters="+strconv.Itoa(n.a.iters))
	}
	if n.a.shard != "" {
		args = append(args, "-explore.shard="+n.a.shard)
	}
	if n.a.seed != "" {
		args = append(args, "-explore.seed="+n.a.seed)
	}
	if n.a.html != "" {
		args = append(args, "-explore.html="+n.a.html)
	}
	if n.a.profile != "" {
		t.prof = filepath.Join(n.tmp, fmt.Sprintf("test%d.pb.gz", i))
		args = append(args, "-explore.profile="+t.prof)
	}
	if n.a.verbose {
		args = append(args, "-test.v")
	}
	args = append(args, n.a.binFlags...)
	cmd := exec.Command(t.pkg.bin, args...)
	cmd.Dir = t.pkg.dir
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
	n.readOutput(t, r)
	err = cmd.Wait()
	n.mu.Lock()
	n.child = nil
	n.mu.Unlock()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		t.failed, t.note = true, exit.String()
	case err != nil:
		t.failed, t.note = true, err.Error()
	}
	if rep, rerr := report.Read(t.json); rerr == nil {
		t.tests = rep.Tests
	}
	n.finished(t)
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
func (n *nightly) finished(t *nightlyTest) {
	n.mu.Lock()
	n.current, n.execs, n.found = nil, 0, 0
	n.done++
	for _, rt := range t.tests {
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
	line := fmt.Sprintf("weft nightly: elapsed: %v, tests: %d/%d", elapsed.Round(time.Second), n.done, len(n.tests))
	if t := n.current; t != nil {
		line += fmt.Sprintf(", %s %s", n.relDir(t.pkg), t.name)
	}
	return line + fmt.Sprintf(", execs: %d (%.0f/sec), failures: %d", execs, float64(execs)/elapsed.Seconds(), failures)
}
