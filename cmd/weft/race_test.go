package main

import (
	"io"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/weftdev/weft/corpus"
	"github.com/weftdev/weft/internal/race"
)

// The racy tests of testdata/plain/races, one per primitive.
var plainRaces = []string{"Go", "Mutex", "RWMutex", "Unbuffered", "Semaphore", "Close", "WaitGroup",
	"WaitGroupAdd", "Once", "Cond", "Atomic", "AfterFunc", "Timer", "Context", "Map"}

// syncIterations is how many executions TestWeftTestRace explores each
// synchronized test of testdata/plain/races with; the README's figure of
// 2,000 comes from the same command with -explore.iters 2000.
const syncIterations = "300"

// TestWeftTestRace runs weft test -race on plain Go, for each primitive:
// the synchronized program is never reported, the racy one is found as a
// data race, saved, and replayed with the same race; without -race, the
// saved schedule says it needs the race detector.
func TestWeftTestRace(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test -race several times")
	}
	if race.Enabled {
		t.Skip("weft test -race runs in a child process: the same test as without -race")
	}
	dir := plainModule(t)
	t.Setenv("GOFLAGS", "-mod=mod")
	run := weftTestIn(t, dir)

	if code, out := run("-race", "-run", "TestSync", "-explore", "-explore.iters", syncIterations, "./races"); code != 0 {
		t.Fatalf("weft test -race reports a synchronized program:\n%s", out)
	}

	code, out := run("-race", "-run", "TestRace", "-explore", "-explore.iters", "2000", "./races")
	if code == 0 {
		t.Fatalf("weft test -race found no race:\n%s", out)
	}
	failures := map[string]string{}
	for _, name := range plainRaces {
		test := "TestRace" + name
		files, err := corpus.List(filepath.Join(dir, "races", "testdata", "weft", test))
		if err != nil || len(files) != 1 || files[0].Err != nil {
			t.Errorf("%s: want one saved schedule, got %v (%v)", test, files, err)
			continue
		}
		e := files[0].Entry
		if !strings.HasPrefix(e.Signature, "race ") {
			t.Errorf("%s: saved for %q, want a race", test, e.Failure)
		}
		failures["testdata/weft/"+test+"/"+files[0].ID] = e.Failure
	}
	if t.Failed() {
		t.Fatalf("weft test -race output:\n%s", out)
	}
	if !regexp.MustCompile(`replay: weft test -race -run '\^TestRaceGo\$/\^[0-9a-f]{16}\$' \./races`).MatchString(out) {
		t.Errorf("the replay command lacks -race:\n%s", out)
	}

	// Replayed under -race, each saved schedule fails with its race.
	_, out = run("-race", "-run", "TestRace.*/[0-9a-f]{16}", "./races")
	for path, failure := range failures {
		m := regexp.MustCompile(`the saved schedule ` + regexp.QuoteMeta(path) + ` fails\n\s+failure: (.*)`).FindStringSubmatch(out)
		if m == nil || m[1] != failure {
			t.Errorf("%s replayed: got %q, want %q", path, m, failure)
		}
	}
	if t.Failed() {
		t.Fatalf("weft test -race output:\n%s", out)
	}

	// Without -race, nothing reports them: the entries say so.
	code, out = run("-v", "-run", "TestRace.*/[0-9a-f]{16}", "./races")
	if code != 0 || strings.Count(out, "was saved for a data race") != len(plainRaces) {
		t.Errorf("weft test without -race: exit %d\n%s", code, out)
	}
}

// BenchmarkWeftTestRace measures weft test -race against go test -race of
// the same tests (testdata/plain/races, the synchronized ones: each explores
// 100 executions under weft test), both run in each iteration, weft's
// cache warm:
//
//	go test -run XXX -bench WeftTestRace -benchtime 5x ./cmd/weft
func BenchmarkWeftTestRace(b *testing.B) {
	dir := plainModule(b)
	b.Setenv("GOFLAGS", "-mod=mod")
	args := []string{"-race", "-count=1", "-run", "TestSync", "./races"}
	goTest := func() time.Duration {
		start := time.Now()
		cmd := exec.Command("go", append([]string{"test"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("go test: %v\n%s", err, out)
		}
		return time.Since(start)
	}
	weftTest := func() time.Duration {
		start := time.Now()
		if code, err := runTest(dir, args, io.Discard, io.Discard); err != nil || code != 0 {
			b.Fatalf("weft test: exit %d, %v", code, err)
		}
		return time.Since(start)
	}
	goTest()
	weftTest()
	b.ResetTimer()
	var plain, weft time.Duration
	for range b.N {
		weft += weftTest()
		plain += goTest()
	}
	b.ReportMetric(float64(weft)/float64(plain), "weft/go")
}
