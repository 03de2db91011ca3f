package workload

import (
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/weftdev/weft/record"
	"github.com/weftdev/weft/sched"
	weft "github.com/weftdev/weft/testing"
)

// small returns the correct workloads at sizes small enough for the
// controller.
func small() []Workload {
	return []Workload{
		{Name: "bank", Body: Bank(BankParams{Accounts: 4, Workers: 3, Size: 10})},
		{Name: "cache", Body: Cache(CacheParams{Keys: 4, Workers: 3, Size: 10, PutPercent: 30, TTL: 3})},
		{Name: "pipeline", Body: Pipeline(PipelineParams{Size: 20, Workers: 2, Buffer: 2})},
		{Name: "jacobi", Body: Jacobi(JacobiParams{Cells: 12, Workers: 3, Size: 3})},
		{Name: "counter", Body: Counter(CounterParams{Workers: 3, Size: 10})},
		{Name: "compute", Body: Compute(ComputeParams{Buckets: 2, Workers: 3, Size: 10, Rounds: 10})},
	}
}

func TestWorkloadsPass(t *testing.T) {
	for _, w := range append(Correct(20000), small()...) {
		for range 3 {
			if err := RunPlain(w.Body); err != nil {
				t.Errorf("%s (~%d events): %v", w.Name, w.Events, err)
			}
		}
	}
}

// TestBuggyFailSometimes runs each buggy variant in plain mode with
// GOMAXPROCS=2 until it fails (at most 10000 runs) and checks that it fails
// through its own check. How often it fails depends on how often the
// machine runs its two workers in parallel: an idle 2-core machine fails
// it in about 5 to 10 percent of runs, a loaded one in well under 1, the
// race detector in most; so the rate is logged (and measured with -rates),
// not asserted. Under the controller, TestControlled finds every bug.
func TestBuggyFailSometimes(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	for _, w := range Buggy() {
		runs, failures := 0, 0
		var first error
		for runs < 10000 && (failures == 0 || runs < 200) {
			if err := RunPlain(w.Body); err != nil {
				failures++
				if first == nil {
					first = err
				}
			}
			runs++
		}
		t.Logf("%s: %d/%d runs failed; first: %v", w.Name, failures, runs, first)
		prefix := strings.TrimPrefix(w.Name, "buggy-") + ": "
		if first != nil && !strings.HasPrefix(first.Error(), prefix) {
			t.Errorf("%s failed with %q, want a message starting with %q", w.Name, first, prefix)
		}
	}
}

// TestControlled runs the workloads under the controller: the correct ones
// pass a few explorations, the buggy ones fail.
func TestControlled(t *testing.T) {
	for _, w := range small() {
		f, err := weft.Find(func(*weft.T) { w.Body() }, weft.Iterations(10), weft.Seed(1))
		if err != nil {
			t.Fatal(err)
		}
		if f != nil {
			t.Errorf("%s failed under the controller: %v", w.Name, f.Failure)
		}
	}
	if testing.Short() {
		return
	}
	for _, w := range Buggy() {
		f, err := weft.Find(func(*weft.T) { w.Body() }, weft.Iterations(200), weft.Seed(1))
		if err != nil {
			t.Fatal(err)
		}
		if f == nil {
			t.Errorf("%s: 200 controlled executions passed, want one to fail", w.Name)
			continue
		}
		if f.Failure.Kind != sched.Panic {
			t.Errorf("%s failed under the controller with %v, want a panic", w.Name, f.Failure)
		}
	}
}

// TestRecorded records the workloads with every recorder there is: the
// correct ones pass, the buggy ones pass or fail by their check.
func TestRecorded(t *testing.T) {
	algs := record.Algorithms()
	if len(algs) == 0 {
		t.Skip("no recorder registered")
	}
	for _, alg := range algs {
		for _, w := range append(Correct(5000), small()...) {
			if res := recordComplete(t, alg, w); res.Failure != nil {
				t.Errorf("%s/%s: %v: %s", w.Name, alg, res.Failure.Kind, res.Failure.Message)
			}
		}
		for _, w := range Buggy() {
			res := recordComplete(t, alg, w)
			prefix := strings.TrimPrefix(w.Name, "buggy-") + ": "
			if f := res.Failure; f != nil && (f.Kind != sched.Panic || !strings.HasPrefix(f.Message, prefix)) {
				t.Errorf("%s/%s: %v: %s, want a pass or a panic %q...", w.Name, alg, f.Kind, f.Message, prefix)
			}
		}
	}
}

// recordComplete records one run of w with the recorder alg, removes its
// log, and checks that the run was complete.
func recordComplete(t *testing.T, alg string, w Workload) *record.Result {
	t.Helper()
	rec, err := record.New(alg)
	if err != nil {
		t.Fatal(err)
	}
	res, err := record.Record(w.Body, rec, record.Options{Name: t.Name(), Dir: t.TempDir()})
	if err != nil {
		t.Fatalf("%s/%s: %v", w.Name, alg, err)
	}
	os.Remove(res.Log)
	if !res.Complete {
		t.Errorf("%s/%s: incomplete run", w.Name, alg)
	}
	return res
}
