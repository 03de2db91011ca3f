package serve

import (
	"net"
	"net/http"
	"testing"
)

// TestServe starts a server on a goroutine of the test, which blocks in
// Accept, and makes a request from the test's body, which waits in
// network I/O (and for net/http's own goroutines) for the answer.
func TestServe(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c := new(Counter)
	stop := Serve(l, c)
	resp, err := http.Get("http://" + l.Addr().String() + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Errorf("status %d, want %d", resp.StatusCode, http.StatusNoContent)
	}
	stop()
	if n := c.Served(); n != 1 {
		t.Errorf("served %d requests, want 1", n)
	}
}
