package workload

import (
	"flag"
	"fmt"
	"math"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/weftdev/weft/record"
	"github.com/weftdev/weft/sched"
)

var ratesRuns = flag.Int("rates", 0, "measure the failure rates of the buggy variants over this many recorded runs by each recorder (and by none) and ten times as many plain runs, interleaved (TestFailureRates)")

// plainPerRecorded is how many plain runs TestFailureRates makes per
// recorded run of each recorder: a plain run is about 20 times shorter.
const plainPerRecorded = 10

// TestFailureRates measures the failure rates of the buggy variants with
// GOMAXPROCS=2, in plain mode and recorded by each recorder: a recorder
// whose runs fail less often than plain ones hides the bug it is there to
// catch (the probe effect). The runs are interleaved, ten plain runs then
// one run of each recorder, so that the machine's load weighs on every
// column alike; each rate is reported with its 95% interval, and each
// recorder's ratio to plain with the ratio's. A control column, "none",
// records with a recorder that does nothing (the framework alone), and
// each recorder's ratio to it is reported too: it tells what the
// recorder's own work does to the interleaving, apart from the framework's,
// and moves less with the machine's load than the ratio to plain.
//
//	go test -run FailureRates -v ./internal/workload -rates 2000
func TestFailureRates(t *testing.T) {
	if *ratesRuns <= 0 {
		t.Skip("-rates not set")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	dir := t.TempDir()
	algs := append(record.Algorithms(), "none")
	for _, w := range Buggy() {
		var plain rate
		recs := make([]rate, len(algs))
		for range *ratesRuns {
			for range plainPerRecorded {
				start := time.Now()
				err := RunPlain(w.Body)
				plain.add(err != nil, time.Since(start))
			}
			for i, alg := range algs {
				var rec record.Recorder = noRecorder{}
				if alg != "none" {
					var err error
					if rec, err = record.New(alg); err != nil {
						t.Fatal(err)
					}
				}
				start := time.Now()
				res, err := record.Record(w.Body, rec, record.Options{Name: t.Name(), Dir: dir})
				if err != nil {
					t.Fatal(err)
				}
				os.Remove(res.Log)
				recs[i].add(res.Failure != nil, time.Since(start))
			}
		}
		none := recs[len(recs)-1]
		t.Logf("%-14s %-9s %s", w.Name, "plain", plain.String(plain))
		for i, alg := range algs {
			s := recs[i].String(plain)
			if alg != "none" && recs[i].failed > 0 && none.failed > 0 {
				lo, hi := ratioInterval(recs[i], none)
				s += fmt.Sprintf(", %.2f× none (95%% %.2f–%.2f×)", recs[i].p()/none.p(), lo, hi)
			}
			t.Logf("%-14s %-9s %s", w.Name, alg, s)
		}
	}
}

// noRecorder records nothing: TestFailureRates's control, the framework
// alone.
type noRecorder struct{}

func (noRecorder) Algorithm() string                                                  { return "none" }
func (noRecorder) NewThread(*record.Thread)                                           {}
func (noRecorder) NewLoc(*record.Loc)                                                 {}
func (noRecorder) ReadBegin(*record.Thread, *record.Loc) uint64                       { return 0 }
func (noRecorder) ReadEnd(*record.Thread, *record.Loc, uint64, uint64) bool           { return false }
func (noRecorder) WriteBegin(*record.Thread, *record.Loc)                             {}
func (noRecorder) WriteEnd(*record.Thread, *record.Loc, sched.Access, uint64, uint64) {}
func (noRecorder) Sync(*record.Thread, *record.Loc, sched.Access, uint64)             {}
func (noRecorder) ExitThread(*record.Thread)                                          {}
func (noRecorder) Close([]*record.Loc)                                                {}

// A rate counts the failing runs of a series.
type rate struct {
	runs, failed int
	time         time.Duration
}

func (r *rate) add(failed bool, d time.Duration) {
	r.runs++
	if failed {
		r.failed++
	}
	r.time += d
}

func (r rate) p() float64 { return float64(r.failed) / float64(r.runs) }

// String reports the rate with its 95% interval (Wilson's), the time per
// run, and the ratio to the plain rate with its 95% interval.
func (r rate) String(plain rate) string {
	lo, hi := wilson(r.failed, r.runs)
	s := fmt.Sprintf("%5d/%-6d failed (%5.2f%%, 95%% %.2f–%.2f%%), %v/run", r.failed, r.runs, 100*r.p(), 100*lo, 100*hi,
		(r.time / time.Duration(r.runs)).Round(time.Microsecond))
	if r != plain && plain.failed > 0 && r.failed > 0 {
		lo, hi := ratioInterval(r, plain)
		s += fmt.Sprintf(", %.2f× plain (95%% %.2f–%.2f×)", r.p()/plain.p(), lo, hi)
	}
	return s
}

// ratioInterval returns the 95% interval of the ratio of a's rate to b's,
// both with failures (Katz's, on the ratio's logarithm).
func ratioInterval(a, b rate) (lo, hi float64) {
	const z = 1.96
	se := math.Sqrt(1/float64(a.failed) - 1/float64(a.runs) + 1/float64(b.failed) - 1/float64(b.runs))
	q := a.p() / b.p()
	return q * math.Exp(-z*se), q * math.Exp(z*se)
}

// wilson returns the 95% Wilson score interval of k successes in n trials.
func wilson(k, n int) (lo, hi float64) {
	const z = 1.96
	p, fn := float64(k)/float64(n), float64(n)
	d := 1 + z*z/fn
	c := (p + z*z/(2*fn)) / d
	h := z * math.Sqrt(p*(1-p)/fn+z*z/(4*fn*fn)) / d
	return max(0, c-h), min(1, c+h)
}
