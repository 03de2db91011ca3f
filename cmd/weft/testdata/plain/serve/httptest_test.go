package serve

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestHTTPTest serves from httptest's own goroutine, which net/http/httptest
// starts: its handler runs as the test's body, blocked in the request.
func TestHTTPTest(t *testing.T) {
	c := new(Counter)
	s := httptest.NewServer(c)
	defer s.Close()
	resp, err := http.Get(s.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if n := c.Served(); n != 1 {
		t.Errorf("served %d requests, want 1", n)
	}
}
