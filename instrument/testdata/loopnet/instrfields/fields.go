// Package instrfields keeps a listener it asserts *net.TCPListener in a
// field used by its methods alone, as hashicorp/raft's TCPStreamLayer
// does: the field becomes a *weftnet.TCPListener, the assertion
// weftnet's, and net.Listen weftnet's too.
package instrfields

import (
	"net"
	"time"
)

// A Layer accepts and dials connections.
type Layer struct {
	listener *net.TCPListener
	conn     *net.TCPConn
	name     string
}

// New listens on addr.
func New(addr string) (*Layer, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	return &Layer{listener: l.(*net.TCPListener), name: "layer"}, nil
}

// Accept accepts the next connection.
func (l *Layer) Accept() (net.Conn, error) { return l.listener.Accept() }

// Addr is the listener's address.
func (l *Layer) Addr() net.Addr { return l.listener.Addr() }

// Close closes the listener, and the connection dialed last.
func (l *Layer) Close() error {
	if l.conn != nil {
		l.conn.Close()
	}
	return l.listener.Close()
}

// Dial dials addr, with keep-alive on.
func (l *Layer) Dial(addr string) (net.Conn, error) {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return nil, err
	}
	l.conn = c.(*net.TCPConn)
	l.conn.SetKeepAlive(true)
	return c, nil
}
