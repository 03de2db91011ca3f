// Package publish is data published without a happens-before edge: a
// loader fills a configuration, then sets a plain bool that readers poll.
// The readers see the flag set and read the configuration, and under weft's
// controller they always read it whole; but nothing orders the loader's
// writes before the readers' reads, and the race detector (go test -race)
// reports the flag, or the configuration, at the first execution.
package publish

import (
	"github.com/weftdev/weft/sim"
	weft "github.com/weftdev/weft/testing"
)

// Config is what the loader publishes.
type Config struct{ Addr string }

// RacyLoader publishes through a plain bool: the bug.
type RacyLoader struct {
	config *Config
	ready  bool
}

// Load loads the configuration and publishes it.
func (l *RacyLoader) Load() {
	l.config = &Config{Addr: ":8080"}
	l.ready = true
}

// Get waits for the configuration and returns it.
func (l *RacyLoader) Get() *Config {
	for !l.ready {
		sim.Yield()
	}
	return l.config
}

// Loader publishes through an atomic bool, whose Store happens before the
// Load that sees it: the fix.
type Loader struct {
	config *Config
	ready  sim.Bool
}

// Load loads the configuration and publishes it.
func (l *Loader) Load() {
	l.config = &Config{Addr: ":8080"}
	l.ready.Store(true)
}

// Get waits for the configuration and returns it.
func (l *Loader) Get() *Config {
	for !l.ready.Load() {
		sim.Yield()
	}
	return l.config
}

type loader interface {
	Load()
	Get() *Config
}

// Buggy is the test body that finds the bug.
func Buggy(t *weft.T) { startAndGet(t, &RacyLoader{}) }

// Fixed is the same test of the fixed code.
func Fixed(t *weft.T) { startAndGet(t, &Loader{}) }

func startAndGet(t *weft.T, l loader) {
	sim.Go(l.Load)
	if c := l.Get(); c.Addr != ":8080" {
		t.Errorf("Addr = %q", c.Addr)
	}
}
