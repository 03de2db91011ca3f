package serve

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestConcurrentHandlers serves with httptest, whose handler sleeps,
// counts with atomics and under a mutex of the test on goroutines that
// net/http starts, while the test's body makes a request, then four
// goroutines of the test make theirs together, as cristalhq/hedgedhttp's
// tests do. net/http's goroutines are none of the execution's: they carry
// the identity of the goroutine that started the server, and their weft
// operations, run while another goroutine held the execution's turn,
// ended it as an escape (the client read EOF).
func TestConcurrentHandlers(t *testing.T) {
	var started, served int64
	c := new(Counter)
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		atomic.AddInt64(&started, 1)
		time.Sleep(5 * time.Millisecond)
		c.ServeHTTP(w, r)
		atomic.AddInt64(&served, 1)
	}))
	defer s.Close()
	get := func() {
		resp, err := http.Get(s.URL)
		if err != nil {
			t.Error(err)
			return
		}
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusNoContent {
			t.Errorf("status %d, %v", resp.StatusCode, err)
		}
	}
	get()
	if n := c.Served(); n != 1 {
		t.Errorf("served %d requests, want 1", n)
	}
	const clients = 4
	var wg sync.WaitGroup
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			get()
		}()
	}
	wg.Wait()
	n, m := atomic.LoadInt64(&started), atomic.LoadInt64(&served)
	if n != clients+1 || m != clients+1 || c.Served() != clients+1 {
		t.Errorf("started %d, served %d, counted %d requests, want %d", n, m, c.Served(), clients+1)
	}
}
