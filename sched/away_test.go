package sched_test

import (
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/weftdev/weft/explore"
	"github.com/weftdev/weft/sched"
	"github.com/weftdev/weft/sim"
)

// exchange is a server goroutine and a client, the root, on a TCP
// connection on 127.0.0.1: the server accepts, reads a byte, hands it to
// the root on a buffered weft channel and answers with the byte plus one. Each of
// them blocks in the network while the other must run (the server in
// Accept before the root dials, the root in Read while the server hands
// its byte over). What goes wrong goes to c.
func exchange(c *checker) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		c.fail("listen: " + err.Error())
		return
	}
	defer l.Close()
	got := sim.NewChan[byte](1)
	sim.Go(func() {
		conn, err := l.Accept()
		if err != nil {
			got.Close()
			return
		}
		defer conn.Close()
		b := make([]byte, 1)
		if _, err := conn.Read(b); err != nil {
			got.Close()
			return
		}
		got.Send(b[0])
		conn.Write([]byte{b[0] + 1})
	})
	conn, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		c.fail("dial: " + err.Error())
		return
	}
	defer conn.Close()
	conn.Write([]byte{7})
	reply := make([]byte, 1)
	if _, err := conn.Read(reply); err != nil || reply[0] != 8 {
		c.fail("the reply is not 8")
	}
	if v, ok := got.RecvOK(); !ok || v != 7 {
		c.fail("the server did not hand over 7")
	}
}

// A checker collects what went wrong in an execution.
type checker struct{ errs []string }

func (c *checker) fail(s string) { c.errs = append(c.errs, s) }

// TestAwayInNetwork runs exchange under several schedules: a goroutine
// that blocks in the network lets the others run, as under go test, and
// comes back under control when its I/O completes. Before, the first one
// to block kept the baton, and the execution failed as Blocked.
func TestAwayInNetwork(t *testing.T) {
	for seed := range uint64(8) {
		var c checker
		r := sched.Run(func() { exchange(&c) }, explore.RandomWalk(seed), sched.Options{BlockTimeout: 5 * time.Second})
		if r.Failure != nil {
			t.Fatalf("seed %d: %s", seed, r.Failure.Summary())
		}
		if len(c.errs) > 0 {
			t.Fatalf("seed %d: %s", seed, strings.Join(c.errs, "; "))
		}
	}
}

// TestAwayForGood: a goroutine that waits in Accept for a connection that
// never comes, while the root waits for it on a weft channel, is still
// reported as Blocked, in Accept, once the controller has waited
// Options.BlockTimeout for it to come back and the watchdog as long again.
func TestAwayForGood(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	r := sched.Run(func() {
		got := sim.NewChan[int](0)
		sim.Go(func() {
			if conn, err := l.Accept(); err == nil {
				conn.Close()
			}
			got.Send(1)
		})
		got.Recv()
	}, explore.RandomWalk(1), sched.Options{BlockTimeout: 100 * time.Millisecond})
	if r.Failure == nil || r.Failure.Kind != sched.Blocked || r.Failure.Goroutine != "0.1" {
		t.Fatalf("failure %s, want goroutine 0.1 blocked", r.Failure.Summary())
	}
	if !strings.Contains(strings.ToLower(r.Failure.Message), "accept") {
		t.Errorf("the failure does not say where the goroutine waits: %s", r.Failure.Message)
	}
}

// TestBlockedStackBesideUnstartedWorker: the root blocks outside weft
// right after starting a goroutine that has not run yet, whose new worker
// carries the root's profiler labels until it does. The Blocked failure
// names the root's own frames: it named the new worker's, idle in
// sched.(*worker).loop, with no user frame.
func TestBlockedStackBesideUnstartedWorker(t *testing.T) {
	never := make(chan int)
	for seed := range uint64(4) {
		r := sched.Run(func() {
			sim.Go(func() {})
			<-never
		}, explore.RandomWalk(seed), sched.Options{BlockTimeout: 50 * time.Millisecond})
		if r.Failure == nil || r.Failure.Kind != sched.Blocked {
			t.Fatalf("seed %d: failure %s, want blocked", seed, r.Failure.Summary())
		}
		if !strings.Contains(r.Failure.Stack, "TestBlockedStackBesideUnstartedWorker") {
			t.Fatalf("seed %d: the stack does not show the root:\n%s\n%s", seed, r.Failure.Message, r.Failure.Stack)
		}
	}
}

// TestAwayBackWhileWatchdogDecides: the root alone waits in the network
// for a goroutine outside every execution, which answers after a while.
// The watchdog takes the root's baton and, with nothing else to run,
// waits in its place for a goroutine to come back; the root comes back
// meanwhile and must be let in. It found the baton still held for the
// watchdog's take, and waited for that to end, while the watchdog waited
// for it to come back, for Options.BlockTimeout.
func TestAwayBackWhileWatchdogDecides(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() { // outside every execution
		conn, err := l.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		time.Sleep(20 * time.Millisecond) // the root waits in Read meanwhile
		conn.Write([]byte{1})
	}()
	done := make(chan *sched.Result, 1)
	go func() {
		done <- sched.Run(func() {
			conn, err := net.Dial("tcp", l.Addr().String())
			if err != nil {
				return
			}
			defer conn.Close()
			conn.Read(make([]byte, 1))
			var mu sim.Mutex
			mu.Lock()
			mu.Unlock()
		}, explore.RandomWalk(1), sched.Options{BlockTimeout: 10 * time.Minute})
	}()
	select {
	case r := <-done:
		if r.Failure != nil {
			t.Fatal(r.Failure.Summary())
		}
	case <-time.After(time.Minute): // a guard against a hang, not a measure
		t.Fatal("the root, back from the network while the watchdog decided in its place, was not let in")
	}
}

// TestStdGoroutinesOutliveExecution: a response whose body the test never
// closes leaves net/http's loops of its connection running after the
// execution, started from the root, as they outlive the test under go
// test: no user's go statement, so no escape, but goroutines that kept
// running; an escape with StrictLeaks, as goleak would see them.
func TestStdGoroutinesOutliveExecution(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("body"))
	}))
	defer srv.Close()
	for _, strict := range []bool{false, true} {
		client := &http.Client{Transport: &http.Transport{}}
		r := sched.Run(func() {
			if _, err := client.Get(srv.URL); err != nil {
				panic(err)
			}
		}, explore.RandomWalk(1), sched.Options{BlockTimeout: 5 * time.Second, StrictLeaks: strict})
		srv.CloseClientConnections()
		switch {
		case strict && (r.Failure == nil || r.Failure.Kind != sched.Escape):
			t.Errorf("strict: failure %s, want escape", r.Failure.Summary())
		case !strict && r.Failure != nil:
			t.Errorf("failure %s, want none", r.Failure.Summary())
		case !strict && (len(r.KeptRunning) == 0 || !strings.Contains(r.KeptRunning[0].Op, "net/http.")):
			t.Errorf("kept running: %+v, want net/http's goroutines", r.KeptRunning)
		}
	}
}

// TestAwayWaitingForChild: the root waits for a child process that ends
// only once another goroutine of the execution has made a file, as a
// test waits for its binary run as a client of the execution's servers
// (cilium/hive's TestInteractiveShell). The root goes away while it
// waits, as in the network, and the other runs. Before, the root kept
// the baton for as long as the child ran, the other could not run, and
// the child gave up (and the test hung when it waited for good).
func TestAwayWaitingForChild(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	file := filepath.Join(t.TempDir(), "made")
	// The child waits for the file for 30 s at most.
	wait := `i=0; while [ ! -e "$1" ]; do i=$((i+1)); [ $i -gt 3000 ] && exit 1; sleep 0.01; done`
	var out []byte
	r := sched.Run(func() {
		made := sim.NewChan[bool](1)
		sim.Go(func() {
			sim.Yield()
			made.Send(os.WriteFile(file, nil, 0o600) == nil)
		})
		out, err = exec.Command(sh, "-c", wait, "sh", file).CombinedOutput()
		made.Recv()
	}, explore.Follow(nil), sched.Options{BlockTimeout: 30 * time.Second}) // the root runs on to the child
	if r.Failure != nil {
		t.Fatal(r.Failure.Summary())
	}
	if err != nil {
		t.Fatalf("the child did not see the file: %v %s", err, out)
	}
}

// TestAwayAfterAChange: the root closes a channel another goroutine waits
// on, then waits for a child process (it goes away). The close, its last
// event before, is taken stock of when it goes away, as at any event: the
// waiter runs and exits. Before, the close was never accounted, the
// waiter never woke, and the execution failed as a leak (a hive test's
// fatalOnTimeout goroutine, waiting on a channel its Start closes on
// return, before the test runs its binary as a client).
func TestAwayAfterAChange(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	r := sched.Run(func() {
		done := sim.NewChan[struct{}](1)
		sim.Go(func() { done.Recv() })
		sim.Yield() // the other waits on done
		done.Close()
		if err := exec.Command(sh, "-c", "sleep 0.2").Run(); err != nil {
			t.Error(err)
		}
	}, explore.Follow(nil), sched.Options{})
	if r.Failure != nil {
		t.Fatal(r.Failure.Summary())
	}
}
