package workload

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/weftdev/weft/record"
	"github.com/weftdev/weft/sim"
)

var handoffRuns = flag.Int("handoffs", 0, "count the buggy bank's lock handoffs over this many recorded runs by each recorder (and by none) and ten times as many plain runs, interleaved (TestHandoffs)")

// TestHandoffs measures what decides the buggy bank's failure rate once
// its two workers run at the same time: how often an account's lock
// changes hands between them (a handoff), and how often it does so in the
// gap between a transfer's two critical sections on its source account,
// which is where the update is lost (an interleaving). The share of
// handoffs that are interleavings is the share of the time the lock is
// free that the gap takes: a recorder whose work lengthens the critical
// sections and not the gap lowers it, and hides the bug (the probe
// effect, see TestFailureRates). Runs are interleaved as TestFailureRates's;
// handoffs are counted only while both workers run, so that the machine's
// load, which decides how often they do, weighs less on the share.
//
//	go test -run Handoffs -v ./internal/workload -handoffs 3000
func TestHandoffs(t *testing.T) {
	if *handoffRuns <= 0 {
		t.Skip("-handoffs not set")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	dir := t.TempDir()
	algs := append(record.Algorithms(), "none")
	var c handoffCounts
	body := countedBank(&c)
	var plain handoffTotals
	recs := make([]handoffTotals, len(algs))
	for range *handoffRuns {
		for range plainPerRecorded {
			plain.add(RunPlain(body) != nil, &c)
		}
		for i, alg := range algs {
			var rec record.Recorder = noRecorder{}
			if alg != "none" {
				var err error
				if rec, err = record.New(alg); err != nil {
					t.Fatal(err)
				}
			}
			res, err := record.Record(body, rec, record.Options{Name: t.Name(), Dir: dir})
			if err != nil {
				t.Fatal(err)
			}
			os.Remove(res.Log)
			recs[i].add(res.Failure != nil, &c)
		}
	}
	t.Logf("%-9s %s", "plain", plain)
	for i, alg := range algs {
		t.Logf("%-9s %s", alg, recs[i])
	}
}

// handoffCounts are one run's counts, each worker's on a cache line of
// its own.
type handoffCounts struct {
	done [2]atomic.Bool
	w    [2]struct {
		handoffs, gap int
		_             [48]byte
	}
}

// countedAccount is an account of countedBank: last and seq, guarded by
// mu, tell who held the lock last and how many critical sections it had.
type countedAccount struct {
	mu      sim.Mutex
	balance sim.Var[int]
	last    int
	seq     int
}

// enter counts, in a critical section of worker w on a, a handoff if the
// other worker held a last and has not finished.
func (a *countedAccount) enter(c *handoffCounts, w int) {
	if a.last == 1-w && !c.done[1-w].Load() {
		c.w[w].handoffs++
	}
	a.last = w
	a.seq++
}

// countedBank is the buggy bank (BuggyBankParams) with its handoffs and
// interleavings counted in c.
func countedBank(c *handoffCounts) func() {
	p := BuggyBankParams.withDefaults()
	return func() {
		*c = handoffCounts{}
		accts := make([]countedAccount, p.Accounts)
		for i := range accts {
			accts[i].balance.Store(p.Initial)
			accts[i].last = -1
		}
		g := newGate(p.Workers)
		var wg sim.WaitGroup
		for w := range p.Workers {
			wg.Go(func() {
				g.wait()
				r := rng(1, uint64(w))
				for range p.Size {
					from := r.IntN(len(accts))
					to := r.IntN(len(accts) - 1)
					if to >= from {
						to++
					}
					countedTransfer(c, w, &accts[from], &accts[to], 1+r.IntN(p.Initial/4+1))
				}
				c.done[w].Store(true)
			})
		}
		wg.Wait()
		total := 0
		for i := range accts {
			total += accts[i].balance.Load()
		}
		if want := p.Accounts * p.Initial; total != want {
			panic(fmt.Sprintf("bank: total %d, want %d", total, want))
		}
	}
}

// countedTransfer is transferBuggy, counted.
func countedTransfer(c *handoffCounts, w int, from, to *countedAccount, amount int) {
	from.mu.Lock()
	from.enter(c, w)
	seq := from.seq
	b := from.balance.Load()
	from.mu.Unlock()
	if b < amount {
		return
	}
	from.mu.Lock()
	if from.seq != seq {
		c.w[w].gap++
	}
	from.enter(c, w)
	from.balance.Store(b - amount)
	from.mu.Unlock()
	to.mu.Lock()
	to.enter(c, w)
	to.balance.Store(to.balance.Load() + amount)
	to.mu.Unlock()
}

// handoffTotals sum the counts of a series of runs.
type handoffTotals struct {
	runs, failed     int
	contended        int // runs with a handoff
	handoffs, gap    int
	gapRuns, gapFail int // runs with an interleaving, and those failed
}

func (h *handoffTotals) add(failed bool, c *handoffCounts) {
	n, g := c.w[0].handoffs+c.w[1].handoffs, c.w[0].gap+c.w[1].gap
	h.runs++
	h.handoffs += n
	h.gap += g
	if failed {
		h.failed++
	}
	if n > 0 {
		h.contended++
	}
	if g > 0 {
		h.gapRuns++
		if failed {
			h.gapFail++
		}
	}
}

func (h handoffTotals) String() string {
	return fmt.Sprintf("%5d/%-6d failed, %5d runs with handoffs (%d handoffs, %.2f a run), %4d in the gap (%.3f of handoffs; %d runs, %d of them failed)",
		h.failed, h.runs, h.contended, h.handoffs, float64(h.handoffs)/float64(h.runs), h.gap,
		float64(h.gap)/float64(max(1, h.handoffs)), h.gapRuns, h.gapFail)
}
