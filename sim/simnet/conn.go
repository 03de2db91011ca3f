package simnet

import (
	"io"
	"net"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/weftdev/weft/sched"
	"github.com/weftdev/weft/sim"
)

// bufferSize is what one direction of an in-memory connection buffers
// before a write waits for the peer's reads, as a socket's buffers fill.
const bufferSize = 1 << 20

// pair is the state both ends of an in-memory connection share, guarded
// by mu: Go's, held for moments, never across an event, so that the
// standard library's code that calls a connection under its own locks
// (crypto/tls, net/http) meets no scheduling point in mu.
type pair struct {
	mu sync.Mutex
	// changed is closed, and replaced, at a change of the state while
	// operations wait (for bytes, room, a close or a new deadline): they
	// wait for it, or for their deadline's timer.
	changed *sim.Chan[struct{}]
	signal
	streams [2]stream // streams[i]: the bytes end i writes, end 1-i reads
	ends    [2]endState
}

// signal wakes the waiting operations of a connection or a listener: a
// change made under the lock replaces the channel they wait for, and the
// old one is closed once the lock is released (a close is an event).
type signal struct {
	waiting int                 // operations waiting, or about to
	closing *sim.Chan[struct{}] // to close at the unlock
}

// wake tells the waiting operations, if any, that the state changed.
// Called with the lock held.
func (s *signal) wake(changed **sim.Chan[struct{}]) {
	if s.waiting == 0 || s.closing != nil {
		return
	}
	s.closing = *changed
	*changed = sim.NewChan[struct{}](0)
}

// unlock releases mu, then wakes the waiting operations.
func (s *signal) unlock(mu *sync.Mutex) {
	ch := s.closing
	s.closing = nil
	mu.Unlock()
	if ch != nil {
		ch.Close()
	}
}

// now is the virtual time, read without an event (an event is a
// scheduling point, which must not be taken holding a lock of Go's).
func now() time.Time {
	if g := sched.Current(); g != nil {
		return g.Now()
	}
	return time.Now()
}

// stream is one direction of a connection.
type stream struct {
	buf     []byte
	wclosed bool // the writer closed or shut it: EOF once buf is read
	rclosed bool // the reader closed: writes fail, but the first
	reset   bool // a write after the reader's close was taken: the peer reset
	rshut   bool // the reader shut it (CloseRead): its reads see EOF
}

// endState is what one end holds of its own.
type endState struct {
	closed   bool
	rdl, wdl time.Time // deadlines (zero: none)
}

// memConn is one end of an in-memory connection.
type memConn struct {
	p             *pair
	i             int // which end
	network       string
	local, remote net.Addr
}

// newPair returns the two ends of a connection between a and b.
func newPair(network string, a, b net.Addr) (*memConn, *memConn) {
	p := &pair{changed: sim.NewChan[struct{}](0)}
	return &memConn{p: p, i: 0, network: network, local: a, remote: b},
		&memConn{p: p, i: 1, network: network, local: b, remote: a}
}

func (p *pair) wake()   { p.signal.wake(&p.changed) }
func (p *pair) unlock() { p.signal.unlock(&p.mu) }

// wait waits, with mu held, for a change of the state or deadline dl. It
// takes mu again on its way out, also when the goroutine exits there (an
// execution that ends makes its goroutines exit at their next event),
// for the caller's deferred unlock: the unlock's own close of the channel
// that wakes the others is such an event, after mu is released.
func (p *pair) wait(dl time.Time) {
	ch := p.changed
	p.waiting++
	defer func() {
		p.mu.Lock()
		p.waiting--
	}()
	p.unlock()
	waitFor(ch, dl)
}

// waitFor waits for ch to be closed, or for deadline dl (zero: none) on
// weft's clock.
func waitFor(ch *sim.Chan[struct{}], dl time.Time) {
	if dl.IsZero() {
		ch.Recv()
		return
	}
	t := sim.NewTimer(sim.Until(dl))
	sim.Select(sim.OnRecv(ch, nil), sim.OnRecv(t.C, nil))
	t.Stop()
}

// expired reports whether deadline dl has passed on weft's clock.
func expired(dl time.Time) bool { return !dl.IsZero() && !now().Before(dl) }

// opError returns an error of op on c as net's: "read tcp a->b: ...".
func (c *memConn) opError(op string, err error) error {
	return &net.OpError{Op: op, Net: c.network, Source: c.local, Addr: c.remote, Err: err}
}

// Read reads as a TCP connection's Read: it waits for bytes, the peer's
// close (io.EOF once its bytes are read) or the read deadline
// (os.ErrDeadlineExceeded, a timeout).
func (c *memConn) Read(b []byte) (int, error) {
	p := c.p
	p.mu.Lock()
	defer p.unlock()
	for {
		st, in := &p.ends[c.i], &p.streams[1-c.i]
		switch {
		case st.closed:
			return 0, c.opError("read", net.ErrClosed)
		case in.rshut:
			return 0, io.EOF
		case expired(st.rdl):
			return 0, c.opError("read", os.ErrDeadlineExceeded)
		case len(in.buf) > 0:
			n := copy(b, in.buf)
			in.buf = in.buf[n:]
			if len(in.buf) == 0 {
				in.buf = nil
			}
			p.wake()
			return n, nil
		case len(b) == 0:
			return 0, nil
		case in.wclosed:
			return 0, io.EOF
		}
		p.wait(st.rdl)
	}
}

// Write writes as a TCP connection's Write: it returns once b is
// buffered, waiting for the peer's reads while a megabyte is; after the
// peer's close, the first write is taken (and lost) and the next ones
// fail ("broken pipe"); a write fails at the write deadline.
func (c *memConn) Write(b []byte) (int, error) {
	p := c.p
	p.mu.Lock()
	defer p.unlock()
	n := 0
	for {
		st, out := &p.ends[c.i], &p.streams[c.i]
		switch {
		case st.closed:
			return n, c.opError("write", net.ErrClosed)
		case out.wclosed || out.reset:
			return n, c.opError("write", &os.SyscallError{Syscall: "write", Err: syscall.EPIPE})
		case out.rclosed:
			// As TCP's: the kernel takes the first write after the
			// peer's close, which answers it with a reset; the next
			// fails.
			out.reset = true
			return n + len(b), nil
		case expired(st.wdl):
			return n, c.opError("write", os.ErrDeadlineExceeded)
		case len(b) == 0:
			return n, nil
		case len(out.buf) < bufferSize:
			k := min(bufferSize-len(out.buf), len(b))
			out.buf = append(out.buf, b[:k]...)
			b = b[k:]
			n += k
			p.wake()
			continue
		}
		p.wait(st.wdl)
	}
}

// Close closes the end: the peer reads what was written, then io.EOF; its
// writes fail. A second Close fails with net.ErrClosed.
func (c *memConn) Close() error {
	p := c.p
	p.mu.Lock()
	defer p.unlock()
	if p.ends[c.i].closed {
		return c.opError("close", net.ErrClosed)
	}
	p.ends[c.i].closed = true
	p.streams[c.i].wclosed = true
	in := &p.streams[1-c.i]
	in.rclosed, in.buf = true, nil
	p.wake()
	return nil
}

// shut shuts the write (CloseWrite) or the read (CloseRead) direction.
func (c *memConn) shut(write bool) error {
	p := c.p
	p.mu.Lock()
	defer p.unlock()
	op := "close"
	if p.ends[c.i].closed {
		return c.opError(op, net.ErrClosed)
	}
	if write {
		p.streams[c.i].wclosed = true
	} else {
		p.streams[1-c.i].rshut = true
	}
	p.wake()
	return nil
}

// setDeadline sets the read and/or write deadline, waking the operations
// waiting for the old one.
func (c *memConn) setDeadline(t time.Time, read, write bool) error {
	p := c.p
	p.mu.Lock()
	defer p.unlock()
	st := &p.ends[c.i]
	if st.closed {
		return c.opError("set", net.ErrClosed)
	}
	if read {
		st.rdl = t
	}
	if write {
		st.wdl = t
	}
	p.wake()
	return nil
}
