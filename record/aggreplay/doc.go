// Package aggreplay is the AggrePlay recording algorithm (Pobee and Chan,
// ESEC/FSE 2019), whole: its log format and its recorder (recorder.go),
// which logs each location's write order and each write's read-count
// vector, and its planner (planner.go), an oracle that lets a write go once
// the reads it must follow are done. Importing the package registers it as
// "aggreplay".
package aggreplay

import "github.com/weftdev/weft/record"

func init() {
	record.Register(record.Algorithm{Name: "aggreplay", New: func() record.Recorder { return aggreplay{} }, Plan: planAggrePlay})
}
