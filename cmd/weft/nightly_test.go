package main

import (
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/weftdev/weft/corpus"
	"github.com/weftdev/weft/internal/race"
	"github.com/weftdev/weft/report"
)

// TestNightly runs weft nightly, built as a user installs it, on weft's
// examples (testdata/nightly: the buggy twins, a test with two bugs, a
// fixed twin; and testdata/plain/counter, plain Go with a bug and its fix).
func TestNightly(t *testing.T) {
	if testing.Short() {
		t.Skip("runs weft nightly")
	}
	if race.Enabled {
		t.Skip("runs weft nightly processes: the race detector has nothing of this test's own to check")
	}
	weft := filepath.Join(t.TempDir(), "weft")
	if out, err := exec.Command("go", "build", "-o", weft, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	t.Run("shards", func(t *testing.T) {
		t.Parallel()
		testNightlyShards(t, weft)
	})
	t.Run("interrupt", func(t *testing.T) {
		t.Parallel()
		testNightlyInterrupt(t, weft)
	})
}

// nightlyModule is a fresh copy of testdata/nightly, with the plain-Go
// package that weft test's tests use (testdata/plain/counter) as ./plain.
func nightlyModule(t *testing.T) string {
	t.Helper()
	dir := weftModule(t, "example.com/nightly", "testdata/nightly")
	if err := os.CopyFS(filepath.Join(dir, "plain"), os.DirFS("testdata/plain/counter")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// weftCmd is a command running the weft binary in dir.
func weftCmd(weft, dir string, args ...string) *exec.Cmd {
	cmd := exec.Command(weft, args...)
	cmd.Dir = dir
	return cmd
}

// A short nightly, deterministic (iterations, not time), run whole and in
// two shards by two processes at once: the shards' corpora merged by weft
// merge hold what the whole run found, each failure once. The entries are
// listed by weft list and drawn by weft show.
func testNightlyShards(t *testing.T, weft string) {
	nightly := func(dir, js string, extra ...string) *exec.Cmd {
		args := append([]string{"nightly", "-explore.iters", "300", "-explore.seed", "7", "-explore.time", "10m",
			"-explore.workers", "1", "-explore.json", js}, extra...)
		return weftCmd(weft, dir, append(args, "./...")...)
	}
	out := t.TempDir()
	var shards []string
	var runs []*exec.Cmd
	var logs []*strings.Builder
	for i := range 2 {
		dir := nightlyModule(t)
		shards = append(shards, dir)
		cmd := nightly(dir, filepath.Join(out, "shard"+itoa(i)+".json"), "-explore.shard", itoa(i)+"/2")
		var log strings.Builder
		cmd.Stdout, cmd.Stderr = &log, &log
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		runs, logs = append(runs, cmd), append(logs, &log)
	}
	for i, cmd := range runs {
		if err := cmd.Wait(); exitCode(err) != 1 {
			t.Fatalf("shard %d/2: %v, want exit 1 (failures found)\n%s", i, err, logs[i])
		}
	}
	whole := nightlyModule(t)
	wholeJSON := filepath.Join(out, "whole.json")
	log, err := nightly(whole, wholeJSON).CombinedOutput()
	if exitCode(err) != 1 {
		t.Fatalf("weft nightly: %v, want exit 1\n%s", err, log)
	}
	for _, want := range []string{`package\s+test\s+executions\s+execs/s\s+failures\s+saved`, `\./examples\s+TestTwoBugs\s+300\s+\d+\s+3\s+3`,
		`\./plain\s+TestBug\s+300\s+\d+\s+1\s+1`, `saved: examples/testdata/weft/TestTwoBugs/`, `replay: weft test -run '\^TestTwoBugs\$/\^`} {
		if !regexp.MustCompile(want).Match(log) {
			t.Errorf("the summary lacks %s:\n%s", want, log)
		}
	}

	// The whole run's report: each distinct failure once, saved.
	r, err := report.Read(wholeJSON)
	if err != nil {
		t.Fatal(err)
	}
	found := failuresOf(t, r)
	if len(found["examples TestTwoBugs"]) != 3 || len(found["plain TestBug"]) != 1 || len(found["examples TestABBA"]) != 1 || len(found["examples TestFixed"]) != 0 || len(found["plain TestFixed"]) != 0 {
		t.Errorf("the whole run found %v", found)
	}
	if saved := savedFailures(t, whole); !maps.EqualFunc(saved, found, slices.Equal) {
		t.Errorf("the whole run saved %v, reported %v", saved, found)
	}

	// The shards ran the same executions between them.
	var shardFound []map[string][]string
	for i := range 2 {
		r, err := report.Read(filepath.Join(out, "shard"+itoa(i)+".json"))
		if err != nil {
			t.Fatal(err)
		}
		if r.Shard == nil || r.Shard.Index != i || r.Shard.Count != 2 {
			t.Errorf("shard %d's report: shard %+v", i, r.Shard)
		}
		for _, rt := range r.Tests {
			if rt.Test == "TestTwoBugs" && rt.Executions != 150 {
				t.Errorf("shard %d explored %d executions of TestTwoBugs, want 150", i, rt.Executions)
			}
		}
		shardFound = append(shardFound, failuresOf(t, r))
	}
	merged := nightlyModule(t)
	mlog, err := weftCmd(weft, merged, "merge", ".", shards[0], shards[1]).CombinedOutput()
	if err != nil {
		t.Fatalf("weft merge: %v\n%s", err, mlog)
	}
	union := savedFailures(t, merged)
	if !maps.EqualFunc(union, found, slices.Equal) {
		t.Errorf("the merged shards hold %v; the whole run found %v\n%s", union, found, mlog)
	}
	for key, sigs := range union {
		if both := slices.Concat(shardFound[0][key], shardFound[1][key]); len(both) > len(sigs) && !strings.Contains(string(mlog), "left out") {
			t.Errorf("%s: both shards found %v, and weft merge left nothing out:\n%s", key, both, mlog)
		}
	}
	again, err := weftCmd(weft, merged, "merge", ".", shards[0], shards[1]).CombinedOutput()
	if err != nil || !strings.Contains(string(again), "0 entries added") {
		t.Errorf("merging again: %v\n%s", err, again)
	}

	testListAndShow(t, weft, whole)
}

// testListAndShow checks weft list's table of a corpus and weft show's
// pictures of one of its entries.
func testListAndShow(t *testing.T, weft, dir string) {
	list, err := weftCmd(weft, dir, "list").CombinedOutput()
	if err != nil {
		t.Fatalf("weft list: %v\n%s", err, list)
	}
	lines := strings.Split(strings.TrimSpace(string(list)), "\n")
	if f := strings.Fields(lines[0]); !slices.Equal(f, []string{"ENTRY", "TEST", "KIND", "SIGNATURE", "PREEMPTIONS", "FOUND", "BY", "AGE"}) {
		t.Errorf("weft list's header: %q", lines[0])
	}
	var abba string
	for _, l := range lines[1:] {
		f := strings.Fields(l)
		if len(f) > 2 && f[1] == "TestABBA" {
			abba = f[0]
			if f[2] != "deadlock" || !strings.HasPrefix(f[3], "deadlock") || f[len(f)-1] != "now" {
				t.Errorf("weft list's line of TestABBA's entry: %q", l)
			}
		}
	}
	if abba == "" {
		t.Fatalf("weft list shows no entry of TestABBA:\n%s", list)
	}
	text, err := weftCmd(weft, dir, "show", abba).CombinedOutput()
	if err != nil || !strings.Contains(string(text), "failure:     deadlock") || !strings.Contains(string(text), "choices:") {
		t.Errorf("weft show %s: %v\n%s", abba, err, text)
	}
	page, trace := filepath.Join(t.TempDir(), "abba.html"), filepath.Join(t.TempDir(), "abba.json")
	if out, err := weftCmd(weft, dir, "show", "-html", page, "-perfetto", trace, abba).CombinedOutput(); err != nil {
		t.Fatalf("weft show -html -perfetto: %v\n%s", err, out)
	}
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<svg", "goroutine 0.1", "goroutine 0.2", "Mutex.Lock", "bank.go:23", `class="failure"`, `class="link"`, "saved schedule"} {
		if !strings.Contains(string(html), want) {
			t.Errorf("weft show -html: the page lacks %q", want)
		}
	}
	data, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	var events struct {
		TraceEvents []struct {
			Ph   string         `json:"ph"`
			Name string         `json:"name"`
			Args map[string]any `json:"args"`
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal(data, &events); err != nil {
		t.Fatalf("weft show -perfetto: %v\n%s", err, data)
	}
	threads := map[string]bool{}
	phases := map[string]int{}
	for _, e := range events.TraceEvents {
		phases[e.Ph]++
		if e.Ph == "M" && e.Name == "thread_name" {
			name, _, _ := strings.Cut(e.Args["name"].(string), " (")
			threads[name] = true
		}
	}
	if !threads["goroutine 0.1"] || !threads["goroutine 0.2"] || phases["X"] == 0 || phases["s"] == 0 || phases["s"] != phases["f"] {
		t.Errorf("weft show -perfetto: threads %v, phases %v", threads, phases)
	}
}

// SIGINT ends a nightly cleanly: every failure found until then is saved
// and reported, the test running says it was interrupted, and the tests
// after it are listed as not run.
func testNightlyInterrupt(t *testing.T, weft string) {
	dir := nightlyModule(t)
	js := filepath.Join(t.TempDir(), "run.json")
	cmd := weftCmd(weft, dir, "nightly", "-explore.time", "10m", "-explore.workers", "2", "-explore.json", js,
		"-run", "TestTwoBugs|TestLostUpdate", "./examples")
	var log strings.Builder
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	ended := make(chan error, 1)
	go func() { ended <- cmd.Wait() }()
	// Once a failure is saved and a little more time passes, interrupt.
	corpusDir := filepath.Join(dir, "examples", "testdata", "weft", "TestTwoBugs")
	for {
		if entries, _ := corpus.List(corpusDir); len(entries) > 0 {
			break
		}
		select {
		case err := <-ended:
			t.Fatalf("the nightly ended: %v\n%s", err, log.String())
		case <-time.After(100 * time.Millisecond):
		}
	}
	time.Sleep(time.Second)
	before, _ := corpus.List(corpusDir)
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	var err error
	select {
	case err = <-ended:
	case <-time.After(2 * time.Minute): // a hang, not a speed check
		t.Fatalf("the nightly did not end after SIGINT\n%s", log.String())
	}
	if exitCode(err) != 1 {
		t.Fatalf("the interrupted nightly: %v, want exit 1\n%s", err, log.String())
	}
	r, rerr := report.Read(js)
	if rerr != nil {
		t.Fatal(rerr)
	}
	if !r.Interrupted || len(r.Tests) != 1 || !r.Tests[0].Interrupted || !slices.Equal(r.NotRun, []string{"example.com/nightly/examples TestLostUpdate"}) {
		t.Fatalf("report %+v\n%s", r, log.String())
	}
	after, _ := corpus.List(corpusDir)
	rt := r.Tests[0]
	if len(after) < len(before) || len(after) != rt.Saved || rt.Saved != len(rt.Failures) {
		t.Errorf("%d entries saved before SIGINT, %d after; the report: %d failures, %d saved", len(before), len(after), len(rt.Failures), rt.Saved)
	}
	for _, f := range rt.Failures {
		if _, err := os.Stat(filepath.Join(dir, f.Corpus)); err != nil || !strings.Contains(log.String(), "saved: "+f.Corpus) {
			t.Errorf("failure %s: %v, or not listed in the summary", f.Corpus, err)
		}
	}
	for _, want := range []string{"weft nightly: interrupt: stopping", ", interrupted\n", "1 test not run: interrupted"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("the log lacks %q:\n%s", want, log.String())
		}
	}
}

// failuresOf returns the signatures of a report's failures by package
// directory and test.
func failuresOf(t *testing.T, r *report.Run) map[string][]string {
	t.Helper()
	m := map[string][]string{}
	for _, rt := range r.Tests {
		key := strings.TrimPrefix(rt.Dir, "./") + " " + rt.Test
		m[key] = append(m[key], []string{}...)
		for _, f := range rt.Failures {
			if !f.Saved {
				t.Errorf("%s: %s not saved: %s", key, f.Signature, f.NotSaved)
			}
			m[key] = append(m[key], f.Signature)
		}
		slices.Sort(m[key])
	}
	return m
}

// savedFailures returns the signatures of the entries saved in a module, by
// package directory and test, for the tests the nightly explores.
func savedFailures(t *testing.T, dir string) map[string][]string {
	t.Helper()
	m := map[string][]string{}
	for _, key := range []string{"examples TestTwoBugs", "examples TestLostUpdate", "examples TestABBA", "examples TestLostWakeup", "examples TestFixed", "plain TestBug", "plain TestFixed"} {
		pkg, test, _ := strings.Cut(key, " ")
		files, err := corpus.List(filepath.Join(dir, pkg, corpus.Dir(test)))
		if err != nil {
			t.Fatal(err)
		}
		m[key] = []string{}
		for _, f := range files {
			if f.Err != nil {
				t.Fatal(f.Err)
			}
			m[key] = append(m[key], f.Entry.Signature)
		}
		slices.Sort(m[key])
	}
	return m
}

// exitCode is a command's exit code from its Wait's error; -1 if it did not
// exit.
func exitCode(err error) int {
	if err == nil {
		return 0
	}
	if e, ok := err.(*exec.ExitError); ok {
		return e.ExitCode()
	}
	return -1
}
