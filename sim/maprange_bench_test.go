package sim_test

import (
	"testing"

	"github.com/weftdev/weft/sim"
)

// BenchmarkPlainMapRange compares a range over a map in plain mode, as the
// rewriter rewrites it, with Go's.
func BenchmarkPlainMapRange(b *testing.B) {
	for _, n := range []int{1, 10, 1000} {
		m := map[int]int{}
		for i := range n {
			m[i] = i
		}
		name := "n=" + map[int]string{1: "1", 10: "10", 1000: "1000"}[n]
		b.Run(name+"/impl=simall", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for k, v := range sim.MapAll(m) {
					sinkInt += k + v
				}
			}
		})
		pair(b, name,
			func(b *testing.B) {
				for b.Loop() {
					for it := sim.MapRange(m); it.Next(); {
						k, v := it.Entry()
						sinkInt += k + v
					}
				}
			},
			func(b *testing.B) {
				for b.Loop() {
					for k, v := range m {
						sinkInt += k + v
					}
				}
			})
	}
}
