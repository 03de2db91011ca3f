package simnet_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/weftdev/weft/explore"
	"github.com/weftdev/weft/internal/simtest"
	"github.com/weftdev/weft/sched"
	"github.com/weftdev/weft/sim"
	"github.com/weftdev/weft/sim/simnet"
)

const seeds = 50

type checker = simtest.Checker

func exploreAll(t *testing.T, body func(c *checker)) {
	t.Helper()
	simtest.ExploreAll(t, seeds, body)
}

// echo accepts one connection of l and writes back what it reads until
// the client closes.
func echo(c *checker, l net.Listener) {
	conn, err := l.Accept()
	if err != nil {
		c.Errorf("accept: %v", err)
		return
	}
	_, err = io.Copy(conn, conn)
	c.Equal("copy", err, error(nil))
	conn.Close()
}

// TestPingPong: under control, a listener on 127.0.0.1:0 and a dial of its
// address are one in-memory connection between goroutines of the
// execution, each read and write an event (over real sockets the reader
// blocked in the network while the writer waited for its turn). Ports
// are the execution's, the same in every execution.
func TestPingPong(t *testing.T) {
	exploreAll(t, func(c *checker) {
		l, err := simnet.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			c.Errorf("listen: %v", err)
			return
		}
		sim.Go(func() { echo(c, l) })
		conn, err := simnet.DialTimeout(l.Addr().Network(), l.Addr().String(), time.Second)
		if err != nil {
			c.Errorf("dial: %v", err)
			return
		}
		c.Equal("local", conn.LocalAddr().String(), "127.0.0.1:61000")
		c.Equal("remote", conn.RemoteAddr().String(), l.Addr().String())
		for _, msg := range []string{"ping", "pong"} {
			conn.Write([]byte(msg))
			got := make([]byte, len(msg))
			_, err := io.ReadFull(conn, got)
			c.Equal("echo of "+msg, string(got), msg)
			c.Equal("read error", err, error(nil))
		}
		conn.(interface{ CloseWrite() error }).CloseWrite()
		_, err = conn.Read(make([]byte, 1))
		c.Equal("read after the server's close", err, io.EOF)
		conn.Close()
		l.Close()
	})
}

// TestDeadline: a read deadline expires on the virtual clock, with net's
// timeout error; a deadline set while a read waits wakes it.
func TestDeadline(t *testing.T) {
	exploreAll(t, func(c *checker) {
		l, _ := simnet.ListenTCP("tcp", nil)
		defer l.Close()
		conn, err := simnet.Dial("tcp", l.Addr().String())
		if err != nil {
			c.Errorf("dial: %v", err)
			return
		}
		server, _ := l.Accept()
		c.Equal("server's remote", server.RemoteAddr(), conn.LocalAddr())
		c.Equal("client's remote", conn.RemoteAddr().String(), "[::1]:"+strconv.Itoa(l.Addr().(*net.TCPAddr).Port))
		start := sim.Now()
		conn.SetReadDeadline(start.Add(time.Hour))
		_, err = conn.Read(make([]byte, 1))
		if el := sim.Since(start); el < time.Hour || el > time.Hour+time.Millisecond {
			c.Errorf("read timed out after %v", el)
		}
		c.Equal("is ErrDeadlineExceeded", errors.Is(err, os.ErrDeadlineExceeded), true)
		var ne net.Error
		c.Equal("net.Error timeout", errors.As(err, &ne) && ne.Timeout(), true)
		done := sim.NewChan[error](0)
		sim.Go(func() {
			_, err := server.Read(make([]byte, 1))
			done.Send(err)
		})
		server.SetReadDeadline(sim.Now().Add(-time.Second))
		c.Equal("woken by a past deadline", errors.Is(done.Recv(), os.ErrDeadlineExceeded), true)
		server.SetReadDeadline(time.Time{})
		conn.Write([]byte("x"))
		n, err := server.Read(make([]byte, 1))
		c.Equal("read once the deadline is cleared", n, 1)
		c.Equal("its error", err, error(nil))
	})
}

// TestClose: closing as TCP: the peer reads what was written, then EOF;
// its first write is taken, as the kernel takes it, the next fail
// ("broken pipe"); the closed end's operations fail
// with net.ErrClosed, so does a closed listener's Accept.
func TestClose(t *testing.T) {
	exploreAll(t, func(c *checker) {
		l, _ := simnet.Listen("tcp", "localhost:0")
		accepted := sim.NewChan[net.Conn](1)
		sim.Go(func() {
			s, err := l.Accept()
			c.Equal("accept", err, error(nil))
			accepted.Send(s)
			_, err = l.Accept()
			c.Equal("accept after close is ErrClosed", errors.Is(err, net.ErrClosed), true)
		})
		conn, _ := simnet.Dial("tcp", l.Addr().String())
		conn.Write([]byte("bye"))
		conn.Close()
		s := accepted.Recv()
		b, err := io.ReadAll(s)
		c.Equal("read to EOF", string(b), "bye")
		c.Equal("ReadAll's error", err, error(nil))
		_, err = s.Write([]byte("x"))
		c.Equal("first write to a closed peer", err, error(nil))
		_, err = s.Write([]byte("x"))
		c.Equal("next write to a closed peer is EPIPE", errors.Is(err, syscall.EPIPE), true)
		_, err = conn.Read(make([]byte, 1))
		c.Equal("read of a closed end is ErrClosed", errors.Is(err, net.ErrClosed), true)
		c.Equal("second close is ErrClosed", errors.Is(conn.Close(), net.ErrClosed), true)
		l.Close()
	})
}

// TestBackpressure: a write of more than the buffer waits for the peer's
// reads, under control.
func TestBackpressure(t *testing.T) {
	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<17) // 2 MiB
	simtest.ExploreAll(t, 5, func(c *checker) {
		l, _ := simnet.Listen("tcp", ":0")
		sim.Go(func() { echo(c, l) })
		conn, _ := simnet.Dial("tcp", l.Addr().String())
		got := sim.NewChan[[]byte](1)
		sim.Go(func() {
			b, _ := io.ReadAll(conn)
			got.Send(b)
		})
		n, err := conn.Write(big)
		c.Equal("written", n, len(big))
		c.Equal("write error", err, error(nil))
		conn.(*simnet.TCPConn).CloseWrite()
		c.Equal("echoed", bytes.Equal(got.Recv(), big), true)
	})
}

// TestRealClient: a dial of code weft does not rewrite (net's own, as
// net/http's client dials) reaches the in-memory listener through the
// real one it listens on, its connection accepted beside the in-memory
// ones; a second listener on its port fails as net's does.
func TestRealClient(t *testing.T) {
	simtest.ExploreAll(t, 5, func(c *checker) {
		l, _ := simnet.Listen("tcp", "127.0.0.1:0")
		defer l.Close()
		_, err := simnet.Listen("tcp", l.Addr().String())
		c.Equal("EADDRINUSE", errors.Is(err, syscall.EADDRINUSE), true)
		real, err := net.Dial("tcp", l.Addr().String())
		if err != nil {
			c.Errorf("real dial: %v", err)
			return
		}
		defer real.Close()
		real.Write([]byte("hi"))
		s, err := l.Accept()
		if err != nil {
			c.Errorf("accept: %v", err)
			return
		}
		defer s.Close()
		_, isReal := s.(*net.TCPConn)
		c.Equal("accepted net's connection", isReal, true)
		got := make([]byte, 2)
		io.ReadFull(s, got)
		c.Equal("read", string(got), "hi")
	})
}

// TestPlain: outside an execution these are net's own.
func TestPlain(t *testing.T) {
	l, err := simnet.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Skipf("no loopback network: %v", err)
	}
	defer l.Close()
	if _, ok := l.(*net.TCPListener); !ok {
		t.Fatalf("Listen outside an execution: %T", l)
	}
	go func() {
		if s, err := l.Accept(); err == nil {
			s.Write([]byte("hi"))
			s.Close()
		}
	}()
	conn, err := simnet.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, ok := conn.(*net.TCPConn); !ok {
		t.Fatalf("Dial outside an execution: %T", conn)
	}
	if b, err := io.ReadAll(conn); string(b) != "hi" || err != nil {
		t.Fatalf("read %q, %v", b, err)
	}
}

// TestExitWhileWaiting: an execution that ends while a goroutine waits in
// a Read, an Accept or a Write makes it exit there (runtime.Goexit at its
// event); the connection's lock, Go's, released for the wait, is taken
// again on the way out for the deferred unlock, which was a fatal "unlock
// of unlocked mutex" (hashicorp/yamux's TestSendData_VeryLarge crashed
// its test binary). The same when the goroutine exits at the close of the
// channel that wakes the others, which its wait's unlock makes after
// releasing the lock: the wait took it again only if it exited later
// (a fatal "unlock of unlocked mutex" in one of these seeds, past the 8th).
func TestExitWhileWaiting(t *testing.T) {
	for seed := range uint64(16) {
		r := sched.Run(func() {
			l, _ := simnet.Listen("tcp", "127.0.0.1:0")
			conn, _ := simnet.Dial("tcp", l.Addr().String())
			server, _ := l.Accept()
			sim.Go(func() { server.Read(make([]byte, 1)) })
			sim.Go(func() { l.Accept() })
			sim.Go(func() { conn.Write(make([]byte, 2<<20)) })
			sim.Go(func() { panic("the end") })
			sim.Sleep(time.Hour)
		}, explore.RandomWalk(seed), simtest.Options())
		if r.Failure == nil || r.Failure.Kind != sched.Panic {
			t.Fatalf("seed %d: %v, want the panic", seed, r.Failure.Summary())
		}
	}
}

// TestDialer: net.Dialer's Dial and DialContext connect in memory as Dial
// does; a done context fails the dial.
func TestDialer(t *testing.T) {
	exploreAll(t, func(c *checker) {
		l, _ := simnet.Listen("tcp", "127.0.0.1:0")
		defer l.Close()
		var d net.Dialer
		conn, err := simnet.DialerDial(&d, "tcp", l.Addr().String())
		_, inMemory := conn.(*simnet.TCPConn)
		c.Equal("Dial in memory", inMemory && err == nil, true)
		conn, err = simnet.DialerDialContext(&d, context.Background(), "tcp", l.Addr().String())
		_, inMemory = conn.(*simnet.TCPConn)
		c.Equal("DialContext in memory", inMemory && err == nil, true)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err = simnet.DialerDialContext(&d, ctx, "tcp", l.Addr().String())
		c.Equal("DialContext of a done context is canceled", errors.Is(err, context.Canceled), true)
	})
}

// TestAssert: AssertTCPConn and AssertTCPListener, the assertions
// x.(*net.TCPConn) and x.(*net.TCPListener) of rewritten code, take an
// in-memory connection or listener, and net's own, wrapped; anything else
// is not one, and MustTCPConn panics on it as the assertion does.
func TestAssert(t *testing.T) {
	exploreAll(t, func(c *checker) {
		l, _ := simnet.Listen("tcp", "127.0.0.1:0")
		defer l.Close()
		conn, _ := simnet.Dial("tcp", l.Addr().String())
		defer conn.Close()
		tc, ok := simnet.AssertTCPConn(conn)
		c.Equal("in-memory connection asserted", ok && tc == conn, true)
		c.Equal("SetNoDelay", tc.SetNoDelay(true), error(nil))
		tl, ok := simnet.AssertTCPListener(l)
		c.Equal("in-memory listener asserted", ok && tl == l, true)
		_, ok = simnet.AssertTCPConn(l)
		c.Equal("a listener is no connection", ok, false)
		_, ok = simnet.AssertTCPListener(nil)
		c.Equal("nil is no listener", ok, false)
	})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Skipf("no loopback network: %v", err)
	}
	defer l.Close()
	if tl, ok := simnet.AssertTCPListener(l); !ok || tl.Std() != l {
		t.Errorf("net's listener: %v, %v", tl, ok)
	}
	conn, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if tc := simnet.MustTCPConn(conn); tc.Std() != conn {
		t.Errorf("net's connection: %v", tc)
	}
	defer func() {
		if _, ok := recover().(*runtime.TypeAssertionError); !ok {
			t.Errorf("MustTCPConn of a listener did not panic as the assertion does")
		}
	}()
	simnet.MustTCPConn(l)
}

// TestUnix: under control, a unix socket's listener is one of the
// execution's in-memory network, on the real listener's path: a dial of
// the path connects in memory (reads and deadlines on the virtual clock),
// and the close removes the socket's file, as net's does.
func TestUnix(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sock")
	exploreAll(t, func(c *checker) {
		l, err := simnet.Listen("unix", path)
		if err != nil {
			c.Errorf("listen: %v", err)
			return
		}
		sim.Go(func() { echo(c, l) })
		conn, err := simnet.Dial("unix", path)
		if err != nil {
			c.Errorf("dial: %v", err)
			return
		}
		_, inMemory := conn.(*simnet.UnixConn)
		c.Equal("in memory", inMemory, true)
		c.Equal("remote", conn.RemoteAddr(), l.Addr())
		conn.Write([]byte("ping"))
		got := make([]byte, 4)
		io.ReadFull(conn, got)
		c.Equal("echo", string(got), "ping")
		start := sim.Now()
		conn.SetReadDeadline(start.Add(time.Hour))
		_, err = conn.Read(got)
		c.Equal("timed out on the virtual clock", errors.Is(err, os.ErrDeadlineExceeded) && sim.Since(start) >= time.Hour, true)
		conn.Close()
		l.Close()
		_, err = os.Stat(path)
		c.Equal("socket file removed", errors.Is(err, os.ErrNotExist), true)
		_, err = simnet.Dial("unix", path)
		c.Equal("dial after the close fails", err != nil, true)
	})
}

// TestUnixRealClient: a dial of net's (code weft does not rewrite)
// connects through the real socket, accepted beside the in-memory ones.
func TestUnixRealClient(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sock")
	simtest.ExploreAll(t, 5, func(c *checker) {
		l, err := simnet.Listen("unix", path)
		if err != nil {
			c.Errorf("listen: %v", err)
			return
		}
		defer l.Close()
		real, err := net.Dial("unix", path)
		if err != nil {
			c.Errorf("real dial: %v", err)
			return
		}
		defer real.Close()
		real.Write([]byte("pong"))
		real.(*net.UnixConn).CloseWrite()
		s, err := l.Accept()
		if err != nil {
			c.Errorf("accept: %v", err)
			return
		}
		_, isReal := s.(*net.UnixConn)
		c.Equal("accepted net's connection", isReal, true)
		b, _ := io.ReadAll(s)
		s.Write(b)
		s.Close()
		b, _ = io.ReadAll(real)
		c.Equal("real echo", string(b), "pong")
	})
}

// TestAcceptNotOutside: a goroutine waiting in Accept does not hold back
// the rounds that goroutines reading an unchanged word get before a timer
// fires. Three reads in a row of one word look like a poll (a codec's
// cache of types, hashicorp/go-msgpack's, read at every value); Accept
// waits on weft's channel and on the Go channel of the real listener's
// connections, a poller of the world outside, whose presence fired the
// timer at once (sched's roundBeforeTimer): the clock moved 200 ms while
// the reads were at work (hashicorp/raft's transport tests timed out in
// memory).
func TestAcceptNotOutside(t *testing.T) {
	exploreAll(t, func(c *checker) {
		l, _ := simnet.Listen("tcp", "127.0.0.1:0")
		defer l.Close()
		sim.Go(func() { l.Accept() })
		var word sim.Int64
		done := sim.NewChan[struct{}](0)
		sim.Go(func() {
			for range 64 {
				word.Load()
			}
			done.Close()
		})
		timer := sim.NewTimer(200 * time.Millisecond)
		defer timer.Stop()
		start := sim.Now()
		sim.Select(sim.OnRecv(done, nil), sim.OnRecv(timer.C, nil))
		c.Equal("work done before the timeout", sim.Since(start) < time.Millisecond, true)
	})
}
