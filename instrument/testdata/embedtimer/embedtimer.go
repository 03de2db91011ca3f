// Package embedtimer holds a clock whose real timer and ticker embed
// *time.Timer and *time.Ticker and hand out their channel, C, through the
// embedding struct, as jonboulle/clockwork's do: the channel is the
// timer's, weft's like it.
package embedtimer

import "time"

// Timer is a timer, real or fake.
type Timer interface {
	Chan() <-chan time.Time
	Stop() bool
}

// Ticker is a ticker, real or fake.
type Ticker interface {
	Chan() <-chan time.Time
	Stop()
}

type realTimer struct{ *time.Timer }

func (r realTimer) Chan() <-chan time.Time { return r.C }

type realTicker struct{ *time.Ticker }

func (r realTicker) Chan() <-chan time.Time { return r.C }

type fakeTimer struct{ c chan time.Time }

func (f *fakeTimer) Chan() <-chan time.Time { return f.c }
func (f *fakeTimer) Stop() bool             { return true }

// NewTimer returns a real timer.
func NewTimer(d time.Duration) Timer { return realTimer{time.NewTimer(d)} }

// NewTicker returns a real ticker.
func NewTicker(d time.Duration) Ticker { return realTicker{time.NewTicker(d)} }

// NewFake returns a fake timer that fires when fire is called.
func NewFake() (Timer, func(time.Time)) {
	f := &fakeTimer{c: make(chan time.Time, 1)}
	return f, func(t time.Time) { f.c <- t }
}
