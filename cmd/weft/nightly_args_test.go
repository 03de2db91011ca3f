package main

import (
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/weftdev/weft/report"
)

// weft nightly's command line: its own flags, the build's (to weft test's
// parser), and the test binaries'.
func TestParseNightlyArgs(t *testing.T) {
	t.Setenv("GOFLAGS", "")
	a, err := parseNightlyArgs([]string{"-explore.time", "8h", "-explore.shard=2/4", "-explore.seed", "7", "-weight", `bank\.TestSlow=0.25`,
		"-weight", "TestSkip=0", "-race", "-tags", "integration", "-instrument.skip", "./gen/...", "-explore.workers=3", "-short",
		"-explore.quiet", "-run", "Test(A|B)", "./...", "./other"})
	if err != nil {
		t.Fatal(err)
	}
	if a.total != 8*time.Hour || a.shard != "2/4" || a.seed != "7" || !a.quiet || a.run.String() != "Test(A|B)" {
		t.Errorf("parsed %+v", a)
	}
	if want := []string{"-explore.workers=3", "-test.short"}; !reflect.DeepEqual(a.binFlags, want) {
		t.Errorf("test binary flags %q, want %q", a.binFlags, want)
	}
	if want := []string{"-race", "-tags=integration"}; !reflect.DeepEqual(a.test.goArgs, want) {
		t.Errorf("build flags %q, want %q", a.test.goArgs, want)
	}
	if want := []string{"./gen/..."}; !reflect.DeepEqual(a.test.skip, want) || !reflect.DeepEqual(a.test.patterns, []string{"./...", "./other"}) {
		t.Errorf("weft test's arguments %+v", a.test)
	}
	weights := map[string]float64{"TestSlow": 0.25, "TestSkip": 0, "TestOther": 1}
	for name, want := range weights {
		test := &nightlyTest{pkg: &nightlyPkg{path: "example.com/bank"}, name: name}
		if got := a.weightOf(test); got != want {
			t.Errorf("weight of %s = %v, want %v", name, got, want)
		}
	}
	if a, err := parseNightlyArgs(nil); err != nil || a.total != defaultNightlyTime || !reflect.DeepEqual(a.test.patterns, []string{"."}) {
		t.Errorf("defaults: %+v, %v", a, err)
	}
	for bad, msg := range map[string]string{
		"-explore.shard=4/4":    "want I/N",
		"-weight=TestX":         "want REGEXP=WEIGHT",
		"-weight=TestX=-1":      "want REGEXP=WEIGHT",
		"-weight=(=1":           "-weight (=1",
		"-explore.time=0s":      "must be positive",
		"-explore.continue":     "weft nightly sets it",
		"-test.run=X":           "weft nightly sets it",
		"-bogus":                "unknown flag -bogus",
		"-explore.time=forever": "-explore.time",
	} {
		if _, err := parseNightlyArgs([]string{bad}); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: error %v, want one saying %q", bad, err, msg)
		}
	}
}

// A round after the first explores other executions, with a seed every
// shard computes alike.
func TestRoundSeed(t *testing.T) {
	seeds := map[string]bool{}
	for round := 1; round <= 3; round++ {
		s, ok := roundSeed("0x10", round)
		if !ok || seeds[s] || s == "0x10" {
			t.Errorf("round %d: seed %s, %v", round, s, ok)
		}
		seeds[s] = true
		if again, _ := roundSeed("16", round); again != s {
			t.Errorf("round %d: the seed 16 gives %s, 0x10 gives %s", round, again, s)
		}
	}
	if _, ok := roundSeed("0x10", 0); ok {
		t.Error("round 0 has a seed of its own")
	}
	if _, ok := roundSeed("", 1); ok {
		t.Error("no first seed, yet a round's")
	}
}

// A test's rounds add up in its report.
func TestNightlyTestAdd(t *testing.T) {
	var nt nightlyTest
	nt.add([]report.Test{{Test: "TestX", Seed: "0x1", Executions: 100, ElapsedSeconds: 1, BudgetSeconds: 1, Saved: 1,
		Failures: []report.Failure{{Signature: "error a.go:1", Saved: true}}}})
	nt.add([]report.Test{
		{Test: "TestX", Seed: "0x2", Executions: 300, ElapsedSeconds: 1, BudgetSeconds: 1, Saved: 1, Known: []string{"error a.go:1"},
			Failures: []report.Failure{{Signature: "panic b.go:2", Saved: true}}},
		{Test: "TestX/sub", Seed: "0x3", Executions: 5},
	})
	if len(nt.tests) != 2 {
		t.Fatalf("tests %+v", nt.tests)
	}
	x := nt.tests[0]
	if x.Seed != "0x1" || x.Executions != 400 || x.ElapsedSeconds != 2 || x.ExecutionsPerSecond != 200 || x.BudgetSeconds != 2 ||
		x.Saved != 2 || len(x.Failures) != 2 || len(x.Known) != 0 {
		t.Errorf("added up: %+v", x)
	}
	if s := nt.seed(""); s != "0x1" {
		t.Errorf("first round's seed %s", s)
	}
	if s := nt.seed("7"); s != "7" {
		t.Errorf("the seed given: %s", s)
	}
}

// The progress line, as Go's fuzzing prints it: elapsed, tests done of the
// round's, the test running, executions and their rate, failures so far.
func TestNightlyProgressLine(t *testing.T) {
	pkg := &nightlyPkg{path: "example.com/m/bank", dir: "/src/bank"}
	n := &nightly{dir: "/src", start: time.Now().Add(-90 * time.Second), began: time.Now().Add(-60 * time.Second),
		roundTests: 3, done: 1, doneExecs: 1000, failures: 2, execs: 500, found: 1}
	n.current = &nightlyTest{pkg: pkg, name: "TestTransfer"}
	re := regexp.MustCompile(`^weft nightly: elapsed: 1m3\ds, tests: 1/3, \./bank TestTransfer, execs: 1500 \(2\d/sec\), failures: 3$`)
	if line := n.progressLine(); !re.MatchString(line) {
		t.Errorf("progress line %q, want one matching %s", line, re)
	}
	n.round = 1
	if line := n.progressLine(); !strings.Contains(line, ", round 2, tests: 1/3,") {
		t.Errorf("a later round's progress line %q does not say which", line)
	}
}
