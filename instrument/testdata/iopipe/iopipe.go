// Package iopipe joins two ends by io.Pipe, as hashicorp/yamux's tests
// join two sessions: io.Pipe's waits, Go's mutex and channels, blocked
// outside weft's control while the other end waited for its turn.
package iopipe

import "io"

// A Conn is one end of a pair: it reads one pipe and writes the other.
type Conn struct {
	reader *io.PipeReader
	writer *io.PipeWriter
}

func (c *Conn) Read(b []byte) (int, error)  { return c.reader.Read(b) }
func (c *Conn) Write(b []byte) (int, error) { return c.writer.Write(b) }

// Close closes both halves the end holds.
func (c *Conn) Close() error {
	c.reader.Close()
	return c.writer.Close()
}

// Pair returns the two ends.
func Pair() (io.ReadWriteCloser, io.ReadWriteCloser) {
	r1, w1 := io.Pipe()
	r2, w2 := io.Pipe()
	return &Conn{reader: r1, writer: w2}, &Conn{reader: r2, writer: w1}
}
