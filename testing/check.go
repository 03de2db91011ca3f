package weft

import (
	"flag"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/weftdev/weft/corpus"
	"github.com/weftdev/weft/internal/frames"
	"github.com/weftdev/weft/internal/race"
	jsonreport "github.com/weftdev/weft/report"
	"github.com/weftdev/weft/sched"
)

// Check runs body under weft's schedule controller.
//
// First it replays every schedule saved for the test under
// testdata/weft/<TestName>/ as a subtest named by the entry's id: the
// subtest fails if the execution fails, so a saved schedule is a regression
// test that passes once the bug is fixed. Then, in a subtest named explore,
// it explores: with -explore until a failure or the budget ends, otherwise a
// small exploration (Iterations, default 100, fewer past 2^19 events or 10
// seconds) with seeds derived from the test's name, deterministic from run
// to run.
//
// A failing execution is minimized, verified, saved and reported: the
// failure, a timeline around each preemption, the preemption count before
// and after minimization, the saved path, and the command that replays it.
func Check(t *testing.T, body func(*T), opts ...Option) {
	t.Helper()
	frames.NoteTestRunner()
	cfg, err := newConfig(t.Name(), opts, true)
	if err != nil {
		t.Fatal(err)
	}
	index := checkIndex(t)
	if inWorker(t, body, cfg, index) {
		return
	}
	files, err := corpus.List(cfg.dir)
	if err != nil {
		t.Fatalf("weft: %v", err)
	}
	corpusFails := false
	for _, f := range files {
		var sig string
		ok := t.Run(f.ID, func(t *testing.T) {
			t.Helper()
			if f.Err != nil {
				t.Fatalf("weft: malformed corpus entry: %v", f.Err)
			}
			sig = followEntry(t, body, cfg.in(t), f)
		})
		// A malformed file is reported, but is no saved failure.
		if !ok && f.Err == nil {
			corpusFails = true
			if sig != "" && !slices.Contains(cfg.known, sig) {
				cfg.known = append(cfg.known, sig)
			}
		}
	}
	if cfg.explore && cfg.cont {
		// A continued exploration (a nightly run) goes on past the saved
		// failures, which it does not save again.
		corpusFails = false
	}
	if cfg.inline {
		// An instrumented test explores in the test itself, so that
		// go test -run TestX/sub selects the test's own subtests (TB.Run),
		// unless the pattern names a saved schedule.
		if corpusFails {
			t.Log("weft: a saved schedule fails; fix that first")
		} else if !selectsEntry(files) {
			cfg := cfg.in(t)
			if cfg.recorder != "" {
				recordTest(t, body, cfg)
			}
			if cfg.recorder == "" || cfg.explore {
				cfg.spawn = spawner(t, index, cfg)
				exploreTest(t, body, cfg)
			}
		}
		return
	}
	if cfg.recorder != "" {
		t.Run("record", func(t *testing.T) {
			t.Helper()
			if corpusFails {
				t.Skip("weft: a saved schedule fails; fix that first")
			}
			recordTest(t, body, cfg.in(t))
		})
		if !cfg.explore {
			return
		}
	}
	parent := t
	t.Run("explore", func(t *testing.T) {
		t.Helper()
		if corpusFails {
			// As go test -fuzz does when its seed corpus fails: the saved
			// failures come first, and exploring would find them again.
			t.Skip("weft: a saved schedule fails; fix that first")
		}
		cfg := cfg.in(t)
		cfg.spawn = spawner(parent, index, cfg)
		exploreTest(t, body, cfg)
	})
}

// in returns the configuration for executions whose subtests show under
// test t.
func (c *config) in(t *testing.T) *config {
	d := *c
	d.sel = flagSelection(t.Name())
	return &d
}

// selectsEntry reports whether go test's -run pattern selects one of the
// saved schedules by its id, below the test's own name.
func selectsEntry(files []corpus.File) bool {
	f := flag.Lookup("test.run")
	if f == nil {
		return false
	}
	pats := splitPattern(f.Value.String())
	if len(pats) < 2 {
		return false
	}
	for _, file := range files {
		if ok, err := regexp.MatchString(pats[1], file.ID); err == nil && ok {
			return true
		}
	}
	return false
}

// followEntry follows a saved schedule as a subtest, and returns the
// signature of its failure, "" if it passed.
func followEntry(t *testing.T, body func(*T), cfg *config, f corpus.File) string {
	t.Helper()
	if n := f.Entry.Parallel; n > 0 {
		// The limit the schedule ran under, whatever -parallel says.
		c := *cfg
		c.sel.parallel = n
		cfg = &c
	}
	r, drift, last := follow(body, f.Entry.Schedule, cfg)
	if err := writeTimelineJSON(r, f); err != nil {
		t.Error(err)
	}
	for _, d := range drift {
		t.Logf("weft: drift: %s", d)
	}
	if last != nil {
		show(t, last.out, r.Failure != nil)
	}
	if r.Failure == nil {
		if savedKind(f.Entry) == sched.Race && !race.Enabled {
			t.Skipf("weft: %s was saved for a data race (%s); only the race detector reports it: replay it with %s -race",
				f.Path, f.Entry.Failure, cfg.command)
		}
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "weft: the saved schedule %s fails\n", f.Path)
	writeFailure(&b, r.Failure, r.More)
	if f.Entry.Signature != "" && f.Entry.Signature != r.Failure.Signature() {
		fmt.Fprintf(&b, "%s%s)\n", savedAs, f.Entry.Failure)
	}
	writeTimeline(&b, r)
	t.Error(strings.TrimRight(b.String(), "\n"))
	return r.Failure.Signature()
}

func exploreTest(t *testing.T, body func(*T), cfg *config) {
	t.Helper()
	if !startExploring(t, cfg) {
		return
	}
	fs := &findings{cfg: cfg, rec: newRecord(cfg), afterOthers: sched.Executions() > 0}
	start := time.Now()
	x, err := find(body, cfg, progressLine(cfg, &fs.failures), fs.found)
	if err != nil {
		t.Fatal(err)
	}
	logNotes(t, cfg, x)
	elapsed := time.Since(start)
	if x.finding != nil {
		fs.found(x.finding)
	}
	for _, s := range fs.reports {
		s.report(t)
	}
	for _, n := range fs.notes {
		t.Log(n)
	}
	if len(fs.notes) == 0 {
		logOutcome(t, cfg, x, elapsed, fs.failures.Load())
	} else if fs.failures.Load() == 0 && !x.stopped {
		// The failures were refuted (the test passes, as go test's
		// fresh process): its first execution shows, subtests included.
		show(t, x.first, false)
	}
	if !cfg.explore {
		return
	}
	if profiling() {
		sampleProfile(body, cfg, x)
	}
	rec := fs.rec
	rec.Executions, rec.ElapsedSeconds, rec.Interrupted = x.executions, elapsed.Seconds(), x.stopped
	rec.ExecutionsPerSecond = float64(x.executions) / max(elapsed.Seconds(), 1e-9)
	if err := publish(rec, cfg, x.stopped); err != nil {
		t.Error(err)
	}
}

// startExploring readies an -explore run (its signal handlers) and reports
// whether there is anything to explore: not after an interrupt (the test
// is skipped), not for a shard with no executions of its own.
func startExploring(t *testing.T, cfg *config) bool {
	t.Helper()
	if !cfg.explore {
		return true
	}
	if interrupted() {
		t.Skip("weft: not explored: the run was interrupted (SIGINT or SIGTERM)")
	}
	cfg.stop, cfg.hurry = watchSignals()
	if cfg.shards > 1 && cfg.exploreIters > 0 && cfg.exploreConfig().Iterations == 0 {
		t.Logf("weft: shard %d of %d has none of the %d executions to explore", cfg.shard, cfg.shards, cfg.exploreIters)
		return false
	}
	return true
}

// progressLine returns what prints -explore's progress line every few
// seconds, or nil under -explore.quiet and without -explore.
func progressLine(cfg *config, failures *atomic.Int64) func(time.Duration, int) {
	if !cfg.explore || cfg.quiet {
		return nil
	}
	return func(elapsed time.Duration, n int) {
		fmt.Printf("weft: %s: elapsed: %v, execs: %d (%.0f/sec), failures: %d\n",
			cfg.name, elapsed.Round(time.Second), n, float64(n)/elapsed.Seconds(), failures.Load())
	}
}

// findings collects the judged failures of a test's exploration. A
// continued exploration judges its failures while it goes on: each is
// saved at once, and reported once the exploration is over, from the
// test's goroutine.
type findings struct {
	cfg      *config
	failures atomic.Int64
	mu       sync.Mutex
	rec      jsonreport.Test // the JSON report, its failures added as they are saved
	reports  []saved
	notes    []string // failures a fresh process did not reproduce
	// afterOthers: executions ran in the process before the exploration
	// (earlier tests', this test's saved schedules), so that even its
	// first execution may start from the state they left.
	afterOthers bool
}

// outsideTest names the last test of this process whose execution a
// goroutine outside it interfered with (an Outside failure): that
// execution ran on past it, its goroutines missing what the outsider did,
// and left package variables as no go test run leaves them.
var outsideTest atomic.Pointer[string]

// outsideNote is what a note of a failure refuted in a fresh process adds
// when an earlier test of the process failed as Outside: the likely origin
// of the state the failure came from.
func outsideNote(test string) string {
	name := outsideTest.Load()
	if name == nil || *name == test {
		return ""
	}
	return "\n  earlier in this process, " + *name + " failed as outside: a goroutine outside its execution (started at package init) used its objects, " +
		"so that execution ended in a state no go test run reaches, which later tests that share its package variables start from"
}

// found saves a judged failure and adds it to the reports, unless a fresh
// process does not reproduce it (see confirmFresh): then it adds a note.
// A failure is confirmed when executions ran in the process before its
// own: those of the exploration, or of earlier tests.
func (fs *findings) found(f *Finding) {
	if fs.refutedUnreplayed(f) {
		return
	}
	s := save(f, fs.cfg)
	if s.path != "" && fs.confirms(f) {
		switch v, fresh := confirmFresh(f.Entry.Test, s.path); v {
		case refuted:
			s.remove()
			fs.mu.Lock()
			defer fs.mu.Unlock()
			fs.notes = append(fs.notes, refutedNote(f, s.path)+outsideNote(f.Entry.Test))
			return
		case differs:
			if !outsideFresh(fresh) {
				s.text += "\n" + differsNote(fresh)
				break
			}
			// What go test would replay fails there as nothing
			// replays: the entry goes, and the report says why.
			s.remove()
			f.Entry, f.Nondeterminism = nil, outsideFreshError(fresh)
			s = save(f, fs.cfg)
		}
	}
	if f.Failure != nil && f.Failure.Kind == sched.Outside {
		outsideTest.Store(&fs.cfg.name)
	}
	fs.failures.Add(1)
	if profiling() && f.Final != nil {
		profileBuilder().AddPreemptions(fs.cfg.name, f.Final)
	}
	fs.mu.Lock()
	defer fs.mu.Unlock()
	addFailure(&fs.rec, f, fs.cfg, s.path, s.page)
	fs.reports = append(fs.reports, s)
}

// confirms reports whether a failure is confirmed in a fresh process
// before it is reported: when other executions ran in the process before
// its own, and this process is not itself a fresh one.
func (fs *findings) confirms(f *Finding) bool {
	return f.Found != nil && (f.Found.Iteration > 0 || fs.afterOthers) && !confirming()
}

// refutedUnreplayed confirms in a fresh process a failure that did not
// replay identically in this one, which is not saved: groupcache's
// TestHTTPPool talks to child processes, and each of its executions after
// the first fails at a second NewHTTPPool. If the fresh process, following
// the schedule as found, passes, the failure came from state earlier
// executions left: refutedUnreplayed adds a note and reports true.
func (fs *findings) refutedUnreplayed(f *Finding) bool {
	if f.Entry != nil || f.Nondeterminism == nil || f.Crash != nil || f.Found == nil || f.Found.Result == nil ||
		f.Failure.Kind == sched.Outside || !fs.confirms(f) {
		return false
	}
	e := &corpus.Entry{Test: fs.cfg.name, Found: foundOf(f.Found), Failure: f.Failure.Summary(),
		Signature: f.Failure.Signature(), Hash: f.Found.Result.Hash, Schedule: f.Found.Result.Schedule()}
	path, err := corpus.Write(fs.cfg.dir, e)
	if err != nil {
		return false
	}
	v, _ := confirmFresh(e.Test, path)
	saved{path: path}.remove()
	if v != refuted {
		return false
	}
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fs.notes = append(fs.notes, refutedNote(f, ""))
	return true
}

// logNotes logs what the exploration noted on the way: its notes, the
// goroutines that kept running, the executions that overran their explored
// events, and what lost worker processes wrote (but a crash already in the
// finding).
func logNotes(t *testing.T, cfg *config, x exploration) {
	t.Helper()
	for _, n := range x.notes {
		t.Logf("weft: %s", n)
	}
	if len(x.kept) > 0 {
		t.Log(keptRunning(x.kept))
	}
	switch {
	case x.overran == 1:
		t.Logf("weft: 1 execution ran past its %d explored events (-explore.maxsteps), to %d events: the rest of it ran unexplored",
			cfg.maxSteps, x.longest)
	case x.overran > 1:
		t.Logf("weft: %d executions ran past their %d explored events (-explore.maxsteps), the longest to %d events: the rest of each ran unexplored",
			x.overran, cfg.maxSteps, x.longest)
	}
	for _, l := range x.lost {
		if x.finding == nil || x.finding.Crash == nil || !strings.Contains(l, x.finding.Crash.Output) {
			t.Logf("weft: %s", strings.TrimRight(l, "\n"))
		}
	}
}

// logOutcome logs how the exploration ended: interrupted, without a
// failure, or with the distinct failures of a continued exploration.
func logOutcome(t *testing.T, cfg *config, x exploration, elapsed time.Duration, failures int64) {
	t.Helper()
	switch {
	case x.stopped:
		t.Logf("weft: interrupted (SIGINT or SIGTERM) after %d executions, %s: %d failures found, saved and reported",
			x.executions, elapsed.Round(time.Millisecond), failures)
	case failures == 0:
		show(t, x.first, false)
		if cfg.explore {
			t.Logf("weft: no failure in %d executions, %s (strategy %s, seed %#x, %s)",
				x.executions, elapsed.Round(time.Millisecond), cfg.strategy, cfg.seed, workersOf(cfg, len(x.lost)))
		} else if x.executions < cfg.iterations {
			t.Logf("weft: no failure in %d of %d executions: plain go test explores a test for %v or %d events at most (-explore explores on)",
				x.executions, cfg.iterations, cfg.plainTime, cfg.plainEvents)
		}
	case cfg.cont:
		t.Logf("weft: %d distinct failures in %d executions, %s (%d more failures repeated them or saved schedules)",
			failures, x.executions, elapsed.Round(time.Millisecond), x.repeats)
	}
}

// workersOf describes where the executions of an exploration ran, lost
// of its worker processes having died or not started (their executions
// ran in the test process).
func workersOf(cfg *config, lost int) string {
	n := cfg.exploreWorkers()
	switch {
	case cfg.spawn == nil:
		return "in the test process"
	case lost > 0:
		return fmt.Sprintf("%d worker processes, %d lost: their executions ran in the test process", n, lost)
	}
	return fmt.Sprintf("%d worker processes", n)
}

// saved is a Finding saved to the test's corpus, with its report.
type saved struct {
	f    *Finding
	path string // the saved entry's path; "" if not saved
	page string // its timeline's path (-explore.html); "" for none
	text string // the report
}

// save saves a Finding to the test's corpus, unless it does not replay
// identically, with its timeline if asked, and writes its report.
func save(f *Finding, cfg *config) saved {
	if f.Entry == nil {
		return saved{f: f, text: strings.TrimRight(report(f, cfg, "", nil), "\n")}
	}
	if n := len(f.Entry.Schedule); n > maxSavedChoices {
		err := &tooLongError{choices: n, bytes: len(f.Entry.Marshal())}
		return saved{f: f, text: strings.TrimRight(report(f, cfg, "", err), "\n")}
	}
	path, werr := corpus.Write(cfg.dir, f.Entry)
	s := saved{f: f, path: path, text: report(f, cfg, path, werr)}
	if werr != nil {
		s.path = ""
	}
	page, err := writeHTML(f, cfg, corpus.ID(f.Entry.Marshal()))
	switch {
	case err != nil:
		s.text += fmt.Sprintf("  timeline: %v\n", err)
	case page != "":
		s.text += fmt.Sprintf("  timeline: %s\n", fileURL(page))
		s.page = page
	}
	s.text = strings.TrimRight(s.text, "\n")
	return s
}

// maxSavedChoices bounds the choices of a schedule saved to the corpus, a
// file of about 55 bytes a choice that a repository keeps and every go test
// reads. A minimized schedule has a handful, and fairness forces one every
// FairBound events at most; one that minimization could not shrink can
// have millions (karlseguin/ccache's Test_ConcurrentStop: 5.8 million, a
// file of 320 MB). Such a failure is reported with the command that finds
// it again instead.
const maxSavedChoices = 1 << 16

// tooLongError is why a schedule of more than maxSavedChoices choices is
// not saved.
type tooLongError struct {
	choices, bytes int
}

func (e *tooLongError) Error() string {
	return fmt.Sprintf("its schedule has %d choices, a file of %.1f MB, more than the %d a corpus file keeps",
		e.choices, float64(e.bytes)/1e6, maxSavedChoices)
}

// remove removes the saved entry and its timeline.
func (s saved) remove() {
	for _, p := range []string{s.path, s.page} {
		if p != "" {
			os.Remove(p)
		}
	}
	os.Remove(filepath.Dir(s.path)) // the test's corpus directory, if now empty
}

// report fails the test with the report of a saved Finding, after what its
// final replay wrote.
func (s saved) report(t *testing.T) {
	t.Helper()
	if s.f.Entry != nil {
		show(t, s.f.out, true)
	}
	t.Error(s.text)
}

// saveAndReport saves a Finding and fails the test with its report.
func saveAndReport(t *testing.T, f *Finding, cfg *config) {
	t.Helper()
	save(f, cfg).report(t)
}

// fileURL is the file: URL of an absolute path, which terminals show as a
// link.
func fileURL(path string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}

// savedKind returns the kind of failure e was saved for; 0 if its
// signature does not say.
func savedKind(e *corpus.Entry) sched.FailureKind {
	name, _, _ := strings.Cut(e.Signature, " ")
	k, _ := sched.ParseFailureKind(name)
	return k
}

// replayCommand is the go test command that replays a saved entry: its
// subtest, in the current package.
func replayCommand(command, testName, id string) string {
	return runCommand(command, testName+"/"+id)
}

// packageDir returns the current directory (go test runs a package's tests
// in its directory) relative to the module root, as a go test argument.
func packageDir() string {
	wd, err := os.Getwd()
	if err != nil {
		return "."
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			rel, err := filepath.Rel(dir, wd)
			if err != nil || rel == "." {
				return "."
			}
			return "./" + filepath.ToSlash(rel)
		}
		if filepath.Dir(dir) == dir {
			return "."
		}
	}
}
