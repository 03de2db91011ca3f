// Package orderviolation is the order violation, a use before
// initialization: a server connects to its database in the background and
// serves requests at once, assuming the connection is there.
package orderviolation

import (
	"github.com/weftdev/weft/sim"
	weft "github.com/weftdev/weft/testing"
)

// DB is a database connection.
type DB struct{ name string }

// Query runs a query.
func (db *DB) Query(q string) string { return db.name + ": " + q }

// Server answers requests from its database.
type Server struct {
	db    sim.Pointer[DB]
	ready *sim.Chan[struct{}]
}

// StartRacy starts connecting in the background and returns at once: the
// bug, since Handle may run before the connection exists.
func StartRacy() *Server {
	s := &Server{}
	sim.Go(func() { s.db.Store(&DB{name: "main"}) })
	return s
}

// Start connects in the background and lets Handle wait until it is done:
// the fix.
func Start() *Server {
	s := &Server{ready: sim.NewChan[struct{}](0)}
	sim.Go(func() {
		s.db.Store(&DB{name: "main"})
		s.ready.Close()
	})
	return s
}

// Handle answers a request.
func (s *Server) Handle(q string) string {
	if s.ready != nil {
		s.ready.Recv()
	}
	return s.db.Load().Query(q)
}

// Buggy is the test body that finds the bug.
func Buggy(t *weft.T) { serve(t, StartRacy()) }

// Fixed is the same test of the fixed code.
func Fixed(t *weft.T) { serve(t, Start()) }

func serve(t *weft.T, s *Server) {
	if got := s.Handle("select 1"); got != "main: select 1" {
		t.Errorf("Handle = %q", got)
	}
}
