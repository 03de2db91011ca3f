// Package leak is the goroutine leak: a fetch with a timeout starts a
// worker that sends its result on an unbuffered channel; when the timeout
// wins, nobody ever receives, and the worker stays blocked forever.
package leak

import (
	"errors"
	"time"

	"github.com/weftdev/weft/sim"
	weft "github.com/weftdev/weft/testing"
)

// ErrTimeout is returned when the backend is too slow.
var ErrTimeout = errors.New("timeout")

// backend answers after 10, 20 or 30 milliseconds.
func backend() string {
	sim.Sleep(time.Duration(1+sim.Intn(3)) * 10 * time.Millisecond)
	return "answer"
}

// RacyFetch waits for the backend at most timeout, with an unbuffered
// result channel: the bug.
func RacyFetch(timeout time.Duration) (string, error) { return fetch(timeout, 0) }

// Fetch gives the result channel room for the answer, so the worker can
// always finish: the fix.
func Fetch(timeout time.Duration) (string, error) { return fetch(timeout, 1) }

func fetch(timeout time.Duration, room int) (string, error) {
	result := sim.NewChan[string](room)
	sim.Go(func() { result.Send(backend()) })
	var answer string
	err := ErrTimeout
	sim.Select(
		sim.OnRecv(result, func(v string) { answer, err = v, nil }),
		sim.OnRecv(sim.After(timeout), nil),
	)
	return answer, err
}

// Buggy is the test body that finds the bug.
func Buggy(t *weft.T) { fetchOnce(t, RacyFetch) }

// Fixed is the same test of the fixed code.
func Fixed(t *weft.T) { fetchOnce(t, Fetch) }

func fetchOnce(t *weft.T, fetch func(time.Duration) (string, error)) {
	if v, err := fetch(25 * time.Millisecond); err == nil && v != "answer" {
		t.Errorf("fetch = %q", v)
	}
}
