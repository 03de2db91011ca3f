package sim_test

import (
	"errors"
	"io"
	"testing"

	"github.com/weftdev/weft/sim"
)

// TestControlledPipe: under control, sim.Pipe (weft test's rewrite of
// io.Pipe) waits for the other half as an event of the execution: a
// Write split over two Reads, a close with an error seen by the reader,
// and a write after the reader's close. io.Pipe's waits, Go's, blocked
// outside weft's control (hashicorp/yamux's tests over pipes reported
// blocked). Outside an execution it is io.Pipe.
func TestControlledPipe(t *testing.T) {
	boom := errors.New("boom")
	exploreAll(t, func(c *checker) {
		r, w := sim.Pipe()
		sim.Go(func() {
			n, err := w.Write([]byte("abcd"))
			c.Equal("written", n, 4)
			c.Equal("write error", err, error(nil))
			w.CloseWithError(boom)
		})
		buf := make([]byte, 3)
		n, _ := r.Read(buf)
		c.Equal("first read", string(buf[:n]), "abc")
		n, _ = r.Read(buf)
		c.Equal("second read", string(buf[:n]), "d")
		_, err := r.Read(buf)
		c.Equal("read after close", err, boom)
		r2, w2 := sim.Pipe()
		r2.Close()
		_, err = w2.Write([]byte("x"))
		c.Equal("write after the reader's close", err, io.ErrClosedPipe)
	})
	r, w := sim.Pipe()
	go func() { w.Write([]byte("hi")); w.Close() }()
	if b, err := io.ReadAll(r); string(b) != "hi" || err != nil {
		t.Fatalf("outside an execution: %q, %v", b, err)
	}
}
