package weft_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/weftdev/weft/corpus"
	"github.com/weftdev/weft/sched"
	"github.com/weftdev/weft/sim"
	weft "github.com/weftdev/weft/testing"
)

// lostUpdate is a case of n goroutines that each add one to a counter by
// a load and a store: two of them, and one preemption, lose an update.
func lostUpdate(r *rapid.T) weft.Case {
	n := rapid.IntRange(1, 5).Draw(r, "n")
	return weft.Case{Inputs: strings.Repeat("+", n), Body: func(t *weft.T) {
		var v sim.Var[int]
		var wg sim.WaitGroup
		for range n {
			wg.Go(func() { v.Store(v.Load() + 1) })
		}
		wg.Wait()
		if got := v.Load(); got != n {
			t.Errorf("got %d, want %d", got, n)
		}
	}}
}

// TestFindCasesShrinks checks that inputs and schedule shrink together to
// the smallest failing case (two goroutines, one preemption), that the
// search is deterministic, and that the entry holds both.
func TestFindCasesShrinks(t *testing.T) {
	var entries []string
	for range 2 {
		f, err := weft.FindCases(lostUpdate, weft.Iterations(500), weft.Name("TestFindCasesShrinks"))
		if err != nil {
			t.Fatal(err)
		}
		if f == nil || f.Failure.Kind != sched.Error || f.Nondeterminism != nil || f.Entry == nil {
			t.Fatalf("FindCases = %+v, want a saved error", f)
		}
		p := f.Property
		if p.Inputs != "++" || f.Final.Schedule().Preemptions() != 1 || len(p.Deviations) != 1 {
			t.Errorf("shrunk to inputs %q, %d preemptions, deviations %#v; want ++ and one of each", p.Inputs, f.Final.Schedule().Preemptions(), p.Deviations)
		}
		if !slices.Contains(p.Draws, "n: 2") || p.DeterministicRuns < 2 {
			t.Errorf("draws %q, run %d times: want n: 2, run at least twice", p.Draws, p.DeterministicRuns)
		}
		if len(f.Entry.Input) == 0 || len(f.Entry.Schedule) != 1 {
			t.Errorf("the entry holds %d words of input and %d choices, want both", len(f.Entry.Input), len(f.Entry.Schedule))
		}
		entries = append(entries, string(f.Entry.Marshal()))
	}
	if entries[0] != entries[1] {
		t.Errorf("two searches with the same name differ:\n%s\n%s", entries[0], entries[1])
	}
}

// TestFollowCase checks that a saved case is followed faithfully: the same inputs and
// schedule, the same execution, and a fixed body passes along it.
func TestFollowCase(t *testing.T) {
	f, err := weft.FindCases(lostUpdate, weft.Iterations(500))
	if err != nil || f == nil || f.Entry == nil {
		t.Fatalf("FindCases = %v, %v", f, err)
	}
	path, err := corpus.Write(t.TempDir(), f.Entry)
	if err != nil {
		t.Fatal(err)
	}
	e, err := corpus.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	r, failure, drift, err := weft.FollowCase(t, lostUpdate, e)
	if err != nil || failure == nil || failure.Signature() != e.Signature || r.Hash != e.Hash || len(drift) > 0 {
		t.Fatalf("replay: %s, hash %#x, drift %q, %v; want %s, hash %#x", failure.Summary(), r.Hash, drift, err, e.Failure, e.Hash)
	}
	fixed := func(r *rapid.T) weft.Case {
		n := rapid.IntRange(1, 5).Draw(r, "n")
		return weft.Case{Body: func(t *weft.T) {
			var v sim.Int64
			var wg sim.WaitGroup
			for range n {
				wg.Go(func() { v.Add(1) })
			}
			wg.Wait()
			if got := v.Load(); got != int64(n) {
				t.Errorf("got %d, want %d", got, n)
			}
		}}
	}
	if _, failure, _, err := weft.FollowCase(t, fixed, e); err != nil || failure != nil {
		t.Errorf("the fixed body along the saved case: %s, %v", failure.Summary(), err)
	}
	noInput := *e
	noInput.Input = nil
	if _, _, _, err := weft.FollowCase(t, lostUpdate, &noInput); err == nil {
		t.Error("an entry without input replayed as a property's")
	}
}

// TestPropertyRejects checks that rapid's rejection of a case inside the
// execution (r.Skip in the body) rejects the case, and is no failure.
func TestPropertyRejects(t *testing.T) {
	f, err := weft.FindCases(func(r *rapid.T) weft.Case {
		return weft.Case{Body: func(t *weft.T) {
			if rapid.IntRange(0, 3).Draw(r, "k") == 0 {
				r.Skip("k is 0")
			}
		}}
	}, weft.Iterations(200))
	if err != nil || f != nil {
		t.Fatalf("FindCases = %+v, %v; want no failure", f, err)
	}
}

// TestGoTestProperty runs go test on a property, as its users do: the
// failure is saved to weft's corpus with its inputs (rapid's fail file is
// not kept), plain go test replays it as a subtest, and rapid's flags
// keep their meaning.
func TestGoTestProperty(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test")
	}
	t.Parallel()
	dir := gotestModule(t)
	ok, out := goTest(t, dir, "./property", "-run", "TestLost")
	if ok || !strings.Contains(out, "found a failing case") || !strings.Contains(out, "n: 2") || !strings.Contains(out, "shrunk: from") {
		t.Fatalf("go test did not find, shrink and report the lost update:\n%s", out)
	}
	files, err := corpus.List(filepath.Join(dir, "property", "testdata", "weft", "TestLost"))
	if err != nil || len(files) != 1 || files[0].Err != nil || len(files[0].Entry.Input) == 0 {
		t.Fatalf("want one saved case with inputs, got %+v (%v)\n%s", files, err, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "property", "testdata", "rapid")); !os.IsNotExist(err) {
		t.Errorf("rapid's fail file was kept (%v)", err)
	}
	ok, out = goTest(t, dir, "./property", "-run", "TestLost/"+files[0].ID, "-v")
	if ok || !strings.Contains(out, "the saved case") || !strings.Contains(out, "[rapid] draw n: 2") {
		t.Fatalf("the saved case does not replay as a subtest:\n%s", out)
	}

	ok, out = goTest(t, dir, "./property", "-run", "TestAtomic", "-v", "-rapid.checks", "7")
	if !ok || !strings.Contains(out, "7 cases passed") {
		t.Errorf("-rapid.checks 7:\n%s", out)
	}
	if err := os.RemoveAll(filepath.Join(dir, "property", "testdata")); err != nil {
		t.Fatal(err)
	}
	// The seed given is rapid's: two runs with it find the same case,
	// which the test's own seed does not.
	found := regexp.MustCompile(`found a failing case in case \d+ \(rapid, seed \d+; \d+ cases? run\)`)
	var reports []string
	for _, args := range [][]string{{"-rapid.seed", "12345"}, {"-rapid.seed", "12345"}, nil} {
		if err := os.RemoveAll(filepath.Join(dir, "property", "testdata")); err != nil {
			t.Fatal(err)
		}
		_, out = goTest(t, dir, append([]string{"./property", "-run", "TestLost$"}, args...)...)
		reports = append(reports, found.FindString(out))
	}
	if reports[0] == "" || reports[0] != reports[1] || reports[0] == reports[2] {
		t.Errorf("-rapid.seed 12345 twice, then the test's own seed: %q", reports)
	}
}
