// Package doubleclose is the double close: Stop closes a channel unless it
// sees it closed already, but the check and the close are not atomic, so
// two goroutines stopping at once both close it, and the second close
// panics.
package doubleclose

import (
	"github.com/weftdev/weft/sim"
	weft "github.com/weftdev/weft/testing"
)

// Stopper signals shutdown by closing Done.
type Stopper struct {
	Done *sim.Chan[struct{}]
	once sim.Once
	racy bool
}

// NewRacyStopper returns the stopper that checks before closing: the bug.
func NewRacyStopper() *Stopper {
	return &Stopper{Done: sim.NewChan[struct{}](0), racy: true}
}

// NewStopper returns the stopper that closes once with a sim.Once: the fix.
func NewStopper() *Stopper { return &Stopper{Done: sim.NewChan[struct{}](0)} }

// Stop signals shutdown; it may be called more than once.
func (s *Stopper) Stop() {
	if !s.racy {
		s.once.Do(s.Done.Close)
		return
	}
	sim.Select(
		sim.OnRecv(s.Done, nil),                  // already stopped
		sim.OnDefault(func() { s.Done.Close() }), // not yet: stop
	)
}

// Buggy is the test body that finds the bug.
func Buggy(t *weft.T) { stopTwice(NewRacyStopper()) }

// Fixed is the same test of the fixed code.
func Fixed(t *weft.T) { stopTwice(NewStopper()) }

func stopTwice(s *Stopper) {
	var wg sim.WaitGroup
	wg.Go(s.Stop)
	wg.Go(s.Stop)
	wg.Wait()
	s.Done.Recv()
}
