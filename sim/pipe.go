// The pipe below is Go's io.Pipe (io/pipe.go), its sync.Mutex, sync.Once and
// channels made weft's.
//
// Copyright 2009 The Go Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package sim

import "io"

// pipeError is an error stored once (io's onceError).
type pipeError struct {
	mu  Mutex
	err error
}

func (a *pipeError) store(err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.err == nil {
		a.err = err
	}
}

func (a *pipeError) load() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.err
}

// pipe is the state a PipeReader and its PipeWriter share.
type pipe struct {
	wrMu Mutex // serializes writes
	wrCh *Chan[[]byte]
	rdCh *Chan[int]

	once Once // closes done once
	done *Chan[struct{}]
	rerr pipeError
	werr pipeError
}

func (p *pipe) read(b []byte) (n int, err error) {
	if Select(OnRecv(p.done, nil), OnDefault(nil)) == 0 {
		return 0, p.readCloseError()
	}
	var bw []byte
	if Select(OnRecv(p.wrCh, func(x []byte) { bw = x }), OnRecv(p.done, nil)) == 1 {
		return 0, p.readCloseError()
	}
	nr := copy(b, bw)
	p.rdCh.Send(nr)
	return nr, nil
}

func (p *pipe) closeRead(err error) error {
	if err == nil {
		err = io.ErrClosedPipe
	}
	p.rerr.store(err)
	p.once.Do(func() { p.done.Close() })
	return nil
}

func (p *pipe) write(b []byte) (n int, err error) {
	if Select(OnRecv(p.done, nil), OnDefault(nil)) == 0 {
		return 0, p.writeCloseError()
	}
	p.wrMu.Lock()
	defer p.wrMu.Unlock()
	for once := true; once || len(b) > 0; once = false {
		if Select(OnSend(p.wrCh, b, nil), OnRecv(p.done, nil)) == 1 {
			return n, p.writeCloseError()
		}
		nw := p.rdCh.Recv()
		b = b[nw:]
		n += nw
	}
	return n, nil
}

func (p *pipe) closeWrite(err error) error {
	if err == nil {
		err = io.EOF
	}
	p.werr.store(err)
	p.once.Do(func() { p.done.Close() })
	return nil
}

func (p *pipe) readCloseError() error {
	rerr := p.rerr.load()
	if werr := p.werr.load(); rerr == nil && werr != nil {
		return werr
	}
	return io.ErrClosedPipe
}

func (p *pipe) writeCloseError() error {
	werr := p.werr.load()
	if rerr := p.rerr.load(); werr == nil && rerr != nil {
		return rerr
	}
	return io.ErrClosedPipe
}

// A PipeReader is io.PipeReader, the read half of a Pipe.
type PipeReader struct{ pipe }

// Read reads from the pipe, waiting for a writer or for the write half to
// be closed, as io.PipeReader.Read does: it returns the error the write
// half was closed with, or io.EOF.
func (r *PipeReader) Read(data []byte) (n int, err error) {
	return r.pipe.read(data)
}

// Close closes the reader: later writes return io.ErrClosedPipe.
func (r *PipeReader) Close() error {
	return r.CloseWithError(nil)
}

// CloseWithError closes the reader: later writes return err (the first
// error a close stored). It returns nil.
func (r *PipeReader) CloseWithError(err error) error {
	return r.pipe.closeRead(err)
}

// A PipeWriter is io.PipeWriter, the write half of a Pipe.
type PipeWriter struct{ r PipeReader }

// Write writes to the pipe, waiting until readers have consumed all of
// data or the read half is closed, as io.PipeWriter.Write does.
func (w *PipeWriter) Write(data []byte) (n int, err error) {
	return w.r.pipe.write(data)
}

// Close closes the writer: later reads return no bytes and io.EOF.
func (w *PipeWriter) Close() error {
	return w.CloseWithError(nil)
}

// CloseWithError closes the writer: later reads return no bytes and err
// (the first error a close stored), or io.EOF if err is nil. It returns
// nil.
func (w *PipeWriter) CloseWithError(err error) error {
	return w.r.pipe.closeWrite(err)
}

// Pipe is io.Pipe for code weft test rewrites: a synchronous in-memory
// pipe, each Write waiting until Reads have consumed it. io.Pipe's waits
// are Go's mutex and channels, where a controlled goroutine would block
// outside weft's control, holding the execution's turn, while the
// goroutine that would write or read waits for it (hashicorp/yamux's
// tests join two sessions by two pipes): here they are weft's, events of
// the execution. Outside an execution it behaves as io.Pipe.
func Pipe() (*PipeReader, *PipeWriter) {
	pw := &PipeWriter{r: PipeReader{pipe: pipe{
		wrCh: NewChan[[]byte](0),
		rdCh: NewChan[int](0),
		done: NewChan[struct{}](0),
	}}}
	return &pw.r, pw
}
