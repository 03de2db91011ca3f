// Package anyelems is reduced from hashicorp/raft's runFSM and its
// pipelines: a channel of interface{} whose values the loop that receives
// them prints with %#v when it does not know their type, and a channel of
// an interface type whose values the consumer formats. What reaches fmt
// is the values the channels carry, not the channels: the values stay
// Go's (a channel sent on them would too), the channels are weft's. Before,
// a channel and its values were one class, both channels stayed Go's,
// shared with fmt, and the goroutines waiting on them in a select polled
// (raft's TestRaft_RemoveLeader ran 14.6 million events).
package anyelems

import "fmt"

// Future is what the loop hands back for each batch it applies.
type Future interface {
	Error() error
}

type future struct{ n int }

func (f *future) Error() error { return nil }

// Loop applies the batches sent to it, one at a time.
type Loop struct {
	mutateCh chan interface{}
	doneCh   chan Future
	stopCh   chan struct{}
	applied  int
}

// New starts a Loop.
func New() *Loop {
	l := &Loop{mutateCh: make(chan interface{}, 4), doneCh: make(chan Future, 4), stopCh: make(chan struct{})}
	go l.run()
	return l
}

func (l *Loop) run() {
	for {
		select {
		case ptr := <-l.mutateCh:
			switch req := ptr.(type) {
			case []int:
				l.applied += len(req)
				l.doneCh <- &future{len(req)}
			default:
				panic(fmt.Errorf("bad type passed to mutateCh: %#v", ptr))
			}
		case <-l.stopCh:
			return
		}
	}
}

// Apply hands a batch to the loop.
func (l *Loop) Apply(batch []int) { l.mutateCh <- batch }

// Consumer is where the loop hands back a Future for each batch.
func (l *Loop) Consumer() <-chan Future { return l.doneCh }

// Stop ends the loop.
func (l *Loop) Stop() { close(l.stopCh) }

// Describe formats what a consumer received.
func Describe(f Future) string { return fmt.Sprintf("%+v", f) }
