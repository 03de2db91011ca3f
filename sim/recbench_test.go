package sim_test

import (
	"os"
	"testing"

	"github.com/weftdev/weft/internal/rectest"
	"github.com/weftdev/weft/record"
	_ "github.com/weftdev/weft/record/all"
	"github.com/weftdev/weft/sim"
)

// Recording-mode cost per operation, on one goroutine (no contention): the
// framework's per-event cost plus the recorder's, by recorder ("nop"
// records nothing: the framework alone), against plain mode ("off": the
// same loop not recorded), measured in the same run. Besides the wall
// time it reports the process's CPU time per operation (cpu-ns/op),
// steadier on a loaded machine:
//
//	go test -run XXX -bench RecordOp -count 6 ./sim | tee /tmp/op.txt
//	benchstat -col /rec /tmp/op.txt
//	benchstat -col /rec -filter .unit:cpu-ns/op /tmp/op.txt
func BenchmarkRecordOp(b *testing.B) {
	ops := []struct {
		name string
		body func(n int)
	}{
		{"VarLoad", func(n int) {
			var x sim.Var[int64]
			for range n {
				sinkI64 += x.Load()
			}
		}},
		{"VarStore", func(n int) {
			var x sim.Var[int64]
			for i := range n {
				x.Store(int64(i))
			}
		}},
		{"VarMany", func(n int) {
			xs := make([]sim.Var[int64], 1024)
			for i := range n {
				x := &xs[i&1023]
				x.Store(x.Load() + 1)
			}
		}},
		{"Int64Add", func(n int) {
			var x sim.Int64
			for range n {
				x.Add(1)
			}
		}},
		{"MutexLockUnlock", func(n int) {
			var mu sim.Mutex
			for range n {
				mu.Lock()
				mu.Unlock()
			}
		}},
	}
	recs := append([]string{"off", "nop"}, record.Algorithms()...)
	for _, op := range ops {
		b.Run(op.name, func(b *testing.B) {
			for _, name := range recs {
				b.Run("rec="+name, func(b *testing.B) {
					if name == "off" {
						b.ReportAllocs()
						cpu0 := rectest.CPUTime()
						b.ResetTimer()
						op.body(b.N)
						b.StopTimer()
						b.ReportMetric(float64(rectest.CPUTime()-cpu0)/float64(b.N), "cpu-ns/op")
						return
					}
					var rec record.Recorder = &nopRecorder{}
					if name != "nop" {
						var err error
						if rec, err = record.New(name); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportAllocs()
					dir := b.TempDir()
					cpu0 := rectest.CPUTime()
					b.ResetTimer()
					res, err := record.Record(func() { op.body(b.N) }, rec, record.Options{Name: b.Name(), Dir: dir})
					b.StopTimer()
					b.ReportMetric(float64(rectest.CPUTime()-cpu0)/float64(b.N), "cpu-ns/op")
					if err != nil {
						b.Fatal(err)
					}
					os.Remove(res.Log)
					if res.Failure != nil {
						b.Fatal(res.Failure.Message)
					}
				})
			}
		})
	}
}
