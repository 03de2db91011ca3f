package loopnet

import (
	"io"
	"net"
	"testing"
)

func ping(t *testing.T, fixed bool) {
	s, err := Listen(fixed)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c, err := net.Dial("tcp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for i, msg := range []string{"ping", "pong"} {
		if _, err := c.Write([]byte(msg)); err != nil {
			t.Fatal(err)
		}
		got := make([]byte, len(msg))
		if _, err := io.ReadFull(c, got); err != nil || string(got) != msg {
			t.Fatalf("read %q, %v", got, err)
		}
		if n := s.Served(); n != int64(i+1) {
			t.Errorf("served %d after reply %d", n, i+1)
		}
	}
}

func TestBug(t *testing.T)   { ping(t, false) }
func TestFixed(t *testing.T) { ping(t, true) }
