// Package leap is the LEAP recording algorithm (Huang, Liu and Zhang,
// FSE'10), whole: its log format and its recorder (recorder.go), which logs
// every location's access vector, and its planner (planner.go), an oracle
// that lets a goroutine access a location when it heads the location's
// remaining vector. Importing the package registers it as "leap".
package leap

import "github.com/weftdev/weft/record"

func init() {
	record.Register(record.Algorithm{Name: "leap", New: func() record.Recorder { return New(Options{}) }, Plan: planLeap})
}
