package contention_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weftdev/weft/explore"
	"github.com/weftdev/weft/internal/contention"
	"github.com/weftdev/weft/sched"
	"github.com/weftdev/weft/sim"
)

// contended: two goroutines take turns on a lock, through a helper.
func contended() {
	var m sim.Mutex
	var wg sim.WaitGroup
	for range 2 {
		wg.Go(func() {
			for range 10 {
				critical(&m)
			}
		})
	}
	wg.Wait()
}

func critical(m *sim.Mutex) {
	m.Lock()
	m.Unlock()
}

func TestProfile(t *testing.T) {
	opts := sched.Options{Trace: true, Stacks: true}
	r := explore.Execute(contended, explore.RandomWalk(1), opts)
	b := contention.New()
	b.AddEvents("TestX", r)
	b.AddEvents("TestX", r)
	p := b.Profile()
	if err := p.CheckValid(); err != nil {
		t.Fatal(err)
	}
	var events, locks int64
	for _, s := range p.Sample {
		events += s.Value[0]
		if s.Value[1] != 0 {
			t.Errorf("a preemption counted from events alone")
		}
		if s.Label["test"][0] != "TestX" || s.Label["op"][0] == "" {
			t.Errorf("labels %v", s.Label)
		}
		if s.Label["op"][0] != "Mutex.Lock" {
			continue
		}
		locks += s.Value[0]
		// Innermost first: the helper, then the goroutine's function.
		if fn := s.Location[0].Line[0].Function.Name; !strings.HasSuffix(fn, "contention_test.critical") {
			t.Errorf("Mutex.Lock's innermost frame is %s", fn)
		}
		if len(s.Location) < 2 || !strings.Contains(s.Location[1].Line[0].Function.Name, "contention_test.contended") {
			t.Errorf("Mutex.Lock's stack: %v", s.Location)
		}
		for _, l := range s.Location {
			if fn := l.Line[0].Function.Name; strings.Contains(fn, "weftdev/weft/sched") || strings.HasPrefix(fn, "runtime.") {
				t.Errorf("weft's or Go's frame %s in a stack", fn)
			}
		}
	}
	if events != int64(2*len(r.Trace)) || locks < 40 {
		t.Errorf("%d events and %d locks counted, for two executions of %d events", events, locks, len(r.Trace))
	}

	// Preemptions, of a failing schedule.
	var found *explore.Finding
	explore.Run(lostUpdate, explore.Config{Strategy: explore.StrategyRandom, Seed: 1, Iterations: 1000,
		Accept: func(f *explore.Finding) bool { found = f; return true }})
	if found == nil {
		t.Fatal("no failure")
	}
	failing := explore.Execute(lostUpdate, explore.Follow(found.Result.Schedule()), opts)
	b.AddPreemptions("TestLost", failing)
	var preemptions int64
	for _, s := range b.Profile().Sample {
		preemptions += s.Value[1]
		if s.Value[1] > 0 && s.Label["test"][0] != "TestLost" {
			t.Errorf("a preemption of %v", s.Label)
		}
	}
	if preemptions != int64(failing.Schedule().Preemptions()) || preemptions == 0 {
		t.Errorf("%d preemptions counted, the schedule has %d", preemptions, failing.Schedule().Preemptions())
	}

	// Written, merged with another process's, and read by go tool pprof.
	dir := t.TempDir()
	one, two := filepath.Join(dir, "one.pb.gz"), filepath.Join(dir, "two.pb.gz")
	if err := b.WriteFile(one); err != nil {
		t.Fatal(err)
	}
	other := contention.New()
	other.AddEvents("TestY", r)
	if err := other.WriteFile(two); err != nil {
		t.Fatal(err)
	}
	merged, err := contention.Merge([]string{one, two})
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	for _, s := range merged.Sample {
		total += s.Value[0]
	}
	if total != events+int64(len(r.Trace)) {
		t.Errorf("the merged profile counts %d events", total)
	}
	f, err := os.Create(filepath.Join(dir, "merged.pb.gz"))
	if err != nil {
		t.Fatal(err)
	}
	if err := merged.Write(f); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if testing.Short() {
		return
	}
	out, err := exec.Command("go", "tool", "pprof", "-top", f.Name()).CombinedOutput()
	if err != nil {
		t.Fatalf("go tool pprof: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "contention_test.critical") || !strings.Contains(string(out), "Type: events") {
		t.Errorf("go tool pprof -top:\n%s", out)
	}
}

func lostUpdate() {
	var n sim.Var[int]
	var wg sim.WaitGroup
	for range 2 {
		wg.Go(func() { n.Store(n.Load() + 1) })
	}
	wg.Wait()
	if n.Load() != 2 {
		panic("lost update")
	}
}
