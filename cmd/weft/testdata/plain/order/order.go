// Package order uses a value before the goroutine that sets it has run.
package order

import "sync"

// Server connects in the background.
type Server struct {
	db    *string
	ready sync.WaitGroup
}

// Start connects in the background; wait selects the fix.
func Start(wait bool) *Server {
	s := &Server{}
	s.ready.Add(1)
	go func() {
		name := "main"
		s.db = &name
		s.ready.Done()
	}()
	if wait {
		s.ready.Wait()
	}
	return s
}

// DB returns the database's name.
func (s *Server) DB() string { return *s.db }
