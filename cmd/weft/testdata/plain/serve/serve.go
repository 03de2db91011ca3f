// Package serve serves HTTP from a goroutine of its own, as watermill's
// metrics.ServeHTTP does: the goroutine blocks in the listener's Accept,
// network I/O that weft does not control.
package serve

import (
	"net"
	"net/http"
	"sync"
)

// Counter counts the requests its handler served.
type Counter struct {
	mu sync.Mutex
	n  int
}

// ServeHTTP counts a request.
func (c *Counter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.mu.Lock()
	c.n++
	c.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

// Served returns how many requests c served.
func (c *Counter) Served() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

// Serve serves h on l from a goroutine of its own; stop closes the
// server, its listener and connections, and returns once that goroutine
// has.
func Serve(l net.Listener, h http.Handler) (stop func()) {
	srv := &http.Server{Handler: h}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(l)
	}()
	return func() {
		_ = srv.Close()
		<-done
	}
}
