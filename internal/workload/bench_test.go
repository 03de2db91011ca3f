package workload

import (
	"flag"
	"os"
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/weftdev/weft/internal/rectest"
	"github.com/weftdev/weft/record"
)

var benchEvents = flag.Int("events", 100_000, "approximate operations of one run of each workload in BenchmarkRecord")

// impls are the columns of BenchmarkRecord: plain mode, then the recorders.
var impls = []string{"plain", "light", "stride", "aggreplay", "leap"}

// BenchmarkRecord runs every correct workload in plain mode and recorded
// by each recorder, as BenchmarkRecord/<workload>/impl=<impl>:
//
//	GOMAXPROCS=2 go test -run XXX -bench Record -count 6 ./internal/workload | tee /tmp/rec.txt
//	benchstat -col /impl /tmp/rec.txt
//
// Besides time and allocations per run it reports the process's CPU time
// per run (cpu-ns/op: user and system, which a loaded machine inflates far
// less than the wall time; compare it with benchstat -filter
// '.unit:cpu-ns/op'), the log's size (logB/op), its bytes per event
// (B/event), the events of a run (events/op), and the peak growth of the
// heap's objects during the benchmark (peakMB).
func BenchmarkRecord(b *testing.B) {
	for _, w := range Correct(*benchEvents) {
		b.Run(w.Name, func(b *testing.B) {
			for _, impl := range impls {
				b.Run("impl="+impl, func(b *testing.B) { benchRecord(b, w, impl) })
			}
		})
	}
}

func benchRecord(b *testing.B, w Workload, impl string) {
	if impl != "plain" {
		if _, err := record.New(impl); err != nil {
			b.Skip(err)
		}
	}
	dir := b.TempDir()
	runtime.GC()
	peak := samplePeak()
	b.ReportAllocs()
	cpu0 := rectest.CPUTime()
	b.ResetTimer()
	var runs, events, bytes int64
	for b.Loop() {
		runs++
		if impl == "plain" {
			if err := RunPlain(w.Body); err != nil {
				b.Fatal(err)
			}
			continue
		}
		res := recordRun(b, impl, w.Body, dir)
		os.Remove(res.Log)
		if res.Failure != nil {
			b.Fatalf("%s: %s", res.Failure.Kind, res.Failure.Message)
		}
		events += int64(res.Events)
		bytes += res.Bytes
	}
	b.StopTimer()
	b.ReportMetric(float64(rectest.CPUTime()-cpu0)/float64(runs), "cpu-ns/op")
	b.ReportMetric(float64(peak())/(1<<20), "peakMB")
	if impl == "plain" {
		b.ReportMetric(float64(w.Events), "events/op")
		return
	}
	b.ReportMetric(float64(bytes)/float64(runs), "logB/op")
	b.ReportMetric(float64(events)/float64(runs), "events/op")
	if events > 0 {
		b.ReportMetric(float64(bytes)/float64(events), "B/event")
	}
}

// samplePeak samples the bytes of heap objects (live and not yet swept)
// every millisecond until the function it returns is called, which returns
// the largest sample above the first: the growth of the heap during the
// benchmark, without what earlier benchmarks left behind.
func samplePeak() func() uint64 {
	var peak atomic.Uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	base := s[0].Value.Uint64()
	peak.Store(base)
	wg.Go(func() {
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			if v := s[0].Value.Uint64(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	})
	return func() uint64 {
		close(stop)
		wg.Wait()
		return peak.Load() - base
	}
}
