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

// TestConcurrentHandlers serves with httptest, whose handlers sleep and
// count with atomics on goroutines that net/http starts, while goroutines
// of the test make requests together, as cristalhq/hedgedhttp's tests do.
// net/http's goroutines are none of the execution's: they carry the
// identity of the goroutine that started the server, and their weft
// operations, run while another goroutine held the execution's turn, ended
// it as an escape (the client read EOF).
func TestConcurrentHandlers(t *testing.T) {
	var started, served int64
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		atomic.AddInt64(&started, 1)
		time.Sleep(5 * time.Millisecond)
		atomic.AddInt64(&served, 1)
		io.WriteString(w, "ok")
	}))
	defer s.Close()
	const clients = 4
	var wg sync.WaitGroup
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := http.Get(s.URL)
			if err != nil {
				t.Error(err)
				return
			}
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil || string(body) != "ok" {
				t.Errorf("body %q, %v", body, err)
			}
		}()
	}
	wg.Wait()
	if n, m := atomic.LoadInt64(&started), atomic.LoadInt64(&served); n != clients || m != clients {
		t.Errorf("started %d, served %d requests, want %d", n, m, clients)
	}
}
