// Package stride is the Stride recording algorithm (Zhou, Xiao, Zhang,
// ICSE'12), whole: its log format and its recorder (recorder.go), which
// orders each location's writes and gives each read the value it returned
// and a bound on the write it read, and its planner (planner.go), which
// searches back from the bound for the write. Importing the package
// registers it as "stride".
package stride

import "github.com/weftdev/weft/record"

func init() {
	record.Register(record.Algorithm{Name: "stride", New: func() record.Recorder { return &strideRecorder{} }, Plan: planStride})
}
