package weft

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/weftdev/weft/corpus"
	"github.com/weftdev/weft/explore"
	"github.com/weftdev/weft/internal/text"
	"github.com/weftdev/weft/sched"
)

// finding turns what rapid reported into a Finding with a corpus entry:
// the shrunk case's stream of bits, read from the fail file rapid wrote
// (which is then removed: the corpus keeps the case), and its schedule.
func (s *search) finding() *Finding {
	msg := strings.Join(s.tb.errs, "\n")
	f := &Finding{Executions: s.cases}
	p := &PropertyInfo{Cases: s.cases, Runs: s.runs, FirstInputs: s.firstIn, Inputs: s.finalIn, Draws: s.tb.drawn}
	f.Property = p
	if s.first == nil {
		// rapid failed for a reason of its own: the draw function
		// panicked, or too many cases were rejected.
		f.Failure = &sched.Failure{Kind: sched.Error, Message: strings.TrimSpace(msg)}
		f.Nondeterminism = errors.New("rapid failed outside weft's executions")
		f.Final = &sched.Result{Failure: f.Failure}
		return f
	}
	p.First = s.first.result
	f.Found = &explore.Finding{Result: s.first.result, Iteration: s.cases - 1, Strategy: "rapid"}
	if m := rapidSeedRE.FindStringSubmatch(msg); m != nil {
		p.Seed, _ = strconv.ParseUint(m[1], 10, 64)
		f.Found.Seed = p.Seed
	}
	final := s.final
	if final == nil || strings.Contains(msg, "[rapid] flaky test") {
		f.Failure, f.Final = s.first.failure, s.first.result
		f.Nondeterminism = fmt.Errorf("rapid ran the failing case again and it did not fail the same way: %s",
			firstLine(strings.TrimPrefix(msg, "[rapid] ")))
		return f
	}
	f.Failure, f.Final, p.DeterministicRuns, p.detailer = final.failure, final.result, s.hashes[final.result.Hash], final.detailer
	p.Deviations = final.devs
	f.Minimized = explore.Minimized{Result: final.result, Before: s.first.result.Schedule().Preemptions(),
		After: final.result.Schedule().Preemptions(), Runs: s.runs}
	if final.t != nil {
		f.Logs, f.out = final.t.logs(), final.t.out
	}
	input, err := takeFailFile(msg)
	if err != nil {
		f.Nondeterminism = err // nothing to replay the inputs from: not saved
		return f
	}
	f.Entry = &corpus.Entry{
		Test:        s.cfg.name,
		Found:       corpus.Found{Strategy: "rapid", Seed: p.Seed, Iteration: s.cases - 1},
		Failure:     f.Failure.Summary(),
		Signature:   f.Failure.Signature(),
		Preemptions: f.Minimized.After,
		Original:    f.Minimized.Before,
		Hash:        final.result.Hash,
		Input:       input,
		Schedule:    final.result.Schedule(),
	}
	return f
}

var (
	rapidSeedRE     = regexp.MustCompile(`-rapid\.seed=(\d+)`)
	rapidFailFileRE = regexp.MustCompile(`-rapid\.failfile=("(?:[^"\\]|\\.)*")`)
)

// takeFailFile reads the stream of bits of the shrunk case from the fail
// file rapid names in its report, and removes the file, with its
// directories if they are left empty.
func takeFailFile(msg string) ([]uint64, error) {
	m := rapidFailFileRE.FindStringSubmatch(msg)
	if m == nil {
		return nil, errors.New("rapid wrote no fail file (-rapid.nofailfile?), so its inputs cannot be saved: not saved")
	}
	path, err := strconv.Unquote(m[1])
	if err != nil {
		return nil, fmt.Errorf("rapid's fail file %s: %v", m[1], err)
	}
	words, err := readFailFile(path)
	if err != nil {
		return nil, err
	}
	os.Remove(path)
	for dir := filepath.Dir(path); os.Remove(dir) == nil && filepath.Base(dir) != "testdata"; dir = filepath.Dir(dir) {
		// removed, being empty: the corpus keeps the case
	}
	return words, nil
}

// readFailFile reads the words of a fail file of rapid: comment lines
// (#), a line "version#seed", then one hexadecimal word a line.
func readFailFile(path string) ([]uint64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading rapid's fail file: %w", err)
	}
	defer f.Close()
	var words []uint64
	header := false
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case !header:
			if !strings.Contains(line, "#") {
				return nil, fmt.Errorf("%s:%d: want rapid's version#seed line, found %q", path, n, line)
			}
			header = true
		default:
			w, err := strconv.ParseUint(line, 0, 64)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %v", path, n, err)
			}
			words = append(words, w)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading rapid's fail file: %w", err)
	}
	if !header {
		return nil, fmt.Errorf("%s: not a fail file of rapid: no version#seed line", path)
	}
	return words, nil
}

// followCase runs a saved case: rapid draws its inputs again from the
// entry's bits (rapid.MakeFuzz, which logs the draws to t), and the
// saved schedule is replayed.
func followCase(t *testing.T, draw func(*rapid.T) Case, cfg *config, e *corpus.Entry) (*caseRun, error) {
	if e.Input == nil {
		return nil, fmt.Errorf("the entry has no input: line: it was not saved by a property test")
	}
	var run *caseRun
	var drawErr any
	rapid.MakeFuzz(func(r *rapid.T) {
		defer func() {
			if p := recover(); p != nil {
				drawErr = p
			}
		}()
		schedule := e.Schedule
		if schedule == nil {
			schedule = sched.Schedule{} // the default policy: not nil, which draws one
		}
		run = runCase(r, draw, cfg, schedule, true)
	})(t, entryInput(e))
	if drawErr != nil {
		return nil, fmt.Errorf("drawing the saved inputs failed (the test's draws changed since it was saved?): %v", drawErr)
	}
	if run.invalid != "" {
		return nil, fmt.Errorf("rapid rejected the saved inputs inside the execution (the test's draws changed since it was saved?): %s", run.invalid)
	}
	return run, nil
}

// followCaseEntry is the subtest of a saved entry of a property test.
func followCaseEntry(t *testing.T, draw func(*rapid.T) Case, cfg *config, f corpus.File) {
	t.Helper()
	run, err := followCase(t, draw, cfg, f.Entry)
	if err != nil {
		t.Fatalf("weft: %s: %v", f.Path, err)
	}
	for _, d := range run.drift {
		t.Logf("weft: drift: %s", d)
	}
	if run.t != nil {
		show(t, run.t.out, run.failure != nil)
	}
	if run.failure == nil {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "weft: the saved case %s fails\n", f.Path)
	writeFailure(&b, run.failure, run.result.More)
	if f.Entry.Signature != "" && f.Entry.Signature != run.failure.Signature() {
		fmt.Fprintf(&b, "%s%s)\n", savedAs, f.Entry.Failure)
	}
	if run.detailer != nil {
		writeIndented(&b, "  ", run.detailer.Details())
	}
	writeTimeline(&b, run.result)
	t.Error(strings.TrimRight(b.String(), "\n"))
}

// propertyReport formats a Finding of property mode for the test log.
func propertyReport(f *Finding, cfg *config, saved string, saveErr error) string {
	var b strings.Builder
	p := f.Property
	how := fmt.Sprintf("rapid, seed %d; %s run", p.Seed, text.Count(p.Cases, "case"))
	if f.Nondeterminism != nil {
		fmt.Fprintf(&b, "weft: case %d (%s) failed, but was not saved\n", p.Cases, how)
		writeFailure(&b, f.Failure, nil)
		fmt.Fprintf(&b, "  why: %v\n", f.Nondeterminism)
		return b.String()
	}
	fmt.Fprintf(&b, "weft: found a failing case in case %d (%s)\n", p.Cases, how)
	writeFailure(&b, f.Failure, f.Final.More)
	writeProperty(&b, p, f.Final)
	writeTimeline(&b, f.Final)
	if saveErr != nil {
		fmt.Fprintf(&b, "  could not save the case: %v\n", saveErr)
		return b.String()
	}
	id := saved[strings.LastIndexAny(saved, `/\`)+1:]
	fmt.Fprintf(&b, "  saved: %s\n", saved)
	fmt.Fprintf(&b, "  replay: %s\n", replayCommand(cfg.command, f.Entry.Test, id))
	return b.String()
}
