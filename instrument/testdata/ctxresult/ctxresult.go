// Package ctxresult implements an interface of code weft does not
// instrument whose method returns a context (ext.Stream's Context, as
// grpc's ServerStream's): the method keeps returning the standard
// library's context, converted from the package's own at its returns, and
// a call of it from rewritten code converts what it returns back.
package ctxresult

import (
	"context"

	"example.com/ctxresult/ext"
)

// stream sends on a channel, under its context.
type stream struct {
	ctx context.Context
	out chan string
}

func (s *stream) Context() context.Context { return s.ctx }

func (s *stream) Send(m string) error {
	select {
	case s.out <- m:
		return nil
	case <-s.ctx.Done():
		return s.ctx.Err()
	}
}

// Collect serves msgs on a stream whose receiver runs in a goroutine, and
// returns what it received.
func Collect(ctx context.Context, msgs ...string) ([]string, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s := &stream{ctx: ctx, out: make(chan string)}
	got := make(chan []string)
	go func() {
		var all []string
		for range msgs {
			select {
			case m := <-s.out:
				all = append(all, m)
			case <-ctx.Done():
				close(got)
				return
			}
		}
		got <- all
	}()
	if err := ext.Serve(s, msgs...); err != nil {
		return nil, err
	}
	if err := s.Context().Err(); err != nil {
		return nil, err
	}
	return <-got, nil
}
