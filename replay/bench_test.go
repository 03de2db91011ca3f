package replay_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/weftdev/weft/internal/workload"
	"github.com/weftdev/weft/record"
	_ "github.com/weftdev/weft/record/all"
	"github.com/weftdev/weft/replay"
	"github.com/weftdev/weft/sched"
	"github.com/weftdev/weft/sim"
)

// benchBody is the program BenchmarkReplay records: workers goroutines,
// each making rounds of a Mutex-protected load and store of one of four
// shared Vars and an atomic add: about 6 events per round.
func benchBody(workers, rounds int) func() {
	return func() {
		var m sim.Mutex
		var hits sim.Int64
		vs := []*sim.Var[int]{sim.NewVar(0), sim.NewVar(0), sim.NewVar(0), sim.NewVar(0)}
		for w := range workers {
			sim.Go(func() {
				for i := range rounds {
					v := vs[(i+w)%len(vs)]
					m.Lock()
					v.Store(v.Load() + 1)
					m.Unlock()
					hits.Add(1)
				}
			})
		}
	}
}

// BenchmarkReplay measures, for each recorder, the time to replay a log of
// about 10⁴, 10⁵ and 10⁶ events: reading the log, planning (Light's and
// Stride's solving included) and the controlled execution, which must be
// faithful. Two programs: locks, whose goroutines seldom interleave (short
// logs), and the pipeline workload, whose every channel operation follows
// another goroutine's (long logs).
//
//	go test -run XXX -bench Replay -benchtime 2x ./replay
func BenchmarkReplay(b *testing.B) {
	bodies := []struct {
		name string
		make func(events int) func()
	}{
		{"locks", func(events int) func() { return benchBody(4, events/4/6) }},
		{"pipeline", func(events int) func() {
			for _, w := range workload.Correct(events) {
				if w.Name == "pipeline" {
					return w.Body
				}
			}
			panic("no pipeline workload")
		}},
	}
	for _, program := range bodies {
		for _, algorithm := range record.Algorithms() {
			for _, events := range []int{1e4, 1e5, 1e6} {
				b.Run(fmt.Sprintf("%s/%s/events=%d", program.name, algorithm, events), func(b *testing.B) {
					body := program.make(events)
					rec, err := record.New(algorithm)
					if err != nil {
						b.Fatal(err)
					}
					res, err := record.Record(body, rec, record.Options{Dir: b.TempDir()})
					if err != nil {
						b.Fatal(err)
					}
					defer os.Remove(res.Log)
					for b.Loop() {
						log, err := record.ReadFile(res.Log)
						if err != nil {
							b.Fatal(err)
						}
						out, err := replay.Run(body, log, replay.Options{Sched: sched.Options{MaxSteps: 4 * events}})
						if err != nil {
							b.Fatal(err)
						}
						if !out.Faithful {
							b.Fatalf("unfaithful: %v", out.Problems[:min(3, len(out.Problems))])
						}
					}
					b.ReportMetric(float64(res.Events), "events")
					b.ReportMetric(float64(res.Bytes), "logbytes")
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(res.Events), "ns/event")
				})
			}
		}
	}
}
