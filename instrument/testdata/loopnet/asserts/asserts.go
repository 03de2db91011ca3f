// Package asserts asserts *net.TCPConn, which weft's in-memory connections
// are not: its net.Dial stays net's.
package asserts

import "net"

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
