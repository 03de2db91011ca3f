// Package loopnet serves an echo over TCP (and TLS) on 127.0.0.1 to a
// client of the same test, as hashicorp/yamux's tests join their sessions:
// over real sockets, under weft test, the reader blocked in the network
// while the goroutine that would write waited for its turn, and a
// goroutine waiting for crypto/tls's handshake mutex held the turn from
// the one doing the handshake. Its bug: the server counts a message after
// its reply, so a client that reads the reply and then the count may see
// it short.
package loopnet

import (
	"crypto/tls"
	"io"
	"net"
	"sync/atomic"
)

// A Server echoes what its clients write, and counts the messages.
type Server struct {
	l      net.Listener
	tls    *tls.Config
	served atomic.Int64
	fixed  bool
}

// Listen starts a server on a port of 127.0.0.1, serving TLS if config
// is not nil.
func Listen(fixed bool, config *tls.Config) (*Server, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &Server{l: l, tls: config, fixed: fixed}
	go s.serve()
	return s, nil
}

// Addr is the server's address.
func (s *Server) Addr() string { return s.l.Addr().String() }

// Served is the number of messages served.
func (s *Server) Served() int64 { return s.served.Load() }

// Close stops the server.
func (s *Server) Close() error { return s.l.Close() }

func (s *Server) serve() {
	for {
		c, err := s.l.Accept()
		if err != nil {
			return
		}
		if s.tls != nil {
			c = tls.Server(c, s.tls)
		}
		go s.handle(c)
	}
}

func (s *Server) handle(c net.Conn) {
	defer c.Close()
	buf := make([]byte, 4) // messages of 4 bytes
	for {
		n, err := io.ReadFull(c, buf)
		if err != nil {
			return
		}
		if s.fixed {
			s.served.Add(1)
		}
		if _, err := c.Write(buf[:n]); err != nil {
			return
		}
		if !s.fixed {
			s.served.Add(1) // the bug: counted after the reply
		}
	}
}
