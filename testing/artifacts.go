package weft

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/weftdev/weft/corpus"
	"github.com/weftdev/weft/explore"
	"github.com/weftdev/weft/internal/contention"
	"github.com/weftdev/weft/internal/timeline"
	jsonreport "github.com/weftdev/weft/report"
	"github.com/weftdev/weft/sched"
	"golang.org/x/mod/modfile"
)

// What a test process writes about its explorations besides the test log,
// for CI jobs and people: the JSON report (-explore.json), the profile
// (-explore.profile), the timelines of failures (-explore.html), and, for
// weft show, the timeline of a saved schedule (-explore.timeline). The
// report and the profile cover every exploration of the process, and are
// written again, whole, after each.

// processStart starts the process's report.
var processStart = time.Now()

// artifacts is the process's: one report, one profile.
var artifacts struct {
	mu      sync.Mutex
	run     *jsonreport.Run
	profile *contention.Builder
}

// profiling reports whether -explore.profile asks for a profile.
func profiling() bool { return *flagProfile != "" }

// profileBuilder returns the process's profile.
func profileBuilder() *contention.Builder {
	artifacts.mu.Lock()
	defer artifacts.mu.Unlock()
	if artifacts.profile == nil {
		artifacts.profile = contention.New()
	}
	return artifacts.profile
}

// publish adds an exploration's record to the process's report and writes
// the report and the profile, as asked. Errors are the test's to jsonreport.
func publish(rec jsonreport.Test, cfg *config, interrupted bool) error {
	artifacts.mu.Lock()
	defer artifacts.mu.Unlock()
	var errs []string
	if *flagJSON != "" {
		if artifacts.run == nil {
			artifacts.run = &jsonreport.Run{Started: processStart}
		}
		r := artifacts.run
		r.Tests = append(r.Tests, rec)
		r.Interrupted = r.Interrupted || interrupted
		r.ElapsedSeconds = time.Since(r.Started).Seconds()
		if cfg.shards > 1 {
			r.Shard = &jsonreport.Shard{Index: cfg.shard, Count: cfg.shards}
		}
		if err := r.Write(*flagJSON); err != nil {
			errs = append(errs, fmt.Sprintf("-explore.json: %v", err))
		}
	}
	if *flagProfile != "" && artifacts.profile != nil {
		if err := artifacts.profile.WriteFile(*flagProfile); err != nil {
			errs = append(errs, fmt.Sprintf("-explore.profile: %v", err))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("weft: %s", strings.Join(errs, "; "))
	}
	return nil
}

// newRecord starts the report of a test's exploration.
func newRecord(cfg *config) jsonreport.Test {
	rec := jsonreport.Test{Package: packagePath(), Dir: packageDir(), Test: cfg.name, Strategy: cfg.strategy,
		Seed: jsonreport.Seed(cfg.seed), Known: cfg.known, Failures: []jsonreport.Failure{}}
	ec := cfg.exploreConfig()
	rec.BudgetSeconds, rec.BudgetExecutions = ec.Duration.Seconds(), ec.Iterations
	return rec
}

// addFailure adds a failure reported to a test's report: saved at path (empty
// if not), its timeline at page.
func addFailure(rec *jsonreport.Test, f *Finding, cfg *config, path, page string) {
	rf := jsonreport.Failure{Kind: f.Failure.Kind.String(), Signature: f.Failure.Signature(), Summary: f.Failure.Summary(),
		Execution: f.Found.Iteration, Seed: jsonreport.Seed(f.Found.Seed), HTML: page}
	if f.Crash != nil {
		rf.Kind, rf.Signature = "crash", "crash"
	}
	m := f.Minimized
	rf.Preemptions, rf.PreemptionsFound = m.After, m.Before
	switch {
	case path != "":
		rf.Saved = true
		rf.Corpus = filepath.ToSlash(filepath.Join(packageDir(), path))
		rf.Replay = replayCommand(replayTool(cfg, f), f.Entry.Test, filepath.Base(path))
		rec.Saved++
	case f.Crash != nil:
		rf.NotSaved = "the execution ended its worker process, leaving no schedule"
	case f.Nondeterminism != nil:
		rf.NotSaved = "it does not replay identically: " + f.Nondeterminism.Error()
	default:
		rf.NotSaved = "the schedule could not be written"
	}
	rec.Failures = append(rec.Failures, rf)
}

// replayTool is the command that replays a finding: go test, or weft test,
// with -race for a race.
func replayTool(cfg *config, f *Finding) string {
	if f.Failure != nil && f.Failure.Kind == sched.Race {
		return cfg.command + " -race"
	}
	return cfg.command
}

// writeHTML writes the timeline of a finding's traced execution to
// -explore.html's directory, and returns the page's path; "" if not asked
// or not traced.
func writeHTML(f *Finding, cfg *config, id string) (string, error) {
	if flagHTML.dir == "" || f.Final == nil || len(f.Final.Trace) == 0 {
		return "", nil
	}
	dir, err := filepath.Abs(flagHTML.dir)
	if err != nil {
		return "", fmt.Errorf("weft: -explore.html: %w", err)
	}
	page := filepath.Join(dir, fileName(cfg.name)+"-"+id+".html")
	tl := timeline.FromResult(f.Final, cfg.name, foundNote(f))
	var b bytes.Buffer
	if err := tl.HTML(&b); err != nil {
		return "", err
	}
	if err := jsonreport.WriteFile(page, b.Bytes()); err != nil {
		return "", fmt.Errorf("weft: -explore.html: %w", err)
	}
	return page, nil
}

// foundNote says how a finding was found, under its timeline's title.
func foundNote(f *Finding) string {
	n := fmt.Sprintf("found in execution %d (strategy %s, seed %#x)", f.Found.Iteration+1, f.Found.Strategy, f.Found.Seed)
	if m := f.Minimized; m.Before > 0 || m.After > 0 {
		n += fmt.Sprintf("; %d preemptions, minimized from %d", m.After, m.Before)
	}
	return n
}

// fileName turns a test's name into a file name: what corpus.Dir makes of
// each part, joined by '_'.
func fileName(test string) string {
	rel, err := filepath.Rel(filepath.Join("testdata", "weft"), corpus.Dir(test))
	if err != nil {
		rel = corpus.Dir(test)
	}
	return strings.ReplaceAll(filepath.ToSlash(rel), "/", "_")
}

// writeTimelineJSON writes the timeline of a replayed saved schedule as JSON
// to -explore.timeline, for weft show.
func writeTimelineJSON(r *sched.Result, f corpus.File) error {
	if *flagTimeline == "" {
		return nil
	}
	tl := timeline.FromResult(r, f.Entry.Test, fmt.Sprintf("saved schedule %s: %s", f.Path, f.Entry.Failure))
	data, err := json.Marshal(tl)
	if err != nil {
		return err
	}
	if err := jsonreport.WriteFile(*flagTimeline, data); err != nil {
		return fmt.Errorf("weft: -explore.timeline: %w", err)
	}
	return nil
}

// packagePath returns the import path of the package in the current
// directory, from its module's go.mod; "" if unknown.
func packagePath() string {
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil {
			mod := modfile.ModulePath(data)
			rel, err := filepath.Rel(dir, wd)
			if mod == "" || err != nil {
				return ""
			}
			if rel == "." {
				return mod
			}
			return mod + "/" + filepath.ToSlash(rel)
		}
		if filepath.Dir(dir) == dir {
			return ""
		}
	}
}

// Profiles sample an exploration: at most profileSamples of its executions,
// spread over it, run again with their stacks for at most profileTime.
const (
	profileSamples = 16
	profileTime    = 2 * time.Second
)

// sampleProfile adds the events of a sample of an exploration's executions
// to the process's profile.
func sampleProfile(body func(*T), cfg *config, x exploration) {
	n := x.executions
	if n == 0 {
		return
	}
	b := profileBuilder()
	ec := cfg.exploreConfig()
	opts := cfg.schedOptions()
	opts.Trace, opts.Stacks = true, true
	deadline := time.Now().Add(profileTime)
	est := x.estimate
	k := min(n, profileSamples)
	for s := range k {
		if time.Now().After(deadline) {
			return
		}
		r, err := explore.Rerun(wrap(body, cfg, nil), ec, s*n/k, max(est, 1), opts)
		if err != nil {
			return
		}
		est = max(est, r.Decisions)
		b.AddEvents(cfg.name, r)
	}
}
