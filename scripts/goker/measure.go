//go:build unix

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// verdicts of weft test on a kernel.
const (
	found    = "found"     // a failure of the kernel's kind: a deadlock or leak for a blocking bug, a race, panic or error for another
	other    = "other"     // another failure (blocked, runaway, escape, outside, or a leak for a non-blocking bug): read its log
	missed   = "missed"    // the budget ran out without a failure
	notBuilt = "not built" // weft test did not build or set up the package
	timedOut = "timed out" // killed after the timeout
	failed   = "failed"    // the run failed without reporting an exploration's failure: read its log
)

// outcome is what both commands said of one kernel.
type outcome struct {
	kernel
	goVerdict  string // pass, fail, deadlock (Go's all goroutines are asleep), hang (go test's -timeout), race, build
	verdict    string // one of the verdicts above
	kind       string // the failure weft reported
	execution  int    // the execution that found it, from 1
	executions int    // executions run
	elapsed    time.Duration
	summary    string // the failure's summary, or the run's last lines
}

func (o outcome) line() string {
	s := fmt.Sprintf("%-18s %-22s go:%-8s weft:%-9s", o.name, o.class, o.goVerdict, o.verdict)
	if o.kind != "" {
		s += fmt.Sprintf(" %s at execution %d", o.kind, o.execution)
	} else if o.verdict == missed {
		s += fmt.Sprintf(" %d executions", o.executions)
	}
	s += fmt.Sprintf(" (%v)", o.elapsed.Round(100*time.Millisecond))
	if o.verdict != found && o.summary != "" {
		s += ": " + o.summary
	}
	return s
}

// measure runs the baseline and weft test on one kernel, with their
// outputs saved under logs.
func measure(k kernel, mod, logs, weft string, args []string, b budget) outcome {
	o := outcome{kernel: k}
	pkg := "./" + k.dir
	if err := os.RemoveAll(filepath.Join(mod, k.dir, "testdata", "weft")); err != nil {
		o.verdict, o.summary = failed, err.Error()
		return o
	}
	gargs := []string{"test", "-count=" + fmt.Sprint(b.goRuns), "-timeout=" + b.goTime.String()}
	if !k.blocking {
		gargs = append(gargs, "-race")
	}
	out, _, _ := run(mod, b.timeout, filepath.Join(logs, k.name+".go.log"), "go", append(gargs, pkg)...)
	o.goVerdict = goVerdict(out)

	report := filepath.Join(logs, k.name+".weft.json")
	os.Remove(report)
	wargs := append([]string{"test"}, args...)
	if !k.blocking {
		wargs = append(wargs, "-race")
	}
	wargs = append(wargs, "-explore.json="+report, pkg)
	out, elapsed, killed := run(mod, b.timeout, filepath.Join(logs, k.name+".weft.log"), weft, wargs...)
	o.elapsed = elapsed
	judge(&o, report, out, killed)
	return o
}

// goVerdict reads a go test run's output.
func goVerdict(out string) string {
	switch {
	case strings.Contains(out, "[build failed]") || strings.Contains(out, "[setup failed]"):
		return "build"
	case strings.Contains(out, "panic: test timed out"), strings.Contains(out, "timed out after"):
		return "hang"
	case strings.Contains(out, "all goroutines are asleep"):
		return "deadlock"
	case strings.Contains(out, "WARNING: DATA RACE"):
		return "race"
	case strings.Contains(out, "FAIL"):
		return "fail"
	}
	return "pass"
}

// exploreReport is the part of -explore.json read here.
type exploreReport struct {
	Tests []struct {
		Test       string
		Executions int
		Failures   []struct {
			Kind, Summary string
			Execution     int
		}
	}
}

// judge sets o's verdict from weft test's JSON report and output.
func judge(o *outcome, report, out string, killed bool) {
	var r exploreReport
	data, err := os.ReadFile(report)
	if err == nil {
		err = json.Unmarshal(data, &r)
	}
	switch {
	case killed:
		o.verdict, o.summary = timedOut, lastLines(out, 3)
		return
	case strings.Contains(out, "[build failed]") || strings.Contains(out, "[setup failed]"):
		o.verdict, o.summary = notBuilt, lastLines(out, 3)
		return
	case err != nil || len(r.Tests) == 0:
		o.verdict, o.summary = failed, lastLines(out, 3)
		return
	}
	for _, t := range r.Tests {
		o.executions += t.Executions
		if len(t.Failures) > 0 && o.kind == "" {
			f := t.Failures[0]
			o.kind, o.execution, o.summary = f.Kind, f.Execution+1, f.Summary
		}
	}
	switch {
	case o.kind != "" && expected(o.blocking, o.kind):
		o.verdict = found
	case o.kind != "":
		o.verdict = other
	case strings.Contains(out, "--- FAIL") || strings.Contains(out, "\nFAIL"):
		o.verdict, o.summary = failed, lastLines(out, 3)
	default:
		o.verdict = missed
	}
}

// expected reports whether a failure of this kind is the way a kernel's
// bug shows: a blocking bug leaves goroutines blocked, and a non-blocking
// one races, panics or breaks the test's check.
func expected(blocking bool, kind string) bool {
	if blocking {
		return kind == "deadlock" || kind == "leak"
	}
	return kind == "race" || kind == "panic" || kind == "error"
}

func lastLines(out string, n int) string {
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}

// run runs a command in dir with its combined output saved to log, and
// returns that output, the time it took and whether it was killed at the
// timeout (with its children: go test's test binaries).
func run(dir string, timeout time.Duration, log, name string, args ...string) (string, time.Duration, bool) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=")
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	start := time.Now()
	err := cmd.Run()
	elapsed := time.Since(start)
	killed := ctx.Err() != nil
	if err != nil && !killed {
		if _, exit := err.(*exec.ExitError); !exit {
			fmt.Fprintf(&buf, "\n%s: %v\n", name, err)
		}
	}
	if killed {
		fmt.Fprintf(&buf, "\n%s killed after %v\n", name, timeout)
	}
	os.WriteFile(log, buf.Bytes(), 0o644)
	return buf.String(), elapsed, killed
}
