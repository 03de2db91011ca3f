// Package instrswitches switches on *net.TCPConn, which weft's in-memory
// connections would fail: its net.Dial stays net's.
package instrswitches

import "net"

// Dial dials addr with Nagle's algorithm off.
func Dial(addr string) (net.Conn, error) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	switch c := c.(type) {
	case *net.TCPConn:
		c.SetNoDelay(true)
	}
	return c, nil
}
