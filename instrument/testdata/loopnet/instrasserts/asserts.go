// Package instrasserts asserts *net.TCPConn and *net.TCPListener to use their
// methods alone, which weft's in-memory connections and listeners have:
// the assertions become weftnet's, which they pass, and net.Dial is
// weftnet's too.
package instrasserts

import (
	"net"
	"time"
)

// Dial dials addr with Nagle's algorithm off.
func Dial(addr string) (net.Conn, error) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetNoDelay(true)
	}
	return c, nil
}

// HalfClose shuts c's writing side.
func HalfClose(c net.Conn) error {
	return c.(*net.TCPConn).CloseWrite()
}

// Expire sets l's deadline of Accept to t.
func Expire(l net.Listener, t time.Time) error {
	tl := l.(*net.TCPListener)
	return tl.SetDeadline(t)
}

// IsTCP reports whether c is a TCP connection.
func IsTCP(c net.Conn) bool {
	_, ok := c.(*net.TCPConn)
	return ok
}
