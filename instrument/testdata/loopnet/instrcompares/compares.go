// Package instrcompares compares a *net.TCPConn it asserts with another
// connection, which an assertion of weft's (a *simnet.TCPConn) would
// change: its net.Dial stays net's.
package instrcompares

import "net"

// Dial dials addr, and reports whether it got a TCP connection.
func Dial(addr string) (net.Conn, bool, error) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, false, err
	}
	tc, ok := c.(*net.TCPConn)
	return c, ok && net.Conn(tc) == c, nil
}
