// Package light is the Light recording algorithm (Liu et al., PLDI'15),
// whole: its log format and its recorder (recorder.go), which logs the flow
// dependences (which write each read read) without synchronizing the
// readers, and its planner (planner.go), which solves the log's constraints
// offline into a total order of the logged accesses that the replay's
// oracle enforces. Importing the package registers it as "light".
package light

import "github.com/weftdev/weft/record"

func init() {
	record.Register(record.Algorithm{Name: "light", New: func() record.Recorder { return &light{} }, Plan: planLight})
}
