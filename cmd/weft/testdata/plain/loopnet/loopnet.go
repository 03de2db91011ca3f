// Package loopnet serves an echo over TCP on 127.0.0.1 to a client of the
// same test, as hashicorp/yamux's tests join their sessions: over real
// sockets, under weft test, the reader blocked in the network while the
// goroutine that would write waited for its turn. Its bug: the server
// counts a message after its reply, so a client that reads the reply and
// then the count may see it short.
package loopnet

import (
	"net"
	"sync/atomic"
)

// A Server echoes what its clients write, and counts the messages.
type Server struct {
	l      net.Listener
	served atomic.Int64
	fixed  bool
}

// Listen starts a server on a port of 127.0.0.1.
func Listen(fixed bool) (*Server, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &Server{l: l, fixed: fixed}
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
		go s.handle(c)
	}
}

func (s *Server) handle(c net.Conn) {
	defer c.Close()
	buf := make([]byte, 64)
	for {
		n, err := c.Read(buf)
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
