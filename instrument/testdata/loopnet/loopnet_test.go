package loopnet

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"example.com/loopnet/instrasserts"
)

func TestEcho(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go Serve(l)
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, msg := range []string{"ping", "pong"} {
		if _, err := c.Write([]byte(msg)); err != nil {
			t.Fatal(err)
		}
		got := make([]byte, len(msg))
		if _, err := io.ReadFull(c, got); err != nil || string(got) != msg {
			t.Fatalf("read %q, %v", got, err)
		}
	}
}

func TestPairDeadline(t *testing.T) {
	a, b, err := Pair()
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	defer b.Close()
	go a.Write([]byte("x"))
	if _, err := io.ReadFull(b, make([]byte, 1)); err != nil {
		t.Fatal(err)
	}
	a.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
	if _, err := a.Read(make([]byte, 1)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read past the deadline: %v", err)
	}
}

func TestDialer(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go Serve(l)
	c, err := DialContext(context.Background(), l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Write([]byte("hi"))
	got := make([]byte, 2)
	if _, err := io.ReadFull(c, got); err != nil || string(got) != "hi" {
		t.Fatalf("read %q, %v", got, err)
	}
}

// TestAsserted: a package that asserts *net.TCPConn and *net.TCPListener
// to use their methods dials in memory (a client's port of the
// execution's, from 61000 up), and the assertions pass.
func TestAsserted(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go Serve(l)
	c, err := instrasserts.Dial(l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if !instrasserts.IsTCP(c) {
		t.Fatalf("%T is not TCP", c)
	}
	if port := c.LocalAddr().(*net.TCPAddr).Port; port < 61000 {
		t.Fatalf("dialed from port %d: not in memory", port)
	}
	c.Write([]byte("hi"))
	if err := instrasserts.HalfClose(c); err != nil {
		t.Fatal(err)
	}
	if got, err := io.ReadAll(c); err != nil || string(got) != "hi" {
		t.Fatalf("read %q, %v", got, err)
	}
	if err := instrasserts.Expire(l, time.Now()); err != nil {
		t.Fatal(err)
	}
}

// TestUnix: an echo over a unix socket, in memory under control.
func TestUnix(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sock")
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go Serve(l)
	c, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if typ := fmt.Sprintf("%T", c); typ != "*simnet.UnixConn" {
		t.Fatalf("dialed a %s: not in memory", typ)
	}
	c.Write([]byte("hi"))
	got := make([]byte, 2)
	if _, err := io.ReadFull(c, got); err != nil || string(got) != "hi" {
		t.Fatalf("read %q, %v", got, err)
	}
}
