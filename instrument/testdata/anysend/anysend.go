// Package anysend sends values of their own types on channels of any, as
// eapache/channels does: its channels meet reflect and stay Go's,
// and sim's SendGo and OnSendGo, which infer the element type from the
// value too, are given the value converted to the channel's element type;
// reflect.Select becomes sim.ReflectSelect, which waits for the controlled
// goroutines under control.
package anysend

import "reflect"

// Batcher collects what is sent on In and hands it on Out as one batch.
type Batcher struct {
	in, out chan any
	length  chan int
	buf     []any
}

// New starts a Batcher.
func New() *Batcher {
	b := &Batcher{in: make(chan any), out: make(chan any), length: make(chan int)}
	go b.run()
	return b
}

// In is the end values are sent on.
func (b *Batcher) In() chan<- any { return b.in }

// Out is the end batches are received from.
func (b *Batcher) Out() <-chan any { return b.out }

// Len tells how many values wait in the batch.
func (b *Batcher) Len() int { return <-b.length }

// Close closes In.
func (b *Batcher) Close() { close(b.in) }

func (b *Batcher) run() {
	in, out := b.in, chan any(nil)
	for in != nil || out != nil {
		select {
		case v, ok := <-in:
			if !ok {
				in = nil
				break
			}
			b.buf = append(b.buf, v)
		case out <- b.buf:
			b.buf = nil
		case b.length <- len(b.buf):
		}
		out = nil
		if len(b.buf) > 0 {
			out = b.out
		}
		if in == nil && out == nil {
			close(b.out)
		}
	}
}

// Types names the types of its channels, through reflect.
func (b *Batcher) Types() string {
	return reflect.TypeOf(b.in).String() + " " + reflect.TypeOf(b.out).String()
}

// Feed sends each value on the In of one of bs, through reflect.Select.
func Feed(values []int, bs ...*Batcher) {
	cases := make([]reflect.SelectCase, len(bs))
	for _, v := range values {
		for i, b := range bs {
			cases[i] = reflect.SelectCase{Dir: reflect.SelectSend, Chan: reflect.ValueOf(b.In()), Send: reflect.ValueOf(v)}
		}
		reflect.Select(cases)
	}
}
