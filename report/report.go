// Package report is the JSON report of an exploration run, written by
// -explore.json (go test, weft test) and weft nightly, for CI jobs that open
// issues or upload artifacts from it.
//
// The format is stable: Version says which one a file follows, fields are
// only added, never renamed or given another meaning, and a reader ignores
// the fields it does not know. Durations are in seconds; seeds and hashes
// are strings ("0x..."), since 64-bit integers do not survive JavaScript's
// numbers. An example, one test of one package:
//
//	{
//	  "version": 1,
//	  "started": "2026-01-02T03:04:05Z",
//	  "elapsedSeconds": 61.2,
//	  "budgetSeconds": 60,
//	  "shard": {"index": 0, "count": 4},
//	  "tests": [{
//	    "package": "example.com/bank",
//	    "dir": "./bank",
//	    "test": "TestTransfer",
//	    "budgetSeconds": 60,
//	    "strategy": "mix",
//	    "seed": "0x5ad1c0de",
//	    "executions": 301234,
//	    "elapsedSeconds": 60.4,
//	    "executionsPerSecond": 4987.3,
//	    "failures": [{
//	      "kind": "deadlock",
//	      "signature": "deadlock Mutex.Lock@bank.go:31,Mutex.Lock@bank.go:31",
//	      "summary": "deadlock: no goroutine can run: ...",
//	      "execution": 1207,
//	      "seed": "0x9c1e...",
//	      "preemptions": 1,
//	      "preemptionsFound": 4,
//	      "saved": true,
//	      "corpus": "bank/testdata/weft/TestTransfer/5d1f6a2b0c3e4f51",
//	      "replay": "go test -run '^TestTransfer$/^5d1f6a2b0c3e4f51$' ./bank",
//	      "html": "/tmp/weft-html/TestTransfer-5d1f6a2b0c3e4f51.html"
//	    }],
//	    "saved": 1
//	  }]
//	}
package report

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Version is the version of the format this package writes.
const Version = 1

// A Run is the report of one run: a go test process, or a weft nightly.
type Run struct {
	Version int       `json:"version"`
	Started time.Time `json:"started"`
	// ElapsedSeconds is the run's wall time.
	ElapsedSeconds float64 `json:"elapsedSeconds"`
	// BudgetSeconds is the time the run was given (weft nightly's
	// -explore.time); 0 when each test had a budget of its own.
	BudgetSeconds float64 `json:"budgetSeconds,omitempty"`
	// Shard is the part of the seed space explored, with -explore.shard.
	Shard *Shard `json:"shard,omitempty"`
	// Interrupted is set when a signal (SIGINT, SIGTERM) ended the run
	// before its budget: what was found until then is reported, saved.
	Interrupted bool `json:"interrupted,omitempty"`
	// Tests are the explorations, in the order they ran.
	Tests []Test `json:"tests"`
	// NotRun lists the tests the run did not get to (weft nightly, when
	// interrupted or out of time), as "package TestName".
	NotRun []string `json:"notRun,omitempty"`
}

// A Shard is part Index of Count of the seed space (see -explore.shard):
// execution i of the whole exploration runs in shard i mod Count.
type Shard struct {
	Index int `json:"index"`
	Count int `json:"count"`
}

// A Test is the exploration of one test (one weft.Check call: a subtest
// that calls Check is a test of its own).
type Test struct {
	// Package is the test's import path, when known (weft nightly).
	Package string `json:"package,omitempty"`
	// Dir is the package's directory relative to its module's root, as go
	// test takes it: "./bank".
	Dir  string `json:"dir"`
	Test string `json:"test"`
	// BudgetSeconds and BudgetExecutions are the test's budget; 0: none
	// of that kind.
	BudgetSeconds    float64 `json:"budgetSeconds,omitempty"`
	BudgetExecutions int     `json:"budgetExecutions,omitempty"`
	Strategy         string  `json:"strategy"`
	// Seed is the exploration's base seed.
	Seed string `json:"seed"`
	// Executions counts the executions explored.
	Executions          int     `json:"executions"`
	ElapsedSeconds      float64 `json:"elapsedSeconds"`
	ExecutionsPerSecond float64 `json:"executionsPerSecond"`
	// Failures are the distinct failures found (by signature), each once.
	Failures []Failure `json:"failures"`
	// Saved counts the failures saved to the corpus.
	Saved int `json:"saved"`
	// Known lists the signatures of the saved schedules that fail before
	// the exploration: those failures are not saved again.
	Known []string `json:"known,omitempty"`
	// Interrupted is set when a signal ended the exploration early.
	Interrupted bool `json:"interrupted,omitempty"`
	// Error says why the exploration could not run, if it could not.
	Error string `json:"error,omitempty"`
}

// A Failure is one distinct failure found.
type Failure struct {
	// Kind is the failure's kind: error, panic, deadlock, leak, escape,
	// blocked, runaway, race, outside, or crash for an execution that
	// ended its worker process.
	Kind string `json:"kind"`
	// Signature identifies the failure across executions: its kind and
	// where it was raised (see sched.Failure.Signature).
	Signature string `json:"signature"`
	Summary   string `json:"summary"`
	// Execution is the index of the execution that found it, from 0, and
	// Seed that execution's own seed.
	Execution int    `json:"execution"`
	Seed      string `json:"seed"`
	// Preemptions are the saved schedule's, after minimization;
	// PreemptionsFound the schedule's as found.
	Preemptions      int `json:"preemptions"`
	PreemptionsFound int `json:"preemptionsFound"`
	// Saved is set when the schedule was saved to the corpus; a failure
	// that does not replay identically, or that killed its worker
	// process, is not (NotSaved says why).
	Saved    bool   `json:"saved"`
	NotSaved string `json:"notSaved,omitempty"`
	// Corpus is the saved entry's path, relative to the module's root.
	Corpus string `json:"corpus,omitempty"`
	// Replay is the command that replays it.
	Replay string `json:"replay,omitempty"`
	// HTML is the path of its timeline, with -explore.html.
	HTML string `json:"html,omitempty"`
}

// Seed formats a seed or a hash as the report writes it.
func Seed(s uint64) string { return fmt.Sprintf("%#x", s) }

// Read reads a report.
func Read(path string) (*Run, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	var r Run
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("report: %s: %w", path, err)
	}
	if r.Version < 1 || r.Version > Version {
		return nil, fmt.Errorf("report: %s: version %d, this weft reads 1 to %d", path, r.Version, Version)
	}
	return &r, nil
}

// Write writes the report to path atomically: a reader sees the previous
// report or this one, whole.
func (r *Run) Write(path string) error {
	r.Version = Version
	if r.Tests == nil {
		r.Tests = []Test{}
	}
	for i := range r.Tests {
		if r.Tests[i].Failures == nil {
			r.Tests[i].Failures = []Failure{}
		}
	}
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	data = append(data, '\n')
	if err := WriteFile(path, data); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}

// Failures counts the distinct failures of the run's tests.
func (r *Run) Failures() int {
	n := 0
	for _, t := range r.Tests {
		n += len(t.Failures)
	}
	return n
}

// WriteFile replaces the file at path with data atomically: a temporary
// file in the same directory, renamed. The directory is created if needed.
func WriteFile(path string, data []byte) (err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".tmp-"+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if _, err := f.Write(data); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Chmod(f.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
