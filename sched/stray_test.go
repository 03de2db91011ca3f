package sched_test

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime/debug"
	"testing"
	"time"

	"github.com/weftdev/weft/explore"
	"github.com/weftdev/weft/internal/race"
	"github.com/weftdev/weft/sched"
	"github.com/weftdev/weft/sim"
)

// TestStdGoroutineLeaves: the goroutines net/http starts from a controlled
// one (an httptest server's, started by the root) carry its identity, but
// are none of the execution's: at their first weft operation they leave
// it, and run in plain mode (Current is nil on them), whoever holds the
// baton. The root makes a request itself, holding the baton while it
// waits in the network, and then four goroutines of the execution make
// theirs together. Before, the handler was taken for the root while the
// root held the baton, and its operations failed the execution as an
// escape while another goroutine did. The handler locks a mutex that the
// root locks too: its Lock and Unlock visit the execution (sim.Mutex;
// not under the race detector, which has no visits).
func TestStdGoroutineLeaves(t *testing.T) {
	lock := func(mu *sim.Mutex, f func()) {
		if !race.Enabled {
			mu.Lock()
			defer mu.Unlock()
			f()
		}
	}
	want := 5
	if race.Enabled {
		want = 0
	}
	for i := range 4 {
		seen := make(chan *sched.G, 8)
		var served sim.Int64
		var mu sim.Mutex
		count := 0
		r := sched.Run(func() {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				seen <- sched.Current()
				served.Add(1)
				sim.Sleep(time.Millisecond)
				lock(&mu, func() { count++ })
				io.WriteString(w, "ok")
			}))
			defer srv.Close()
			get := func() {
				resp, err := http.Get(srv.URL)
				if err != nil {
					panic(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				lock(&mu, func() { _ = count })
			}
			get()
			var wg sim.WaitGroup
			for range 4 {
				wg.Go(get)
			}
			wg.Wait()
		}, explore.RandomWalk(uint64(i)), sched.Options{BlockTimeout: 10 * time.Second})
		if r.Failure != nil {
			t.Fatalf("execution %d: %s", i, r.Failure.Summary())
		}
		close(seen)
		n := 0
		for g := range seen {
			n++
			if g != nil {
				t.Errorf("execution %d: a handler runs as goroutine %s", i, g.ID())
			}
		}
		if n != 5 || served.Load() != 5 || count != want {
			t.Errorf("execution %d: %d handlers ran, %d served, %d counted, want 5 (%d counted)", i, n, served.Load(), count, want)
		}
	}
}

// TestWorkerMarkRestored: a controlled goroutine whose code clears the
// mark that tells it from the goroutines started from it
// (debug.SetPanicOnFault) is still itself at its next operation, and
// marked again.
func TestWorkerMarkRestored(t *testing.T) {
	var same, marked bool
	r := sched.Run(func() {
		g := sched.Current()
		debug.SetPanicOnFault(false)
		same = sched.Current() == g
		marked = debug.SetPanicOnFault(true)
	}, explore.PCT(1, 3, 100), sched.Options{})
	if r.Failure != nil {
		t.Fatal(r.Failure.Summary())
	}
	if !same || !marked {
		t.Errorf("after clearing the mark: same goroutine %v, marked again %v", same, marked)
	}
}

// TestServerCloseAway: httptest's Server.Close waits (on a sync.WaitGroup)
// for a handler, on a goroutine that left the execution, which waits in
// turn for a goroutine of the execution to close a channel (a visit): the
// goroutine in Close goes away, as one blocked in the network does, and
// the others run. Before, it held the execution's turn, nothing else ran,
// and the execution failed as blocked outside weft's control
// (cristalhq/hedgedhttp's TestOriginalResponseWins: its cleanup closes
// the server while a handler still waits to receive its sleep).
func TestServerCloseAway(t *testing.T) {
	if race.Enabled {
		t.Skip("no visits under the race detector")
	}
	r := sched.Run(func() {
		started, release := sim.NewChan[int](1), sim.NewChan[int](0)
		started.Len()
		release.Len()
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			started.Send(1)
			release.RecvOK()
		}))
		sim.Go(func() {
			if resp, err := http.Get(srv.URL); err == nil {
				resp.Body.Close()
			}
		})
		started.Recv()
		sim.Go(func() {
			sim.Sleep(time.Millisecond)
			release.Close()
		})
		srv.Close()
	}, explore.RandomWalk(1), sched.Options{BlockTimeout: 2 * time.Second})
	if r.Failure != nil {
		t.Fatal(r.Failure.Summary())
	}
}

// TestVisitsKeepAwayWaited: the root serves HTTP (groupcache's child
// processes in its TestHTTPPool do), away in Accept, while a client
// outside every execution makes requests for longer than the block
// timeout; each handler, on a goroutine net/http started, which left the
// execution, locks a mutex of the execution (visits). A visit served is
// the world outside moving: the root, away, is waited for anew. Before,
// the execution gave up on it after the block timeout in all, and failed
// as blocked.
func TestVisitsKeepAwayWaited(t *testing.T) {
	if race.Enabled {
		t.Skip("no visits under the race detector")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	const block = 200 * time.Millisecond
	client := make(chan error, 1)
	go func() {
		defer l.Close()
		deadline := time.Now().Add(3 * block)
		for time.Now().Before(deadline) {
			resp, err := http.Get("http://" + l.Addr().String())
			if err != nil {
				client <- err
				return
			}
			resp.Body.Close()
			time.Sleep(block / 10)
		}
		client <- nil
	}()
	r := sched.Run(func() {
		var mu sim.Mutex
		mu.Lock()
		mu.Unlock()
		http.Serve(l, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			mu.Unlock()
		}))
	}, explore.RandomWalk(1), sched.Options{BlockTimeout: block})
	if r.Failure != nil {
		t.Fatal(r.Failure.Summary())
	}
	if err := <-client; err != nil {
		t.Fatal(err)
	}
}

// TestLeftGoroutineSleepsOnTheClock: a server's handler, which left the
// execution at its first weft operation (a Sleep, while the root may
// still hold the baton in http.Get: it was taken for the root's before
// G.Claim stopped testing Runs twice), sleeps on the execution's clock
// (hedgedhttp's handlers sleep while its client's hedging delays are the
// execution's timers): the
// root, which waits for the answer, sees the clock past the handler's
// sleep, as it would see the wall clock under go test. Before, the sleep
// was real time, and the virtual clock had not moved. Not under the race
// detector, which has no visits.
func TestLeftGoroutineSleepsOnTheClock(t *testing.T) {
	if race.Enabled {
		t.Skip("no visits under the race detector")
	}
	const nap = 100 * time.Millisecond
	for i := range 3 {
		var took time.Duration
		seen := make(chan *sched.G, 1)
		r := sched.Run(func() {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				sim.Sleep(nap) // its first weft operation
				seen <- sched.Current()
				io.WriteString(w, "ok")
			}))
			defer srv.Close()
			start := sim.Now()
			resp, err := http.Get(srv.URL)
			if err != nil {
				panic(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			took = sim.Since(start)
		}, explore.RandomWalk(uint64(i)), sched.Options{BlockTimeout: 10 * time.Second})
		if r.Failure != nil {
			t.Fatalf("execution %d: %s", i, r.Failure.Summary())
		}
		if g := <-seen; g != nil {
			t.Errorf("execution %d: the handler runs as goroutine %s", i, g.ID())
		}
		if took < nap {
			t.Errorf("execution %d: the answer came %v after the request on the execution's clock, want at least the handler's %v", i, took, nap)
		}
	}
}

// TestUninstrumentedGoroutineLeaves: under Options.Rewritten (weft test's),
// a goroutine that code other than weft's starts with a plain go statement
// from a controlled one (here the test's own code, standing for a package
// the safety net skipped: etcd raft's rafttest runs its nodes so) leaves
// the execution at its first weft operation, as one the standard library
// started does: Current is nil on it, whoever holds the baton, and its
// send on a channel of the execution visits it (not under the race
// detector, which has no visits). The first goroutine's first operation
// is an atomic's (sim's lookup: Runs, then Claim), while the root holds
// the baton, waiting for it on a Go channel; the second sends at once,
// the root waiting in a receive, stalled, perhaps before it ran. Before,
// the first was taken for the root (Claim asked Runs again, which the
// first Runs had marked it for), and the two could run weft's operations
// at once (rafttest crashed the process in sim.addrIndex); the stall
// failed as a deadlock without waiting for the second's visit.
func TestUninstrumentedGoroutineLeaves(t *testing.T) {
	for i := range 4 {
		var seen *sched.G
		var n sim.Int64
		got := 0
		r := sched.Run(func() {
			ch := sim.NewChan[int](0)
			ch.Len() // the execution's
			asked := make(chan struct{})
			go func() {
				n.Add(1)
				seen = sched.Current()
				close(asked)
			}()
			<-asked
			if race.Enabled {
				return
			}
			go ch.Send(1)
			got = ch.Recv()
		}, explore.RandomWalk(uint64(i)), sched.Options{Rewritten: true, BlockTimeout: 10 * time.Second})
		if r.Failure != nil {
			t.Fatalf("execution %d: %s", i, r.Failure.Summary())
		}
		if seen != nil {
			t.Errorf("execution %d: the goroutine runs as goroutine %s", i, seen.ID())
		}
		if want := 1; got != want && !race.Enabled {
			t.Errorf("execution %d: received %d, want %d", i, got, want)
		}
	}
}

// TestUninstrumentedGoroutineOutlives: under Options.Rewritten, a goroutine
// that code weft does not rewrite started from a controlled one, and that
// outlives the execution without an operation of weft's (a package the
// safety net skipped leaves its loop running), kept running, as go test
// sees it, and is no failure but with StrictLeaks; without Rewritten, a
// plain go statement of the test's own, it is an escape. Before, it was an
// escape under weft test too, advising sim.Go in code weft does not
// rewrite.
func TestUninstrumentedGoroutineOutlives(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	run := func(opts sched.Options) *sched.Result {
		return sched.Run(func() {
			go func() { <-release }()
		}, explore.RandomWalk(1), opts)
	}
	if r := run(sched.Options{Rewritten: true}); r.Failure != nil || len(r.KeptRunning) != 1 {
		t.Errorf("rewritten: failure %s, kept running %v; want none, the goroutine", r.Failure.Summary(), r.KeptRunning)
	}
	if r := run(sched.Options{Rewritten: true, StrictLeaks: true}); r.Failure == nil || r.Failure.Kind != sched.Escape {
		t.Errorf("rewritten, strict: failure %s, want an escape", r.Failure.Summary())
	}
	if r := run(sched.Options{}); r.Failure == nil || r.Failure.Kind != sched.Escape {
		t.Errorf("the test's own go statement: failure %s, want an escape", r.Failure.Summary())
	}
}
