package serve

import (
	"bufio"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// TestHandlerSelects streams changes as cilium/statedb's changes handler
// does: the handler, on a goroutine net/http started, which left the
// execution, waits in a select for the test's watch channel, a ticker of
// its own and its request's context, and the test closes the channel
// after it read the first line. The select visits the execution (it
// failed it as Outside), and so does the handler's Done of the test's
// WaitGroup.
func TestHandlerSelects(t *testing.T) {
	watch := make(chan struct{})
	_ = len(watch) // the execution's channel, as statedb's watch channels are its transactions'
	var wg sync.WaitGroup
	wg.Add(1)
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer wg.Done()
		ticker := time.NewTicker(time.Hour)
		defer ticker.Stop()
		w.Write([]byte("first\n"))
		http.NewResponseController(w).Flush()
		select {
		case <-r.Context().Done():
			return
		case <-ticker.C:
			w.Write([]byte("tick\n"))
		case <-watch:
			w.Write([]byte("changed\n"))
		}
	}))
	defer s.Close()
	resp, err := http.Get(s.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	lines := bufio.NewScanner(resp.Body)
	if !lines.Scan() || lines.Text() != "first" {
		t.Fatalf("first line %q, %v", lines.Text(), lines.Err())
	}
	close(watch)
	if !lines.Scan() || lines.Text() != "changed" {
		t.Fatalf("second line %q, %v", lines.Text(), lines.Err())
	}
	wg.Wait()
}

// TestHandlerSleeps: a handler that sleeps 100 ms answers 100 ms after the
// request on the test's clock too (cristalhq/hedgedhttp's
// TestClientBadNextDelay): the handler, which left the execution, sleeps on
// its clock. Its sleep was real time, and the test saw no time pass.
func TestHandlerSleeps(t *testing.T) {
	const nap = 100 * time.Millisecond
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(nap)
	}))
	defer s.Close()
	start := time.Now()
	resp, err := http.Get(s.URL)
	took := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if took < nap {
		t.Errorf("the answer came after %v, want at least %v", took, nap)
	}
}
