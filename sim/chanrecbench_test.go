package sim_test

import (
	"os"
	"testing"

	"github.com/weftdev/weft/record"
	"github.com/weftdev/weft/sim"
)

// Recording-mode cost of channel operations and selects, with the
// recorder that records nothing:
//
//	go test -run XXX -bench RecordChan -count 6 ./sim
func BenchmarkRecordChan(b *testing.B) {
	ops := []struct {
		name string
		body func(n int)
	}{
		{"Buffered", func(n int) {
			c := sim.NewChan[int64](8)
			for i := range n {
				c.Send(int64(i))
				sinkI64 += c.Recv()
			}
		}},
		{"Unbuffered", func(n int) {
			c := sim.NewChan[int64](0)
			done := sim.NewChan[int64](0)
			sim.Go(func() {
				var s int64
				for range n {
					s += c.Recv()
				}
				done.Send(s)
			})
			for i := range n {
				c.Send(int64(i))
			}
			sinkI64 += done.Recv()
		}},
		{"SelectDefault", func(n int) {
			c := sim.NewChan[int64](1)
			d := sim.NewChan[int64](1)
			for i := range n {
				sim.Select(sim.OnSend(c, int64(i), nil), sim.OnRecv(d, nil), sim.OnDefault(nil))
				sinkI64 += c.Recv()
			}
		}},
		{"SelectWait", func(n int) {
			c := sim.NewChan[int64](0)
			d := sim.NewChan[int64](0)
			done := sim.NewChan[int64](0)
			sim.Go(func() {
				var s int64
				for range n {
					sim.Select(
						sim.OnRecv(c, func(v int64) { s += v }),
						sim.OnRecv(d, func(v int64) { s -= v }),
					)
				}
				done.Send(s)
			})
			for i := range n {
				c.Send(int64(i))
			}
			sinkI64 += done.Recv()
		}},
	}
	for _, op := range ops {
		b.Run(op.name, func(b *testing.B) {
			b.ReportAllocs()
			b.ResetTimer()
			res, err := record.Record(func() { op.body(b.N) }, &nopRecorder{}, record.Options{Name: b.Name(), Dir: b.TempDir()})
			if err != nil {
				b.Fatal(err)
			}
			os.Remove(res.Log)
			if res.Failure != nil {
				b.Fatal(res.Failure.Message)
			}
		})
	}
}
