// Package ext is code weft does not instrument.
package ext

import "context"

// Stream is a stream of a server, as grpc's ServerStream is: its Context
// method returns the stream's context.
type Stream interface {
	Context() context.Context
	Send(string) error
}

// Serve sends msgs on s until its context is done.
func Serve(s Stream, msgs ...string) error {
	for _, m := range msgs {
		if err := s.Context().Err(); err != nil {
			return err
		}
		if err := s.Send(m); err != nil {
			return err
		}
	}
	return nil
}
