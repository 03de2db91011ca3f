package iopipe

import (
	"errors"
	"io"
	"testing"
)

func TestEcho(t *testing.T) {
	a, b := Pair()
	go func() {
		buf := make([]byte, 8)
		for {
			n, err := b.Read(buf)
			if err != nil {
				b.Close()
				return
			}
			b.Write(buf[:n])
		}
	}()
	for _, msg := range []string{"ping", "pong"} {
		if _, err := a.Write([]byte(msg)); err != nil {
			t.Fatal(err)
		}
		got := make([]byte, len(msg))
		if _, err := io.ReadFull(a, got); err != nil || string(got) != msg {
			t.Fatalf("read %q, %v", got, err)
		}
	}
	a.Close()
	if _, err := a.Read(make([]byte, 1)); !errors.Is(err, io.ErrClosedPipe) {
		t.Fatalf("read after close: %v", err)
	}
}

func TestCloseWithError(t *testing.T) {
	r, w := io.Pipe()
	boom := errors.New("boom")
	go w.CloseWithError(boom)
	if _, err := r.Read(make([]byte, 1)); err != boom {
		t.Fatalf("read: %v", err)
	}
}
