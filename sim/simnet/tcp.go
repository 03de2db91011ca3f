package simnet

import (
	"errors"
	"net"
	"os"
	"time"
)

// errInMemory is the error of what an in-memory connection or listener
// cannot do: hand over its file descriptor.
var errInMemory = errors.New("weft: an in-memory connection of weft's loopback network has no file descriptor")

// A TCPListener is what ListenTCP returns in place of a *net.TCPListener:
// one of the execution's in-memory network, or net's own.
type TCPListener struct {
	tcp *net.TCPListener
	mem *memListener
}

// Accept waits for the next connection, as net.TCPListener's Accept: an
// in-memory one, a *TCPConn, or a real client's, a *net.TCPConn.
func (l *TCPListener) Accept() (net.Conn, error) {
	if l.mem == nil {
		return l.tcp.Accept()
	}
	s, real, err := l.mem.accept()
	if err != nil {
		return nil, err
	}
	if real != nil {
		return real, nil // a real client's
	}
	return &TCPConn{mem: s}, nil
}

// AcceptTCP is Accept, returning a *TCPConn.
func (l *TCPListener) AcceptTCP() (*TCPConn, error) {
	if l.mem == nil {
		c, err := l.tcp.AcceptTCP()
		if err != nil {
			return nil, err
		}
		return &TCPConn{tcp: c}, nil
	}
	s, real, err := l.mem.accept()
	switch {
	case err != nil:
		return nil, err
	case real != nil:
		return &TCPConn{tcp: real.(*net.TCPConn)}, nil
	}
	return &TCPConn{mem: s}, nil
}

// Addr returns the listener's address, a *net.TCPAddr.
func (l *TCPListener) Addr() net.Addr {
	if l.mem == nil {
		return l.tcp.Addr()
	}
	return l.mem.addr
}

// Close closes the listener; Accept then fails with net.ErrClosed.
func (l *TCPListener) Close() error {
	if l.mem == nil {
		return l.tcp.Close()
	}
	return l.mem.close()
}

// SetDeadline sets the deadline of Accept, on weft's clock in memory.
func (l *TCPListener) SetDeadline(t time.Time) error {
	if l.mem == nil {
		return l.tcp.SetDeadline(t)
	}
	return l.mem.setDeadline(t)
}

// Std returns net's listener, or nil for an in-memory one.
func (l *TCPListener) Std() *net.TCPListener { return l.tcp }

// A TCPConn is what DialTCP and an in-memory listener return in place of
// a *net.TCPConn: a connection of the execution's in-memory network, or
// net's own.
type TCPConn struct {
	tcp *net.TCPConn
	mem *memConn
}

// Read reads from the connection.
func (c *TCPConn) Read(b []byte) (int, error) {
	if c.mem == nil {
		return c.tcp.Read(b)
	}
	return c.mem.Read(b)
}

// Write writes to the connection.
func (c *TCPConn) Write(b []byte) (int, error) {
	if c.mem == nil {
		return c.tcp.Write(b)
	}
	return c.mem.Write(b)
}

// Close closes the connection.
func (c *TCPConn) Close() error {
	if c.mem == nil {
		return c.tcp.Close()
	}
	return c.mem.Close()
}

// CloseWrite shuts down the writing side: the peer reads io.EOF.
func (c *TCPConn) CloseWrite() error {
	if c.mem == nil {
		return c.tcp.CloseWrite()
	}
	return c.mem.shut(true)
}

// CloseRead shuts down the reading side: reads return io.EOF.
func (c *TCPConn) CloseRead() error {
	if c.mem == nil {
		return c.tcp.CloseRead()
	}
	return c.mem.shut(false)
}

// LocalAddr returns the local address, a *net.TCPAddr.
func (c *TCPConn) LocalAddr() net.Addr {
	if c.mem == nil {
		return c.tcp.LocalAddr()
	}
	return c.mem.local
}

// RemoteAddr returns the remote address, a *net.TCPAddr.
func (c *TCPConn) RemoteAddr() net.Addr {
	if c.mem == nil {
		return c.tcp.RemoteAddr()
	}
	return c.mem.remote
}

// SetDeadline sets the read and write deadlines, on weft's clock in
// memory.
func (c *TCPConn) SetDeadline(t time.Time) error {
	if c.mem == nil {
		return c.tcp.SetDeadline(t)
	}
	return c.mem.setDeadline(t, true, true)
}

// SetReadDeadline sets the read deadline.
func (c *TCPConn) SetReadDeadline(t time.Time) error {
	if c.mem == nil {
		return c.tcp.SetReadDeadline(t)
	}
	return c.mem.setDeadline(t, true, false)
}

// SetWriteDeadline sets the write deadline.
func (c *TCPConn) SetWriteDeadline(t time.Time) error {
	if c.mem == nil {
		return c.tcp.SetWriteDeadline(t)
	}
	return c.mem.setDeadline(t, false, true)
}

// SetKeepAlive sets keep-alive (nothing to do in memory).
func (c *TCPConn) SetKeepAlive(on bool) error {
	if c.mem == nil {
		return c.tcp.SetKeepAlive(on)
	}
	return nil
}

// SetKeepAlivePeriod sets the keep-alive period (nothing to do in memory).
func (c *TCPConn) SetKeepAlivePeriod(d time.Duration) error {
	if c.mem == nil {
		return c.tcp.SetKeepAlivePeriod(d)
	}
	return nil
}

// SetNoDelay sets Nagle's algorithm off or on (nothing to do in memory).
func (c *TCPConn) SetNoDelay(noDelay bool) error {
	if c.mem == nil {
		return c.tcp.SetNoDelay(noDelay)
	}
	return nil
}

// SetLinger sets the linger of Close (nothing to do in memory).
func (c *TCPConn) SetLinger(sec int) error {
	if c.mem == nil {
		return c.tcp.SetLinger(sec)
	}
	return nil
}

// SetReadBuffer sets the receive buffer's size (nothing to do in memory).
func (c *TCPConn) SetReadBuffer(bytes int) error {
	if c.mem == nil {
		return c.tcp.SetReadBuffer(bytes)
	}
	return nil
}

// SetWriteBuffer sets the send buffer's size (nothing to do in memory).
func (c *TCPConn) SetWriteBuffer(bytes int) error {
	if c.mem == nil {
		return c.tcp.SetWriteBuffer(bytes)
	}
	return nil
}

// Std returns net's connection, or nil for an in-memory one.
func (c *TCPConn) Std() *net.TCPConn { return c.tcp }

// File fails for an in-memory connection; else it is net's.
func (c *TCPConn) File() (*os.File, error) {
	if c.mem == nil {
		return c.tcp.File()
	}
	return nil, c.mem.opError("file", errInMemory)
}

// AssertTCPConn is the type assertion x.(*net.TCPConn) with its ok, for
// code weft rewrites (whose result it uses by the methods of *TCPConn
// alone): a *net.TCPConn, wrapped, or an in-memory connection, each a
// *TCPConn; nil and false for anything else.
func AssertTCPConn(x any) (*TCPConn, bool) {
	switch c := x.(type) {
	case *TCPConn:
		return c, true
	case *net.TCPConn:
		return &TCPConn{tcp: c}, true
	}
	return nil, false
}

// MustTCPConn is the type assertion x.(*net.TCPConn), as AssertTCPConn:
// it panics as the assertion does on anything else.
func MustTCPConn(x any) *TCPConn {
	if c, ok := AssertTCPConn(x); ok {
		return c
	}
	return &TCPConn{tcp: x.(*net.TCPConn)} // panics: a *runtime.TypeAssertionError
}

// AssertTCPListener is the type assertion x.(*net.TCPListener) with its
// ok, as AssertTCPConn: a *net.TCPListener, wrapped, or an in-memory
// listener, each a *TCPListener; nil and false for anything else.
func AssertTCPListener(x any) (*TCPListener, bool) {
	switch l := x.(type) {
	case *TCPListener:
		return l, true
	case *net.TCPListener:
		return &TCPListener{tcp: l}, true
	}
	return nil, false
}

// MustTCPListener is the type assertion x.(*net.TCPListener), as
// AssertTCPListener: it panics as the assertion does on anything else.
func MustTCPListener(x any) *TCPListener {
	if l, ok := AssertTCPListener(x); ok {
		return l
	}
	return &TCPListener{tcp: x.(*net.TCPListener)} // panics
}
