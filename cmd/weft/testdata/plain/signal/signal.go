// Package signal waits for a signal as oklog/run's SignalHandler does:
// signal.Notify starts os/signal's loop, a goroutine of the standard
// library that lives as long as the process, from the goroutine that
// calls it first.
package signal

import (
	"os"
	"os/signal"
)

// Wait returns the first of an interrupt and a signal sent on test.
func Wait(test <-chan os.Signal) os.Signal {
	sigc := make(chan os.Signal, 1)
	signal.Notify(sigc, os.Interrupt)
	defer signal.Stop(sigc)
	select {
	case s := <-test:
		return s
	case s := <-sigc:
		return s
	}
}
