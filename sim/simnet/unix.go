package simnet

import (
	"net"
	"time"
)

// unixKey is the key of a unix socket's listener in the network: its
// path (or abstract name), apart from the ports of tcp.
func unixKey(path string) string { return "unix:" + path }

// dialUnix connects to the in-memory unix listener of n at path, if there
// is one (ok): the client's end is unnamed, as a unix socket's that is
// not bound.
func dialUnix(n *network, path string) (c net.Conn, ok bool, err error) {
	l := n.lookup(unixKey(path))
	if l == nil {
		return nil, false, nil
	}
	m, err := l.connect("unix", &net.UnixAddr{Net: "unix"}, &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, true, err
	}
	return &UnixConn{mem: m}, true, nil
}

// A UnixListener is what Listen returns in place of a *net.UnixListener
// under control: a listener of the execution's in-memory network on the
// real listener's path, which code weft does not rewrite dials.
type UnixListener struct {
	mem *memListener
}

// Accept waits for the next connection: an in-memory one, a *UnixConn,
// or a real client's, a *net.UnixConn.
func (l *UnixListener) Accept() (net.Conn, error) {
	s, real, err := l.mem.accept()
	if err != nil {
		return nil, err
	}
	if real != nil {
		return real, nil
	}
	return &UnixConn{mem: s}, nil
}

// Addr returns the listener's address, a *net.UnixAddr.
func (l *UnixListener) Addr() net.Addr { return l.mem.addr }

// Close closes the listener (and removes its socket's file, as net's
// does); Accept then fails with net.ErrClosed.
func (l *UnixListener) Close() error { return l.mem.close() }

// SetDeadline sets the deadline of Accept, on weft's clock.
func (l *UnixListener) SetDeadline(t time.Time) error { return l.mem.setDeadline(t) }

// A UnixConn is a unix connection of the execution's in-memory network.
type UnixConn struct {
	mem *memConn
}

// Read reads from the connection.
func (c *UnixConn) Read(b []byte) (int, error) { return c.mem.Read(b) }

// Write writes to the connection.
func (c *UnixConn) Write(b []byte) (int, error) { return c.mem.Write(b) }

// Close closes the connection.
func (c *UnixConn) Close() error { return c.mem.Close() }

// CloseWrite shuts down the writing side: the peer reads io.EOF.
func (c *UnixConn) CloseWrite() error { return c.mem.shut(true) }

// CloseRead shuts down the reading side: reads return io.EOF.
func (c *UnixConn) CloseRead() error { return c.mem.shut(false) }

// LocalAddr returns the local address, a *net.UnixAddr.
func (c *UnixConn) LocalAddr() net.Addr { return c.mem.local }

// RemoteAddr returns the remote address, a *net.UnixAddr.
func (c *UnixConn) RemoteAddr() net.Addr { return c.mem.remote }

// SetDeadline sets the read and write deadlines, on weft's clock.
func (c *UnixConn) SetDeadline(t time.Time) error { return c.mem.setDeadline(t, true, true) }

// SetReadDeadline sets the read deadline.
func (c *UnixConn) SetReadDeadline(t time.Time) error { return c.mem.setDeadline(t, true, false) }

// SetWriteDeadline sets the write deadline.
func (c *UnixConn) SetWriteDeadline(t time.Time) error { return c.mem.setDeadline(t, false, true) }
