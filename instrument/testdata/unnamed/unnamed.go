// Package unnamed implements an interface with a method whose parameters
// are unnamed, as watermill's test subscribers do: Subscribe(context.Context,
// string) (<-chan *Message, error). Its context parameter is shared with
// fmt (the context reaches fmt.Sprint), which must not keep its channel
// result Go's too: weft named an unnamed parameter or result by its file,
// line and empty name, so that the four of one line were one, and every
// channel the interface's subscribers return stayed Go's, polled by the
// goroutines that waited on them.
package unnamed

import (
	"context"
	"fmt"
)

// Subscriber hands out the values of a topic.
type Subscriber interface {
	Subscribe(ctx context.Context, topic string) (<-chan string, error)
}

type memory struct{ values []string }

// NewMemory returns a Subscriber that hands out values to every topic.
func NewMemory(values ...string) Subscriber { return memory{values} }

func (m memory) Subscribe(context.Context, string) (<-chan string, error) {
	out := make(chan string)
	go func() {
		for _, v := range m.values {
			out <- v
		}
		close(out)
	}()
	return out, nil
}

// Subscribe subscribes s to topic, and describes the context it did so
// with.
func Subscribe(ctx context.Context, s Subscriber, topic string) (<-chan string, string, error) {
	ch, err := s.Subscribe(ctx, topic)
	return ch, fmt.Sprint(ctx), err
}
