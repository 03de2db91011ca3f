package weft

import (
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// Nothing found is lost to Ctrl-C or a CI job's timeout. While a test
// explores with -explore, the process catches SIGINT and SIGTERM: the first
// stops every exploration (no execution starts any more, the chunks running
// finish), and the failures found so far are judged, minimized for what is
// left of a grace period, saved and reported; the explorations of tests
// that start later are skipped. A second signal, or the end of the grace
// period, cuts the minimizations short: each failure is saved as far as it
// was minimized. Worker processes ignore both signals (their coordinator
// ends them), so that a signal sent to the whole process group, as a
// terminal's Ctrl-C is, does not kill the executions in flight.

// Grace is how long the minimizations of the failures found may go on
// after the first signal: within a CI runner's wait between SIGINT and
// SIGTERM (GitHub Actions: 7.5 s) and a Kubernetes pod's grace period
// (30 s by default).
const Grace = 5 * time.Second

// interrupt is the process's: signals are.
var interrupt struct {
	once  sync.Once
	stop  chan struct{} // closed at the first signal
	hurry chan struct{} // closed Grace later, or at the second signal
}

// watchSignals catches SIGINT and SIGTERM from now on, once for the process,
// and returns the channels they close.
func watchSignals() (stop, hurry <-chan struct{}) {
	interrupt.once.Do(func() {
		interrupt.stop = make(chan struct{})
		interrupt.hurry = make(chan struct{})
		c := make(chan os.Signal, 2)
		signal.Notify(c, os.Interrupt, syscall.SIGTERM)
		go func() {
			<-c
			close(interrupt.stop)
			select {
			case <-c:
			case <-time.After(Grace):
			}
			close(interrupt.hurry)
		}()
	})
	return interrupt.stop, interrupt.hurry
}

// interrupted reports whether a signal has stopped the explorations.
func interrupted() bool {
	stop, _ := watchSignals()
	select {
	case <-stop:
		return true
	default:
		return false
	}
}

// ignoreSignals makes a worker process outlive the signals sent to its
// process group: its coordinator ends it.
func ignoreSignals() { signal.Ignore(os.Interrupt, syscall.SIGTERM) }
