package simnet

import (
	"net"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/weftdev/weft/sched"
	"github.com/weftdev/weft/sim"
)

// memListener is a listener of an execution's in-memory network, on a
// real listener's port (or unix socket's path): a dial of weft's
// connects in memory, a dial of code weft does not rewrite (net/http's
// client, a server started by the standard library) through the real
// one, whose connections a goroutine of the listener's own accepts (from
// the first Accept on) and hands over.
type memListener struct {
	mu      sync.Mutex // Go's, as pair's
	changed *sim.Chan[struct{}]
	signal
	net     *network
	network string
	addr    net.Addr
	key     string     // in the network's listeners
	queue   []*memConn // connected, not yet accepted: their server ends
	closed  bool
	dl      time.Time

	real     net.Listener
	accepted chan accepted // the real connections, from the accepting goroutine
	done     chan struct{} // closed by Close: the accepting goroutine ends
}

// accepted is what the real listener's Accept returned.
type accepted struct {
	c   net.Conn
	err error
}

// listen makes a listener of g's execution beside the real listener
// real, at key in the network (its port, or its path).
func listen(g *sched.G, network string, real net.Listener, key string) *memListener {
	n := networkOf(g)
	l := &memListener{changed: sim.NewChan[struct{}](0), net: n, network: network,
		addr: real.Addr(), key: key, real: real}
	n.bind(l, key)
	return l
}

// acceptReal starts the goroutine that accepts the real listener's
// connections, outside weft's control, and hands them over: it ends at
// the listener's close. Called with mu held.
func (l *memListener) acceptReal() {
	if l.accepted != nil {
		return
	}
	l.accepted, l.done = make(chan accepted), make(chan struct{})
	go func(real net.Listener, out chan<- accepted, done <-chan struct{}) {
		for {
			c, err := real.Accept()
			if err != nil && isTemporary(err) {
				continue
			}
			select {
			case out <- accepted{c, err}:
			case <-done:
				if c != nil {
					c.Close()
				}
				return
			}
			if err != nil {
				return
			}
		}
	}(l.real, l.accepted, l.done)
}

// isTemporary reports whether an error of Accept may pass.
func isTemporary(err error) bool {
	ne, ok := err.(interface{ Temporary() bool })
	return ok && ne.Temporary()
}

func (l *memListener) wake()   { l.signal.wake(&l.changed) }
func (l *memListener) unlock() { l.signal.unlock(&l.mu) }

func (l *memListener) opError(op string, err error) error {
	return &net.OpError{Op: op, Net: l.network, Addr: l.addr, Err: err}
}

// connect makes a connection from client to server and queues its server
// end for Accept; it returns the client end, or "connection refused" if
// the listener closed.
func (l *memListener) connect(network string, client, server net.Addr) (*memConn, error) {
	l.mu.Lock()
	defer l.unlock()
	if l.closed {
		return nil, &net.OpError{Op: "dial", Net: network, Addr: server,
			Err: &os.SyscallError{Syscall: "connect", Err: syscall.ECONNREFUSED}}
	}
	c, s := newPair(network, client, server)
	l.queue = append(l.queue, s)
	l.wake()
	return c, nil
}

// wait waits, with mu held, for a change of the state, the deadline or
// a real connection, which it returns. It takes mu again on its way out,
// as pair's wait does.
func (l *memListener) wait() (got *accepted) {
	ch, dl, in := l.changed, l.dl, l.accepted
	l.waiting++
	defer func() {
		l.mu.Lock()
		l.waiting--
	}()
	l.unlock() // its close of the channel that wakes the others is an event, where the goroutine may exit
	recv := sim.OnRecvGo(in, func(a accepted) { got = &a })
	if dl.IsZero() {
		sim.Select(sim.OnRecv(ch, nil), recv)
		return got
	}
	t := sim.NewTimer(sim.Until(dl))
	sim.Select(sim.OnRecv(ch, nil), sim.OnRecv(t.C, nil), recv)
	t.Stop()
	return got
}

// accept waits for a connection, in memory (mem) or real, the
// listener's close or its deadline.
func (l *memListener) accept() (mem *memConn, real net.Conn, err error) {
	l.mu.Lock()
	defer l.unlock()
	for {
		switch {
		case l.closed:
			return nil, nil, l.opError("accept", net.ErrClosed)
		case expired(l.dl):
			return nil, nil, l.opError("accept", os.ErrDeadlineExceeded)
		case len(l.queue) > 0:
			s := l.queue[0]
			l.queue[0] = nil
			l.queue = l.queue[1:]
			return s, nil, nil
		}
		l.acceptReal()
		got := l.wait()
		if got != nil {
			return nil, got.c, got.err
		}
	}
}

// close closes the listener: its port is free again, the connections not
// yet accepted are closed (their clients read io.EOF), Accept fails with
// net.ErrClosed.
func (l *memListener) close() error {
	l.mu.Lock()
	if l.closed {
		l.unlock()
		return l.opError("close", net.ErrClosed)
	}
	l.closed = true
	l.net.unbind(l, l.key)
	queue := l.queue
	l.queue = nil
	if l.done != nil {
		close(l.done)
	}
	err := l.real.Close()
	l.wake()
	l.unlock()
	for _, s := range queue {
		s.Close()
	}
	return err
}

// setDeadline sets the deadline of Accept.
func (l *memListener) setDeadline(t time.Time) error {
	l.mu.Lock()
	defer l.unlock()
	if l.closed {
		return l.opError("set", net.ErrClosed)
	}
	l.dl = t
	l.wake()
	return nil
}
