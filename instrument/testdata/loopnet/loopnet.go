// Package loopnet joins goroutines of one test by TCP on the loopback, as
// hashicorp/yamux's tests join two sessions: under control, a read blocked
// in the network while the goroutine that would write waited for its
// turn. net.Listen, net.Dial, net.DialTimeout, net.Dialer's Dial and
// DialContext, and net.ListenTCP whose listener is used by its methods
// alone, become weftnet's.
package loopnet

import (
	"context"
	"io"
	"net"
	"time"
)

// Serve accepts the connections of l and echoes each.
func Serve(l net.Listener) {
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		go func() {
			io.Copy(c, c)
			c.Close()
		}()
	}
}

// Pair returns the two ends of a TCP connection on the loopback.
func Pair() (net.Conn, net.Conn, error) {
	l, err := net.ListenTCP("tcp", nil)
	if err != nil {
		return nil, nil, err
	}
	defer l.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := l.Accept()
		accepted <- c
	}()
	c, err := net.DialTimeout(l.Addr().Network(), l.Addr().String(), time.Second)
	if err != nil {
		return nil, nil, err
	}
	return c, <-accepted, nil
}

// KeepAlive dials raddr with keep-alive on. Its *net.TCPConn is handed
// on: net.DialTCP stays net's.
func KeepAlive(raddr *net.TCPAddr) (*net.TCPConn, error) {
	c, err := net.DialTCP("tcp", nil, raddr)
	if err != nil {
		return nil, err
	}
	return c, c.SetKeepAlive(true)
}

// DialContext dials addr with a dialer of its own.
func DialContext(ctx context.Context, addr string) (net.Conn, error) {
	var d net.Dialer
	return d.DialContext(ctx, "tcp", addr)
}
