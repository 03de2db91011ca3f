package simnet

import (
	"net"
	"os"
	"syscall"
	"time"

	"github.com/weftdev/weft/sched"
	"github.com/weftdev/weft/sim"
)

// memListener is a listener of an execution's in-memory network.
type memListener struct {
	mu      sim.Mutex
	changed *sim.Chan[struct{}]
	net     *network
	network string
	addr    *net.TCPAddr
	queue   []*memConn // connected, not yet accepted: their server ends
	closed  bool
	dl      time.Time
}

// listen makes a listener of g's execution on ip (nil: all interfaces)
// and port (0: a free one).
func listen(g *sched.G, network string, ip net.IP, port int) (*TCPListener, error) {
	n := networkOf(g)
	if ip == nil {
		ip = net.IPv6unspecified
		if network == "tcp4" {
			ip = net.IPv4zero
		}
	}
	l := &memListener{changed: sim.NewChan[struct{}](0), net: n, network: network}
	p := n.bind(l, port)
	if p == 0 {
		addr := &net.TCPAddr{IP: ip, Port: port}
		return nil, &net.OpError{Op: "listen", Net: network, Addr: addr,
			Err: &os.SyscallError{Syscall: "bind", Err: syscall.EADDRINUSE}}
	}
	l.addr = &net.TCPAddr{IP: ip, Port: p}
	return &TCPListener{mem: l}, nil
}

// wake tells the waiting Accepts that the state changed. Called with mu
// held.
func (l *memListener) wake() {
	old := l.changed
	l.changed = sim.NewChan[struct{}](0)
	old.Close()
}

func (l *memListener) opError(op string, err error) error {
	return &net.OpError{Op: op, Net: l.network, Addr: l.addr, Err: err}
}

// connect makes a connection from client to server and queues its server
// end for Accept; it returns the client end, or "connection refused" if
// the listener closed.
func (l *memListener) connect(network string, client, server *net.TCPAddr) (*TCPConn, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil, &net.OpError{Op: "dial", Net: network, Addr: server,
			Err: &os.SyscallError{Syscall: "connect", Err: syscall.ECONNREFUSED}}
	}
	c, s := newPair(network, client, server)
	l.queue = append(l.queue, s)
	l.wake()
	return &TCPConn{mem: c}, nil
}

// accept waits for a connection, the listener's close or its deadline.
func (l *memListener) accept() (*TCPConn, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for {
		switch {
		case l.closed:
			return nil, l.opError("accept", net.ErrClosed)
		case expired(l.dl):
			return nil, l.opError("accept", os.ErrDeadlineExceeded)
		case len(l.queue) > 0:
			s := l.queue[0]
			l.queue[0] = nil
			l.queue = l.queue[1:]
			return &TCPConn{mem: s}, nil
		}
		ch, dl := l.changed, l.dl
		l.mu.Unlock()
		waitFor(ch, dl)
		l.mu.Lock()
	}
}

// close closes the listener: its port is free again, the connections not
// yet accepted are closed (their clients read io.EOF), Accept fails with
// net.ErrClosed.
func (l *memListener) close() error {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return l.opError("close", net.ErrClosed)
	}
	l.closed = true
	l.net.unbind(l, l.addr.Port)
	queue := l.queue
	l.queue = nil
	l.wake()
	l.mu.Unlock()
	for _, s := range queue {
		s.Close()
	}
	return nil
}

// setDeadline sets the deadline of Accept.
func (l *memListener) setDeadline(t time.Time) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return l.opError("set", net.ErrClosed)
	}
	l.dl = t
	l.wake()
	return nil
}
