package simctx_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/weftdev/weft/sim/simctx"
)

// The boundary with package context, in plain mode.

type stdKey struct{}

func TestToStd(t *testing.T) {
	deadline := time.Now().Add(time.Hour)
	parent, cancelParent := simctx.WithDeadline(simctx.WithValue(simctx.Background(), stdKey{}, "v"), deadline)
	defer cancelParent()
	sc, cancel := simctx.WithCancel(simctx.WithValue(parent, "other", 1))
	std := simctx.ToStd(sc)
	if std.Done() == nil || rawClosed(std.Done()) || std.Err() != nil {
		t.Fatalf("view before cancel: Done %v, Err %v", std.Done(), std.Err())
	}
	if d, ok := std.Deadline(); !ok || !d.Equal(deadline) {
		t.Errorf("Deadline %v %v", d, ok)
	}
	if std.Value(stdKey{}) != "v" || std.Value("other") != 1 {
		t.Errorf("Value %v %v", std.Value(stdKey{}), std.Value("other"))
	}

	// Package context derives from the view: a child and an AfterFunc.
	child, cancelChild := context.WithCancel(std)
	defer cancelChild()
	ran := make(chan struct{})
	context.AfterFunc(std, func() { close(ran) })

	cancel()
	// Done is closed by cancel itself, with Err already set.
	if !rawClosed(std.Done()) || std.Err() != context.Canceled {
		t.Fatalf("view after cancel: closed %v, Err %v", rawClosed(std.Done()), std.Err())
	}
	select {
	case <-child.Done():
	case <-time.After(time.Second):
		t.Fatal("a context.WithCancel child of the view was not canceled")
	}
	if child.Err() != context.Canceled {
		t.Errorf("child Err %v", child.Err())
	}
	select {
	case <-ran:
	case <-time.After(time.Second):
		t.Fatal("context.AfterFunc on the view did not run")
	}

	// A view made after the cancel is closed at once.
	if std2 := simctx.ToStd(sc); !rawClosed(std2.Done()) || std2.Err() != context.Canceled {
		t.Errorf("view of a canceled context: Err %v", std2.Err())
	}
}

func TestToStdDeadline(t *testing.T) {
	sc, cancel := simctx.WithTimeout(simctx.Background(), 5*time.Millisecond)
	defer cancel()
	std := simctx.ToStd(sc)
	select {
	case <-std.Done():
	case <-time.After(time.Second):
		t.Fatal("the view's Done was not closed at the deadline")
	}
	if std.Err() != context.DeadlineExceeded || !errors.Is(std.Err(), context.DeadlineExceeded) {
		t.Errorf("Err %v", std.Err())
	}
}

func TestToStdNeverCanceled(t *testing.T) {
	if simctx.ToStd(simctx.Background()) != context.Background() || simctx.ToStd(simctx.TODO()) != context.TODO() {
		t.Error("Background and TODO are not context's")
	}
	sc, cancel := simctx.WithCancel(simctx.Background())
	v := simctx.ToStd(simctx.WithoutCancel(simctx.WithValue(sc, stdKey{}, 7)))
	cancel()
	if v.Done() != nil || v.Err() != nil || v.Value(stdKey{}) != 7 {
		t.Errorf("view of WithoutCancel: Done %v, Err %v, Value %v", v.Done(), v.Err(), v.Value(stdKey{}))
	}
}

func TestToStdCustom(t *testing.T) {
	// A custom Context: the raw channel is closed by an AfterFunc
	// goroutine, and Err waits for it.
	p := newCustom()
	std := simctx.ToStd(p)
	if std.Err() != nil || rawClosed(std.Done()) {
		t.Fatal("view of a custom context canceled early")
	}
	p.cancel(context.DeadlineExceeded)
	select {
	case <-std.Done():
	case <-time.After(time.Second):
		t.Fatal("the view of a custom context was not closed")
	}
	if std.Err() != context.DeadlineExceeded {
		t.Errorf("Err %v", std.Err())
	}
}

func TestFromStd(t *testing.T) {
	deadline := time.Now().Add(time.Hour)
	std, stdCancel := context.WithDeadline(context.WithValue(context.Background(), stdKey{}, "v"), deadline)
	defer stdCancel()
	std, stdCancelCause := context.WithCancelCause(std)
	sc := simctx.FromStd(std)
	if sc.Done() == nil || sc.Err() != nil || closed(sc.Done()) {
		t.Fatalf("FromStd before cancel: Err %v", sc.Err())
	}
	if d, ok := sc.Deadline(); !ok || !d.Equal(deadline) {
		t.Errorf("Deadline %v %v", d, ok)
	}
	if sc.Value(stdKey{}) != "v" {
		t.Errorf("Value %v", sc.Value(stdKey{}))
	}
	child, cancelChild := simctx.WithCancel(sc)
	defer cancelChild()
	waiter, cancelWaiter := simctx.WithTimeout(sc, time.Hour)
	defer cancelWaiter()

	// A goroutine already waiting sees the cancellation: in plain mode,
	// context.AfterFunc cancels the context.
	got := make(chan error)
	go func() {
		waiter.Done().Recv()
		got <- waiter.Err()
	}()
	boom := errors.New("boom")
	stdCancelCause(boom)
	select {
	case err := <-got:
		if err != context.Canceled {
			t.Errorf("waiter's Err %v", err)
		}
	case <-time.After(time.Second):
		t.Fatal("a goroutine waiting on FromStd's Done was not woken")
	}
	for _, c := range []simctx.Context{sc, child, waiter} {
		if c.Err() != context.Canceled || simctx.Cause(c) != boom || !closed(c.Done()) {
			t.Errorf("%v: Err %v, Cause %v", c, c.Err(), simctx.Cause(c))
		}
	}
}

func TestFromStdSynchronous(t *testing.T) {
	// Err reflects the standard context's cancellation as soon as it
	// returns, as for a child made by package context.
	std, stdCancel := context.WithCancel(context.Background())
	sc := simctx.FromStd(std)
	child, cancelChild := simctx.WithCancel(simctx.WithValue(sc, "k", 1))
	defer cancelChild()
	stdCancel()
	if child.Err() != context.Canceled {
		t.Errorf("child Err right after the standard cancel: %v", child.Err())
	}
	if sc.Err() != context.Canceled {
		t.Errorf("Err right after the standard cancel: %v", sc.Err())
	}

	// Already canceled.
	sc2 := simctx.FromStd(std)
	if sc2.Err() != context.Canceled || !closed(sc2.Done()) {
		t.Errorf("FromStd of a canceled context: Err %v", sc2.Err())
	}
}

func TestFromStdDeadline(t *testing.T) {
	std, cancel := context.WithTimeout(context.Background(), 5*time.Millisecond)
	defer cancel()
	sc := simctx.FromStd(std)
	waitDone(t, sc)
	if sc.Err() != context.DeadlineExceeded {
		t.Errorf("Err %v", sc.Err())
	}
}

func TestFromStdNeverCanceled(t *testing.T) {
	std := context.WithValue(context.Background(), stdKey{}, 3)
	sc := simctx.FromStd(std)
	if sc.Done() != nil || sc.Err() != nil || sc.Value(stdKey{}) != 3 {
		t.Errorf("FromStd of a context never canceled: Done %v, Err %v", sc.Done(), sc.Err())
	}
	child, cancel := simctx.WithCancel(sc)
	cancel()
	if child.Err() != context.Canceled || sc.Err() != nil {
		t.Errorf("child %v, parent %v", child.Err(), sc.Err())
	}
}

func TestStdRoundTrips(t *testing.T) {
	std, cancel := context.WithCancel(context.Background())
	defer cancel()
	if got := simctx.ToStd(simctx.FromStd(std)); got != std {
		t.Errorf("ToStd(FromStd(std)) = %v", got)
	}
	if got := simctx.ToStd(simctx.FromStd(context.TODO())); got != context.TODO() {
		t.Errorf("ToStd(FromStd(TODO)) = %v", got)
	}
	sc, cancel2 := simctx.WithCancel(simctx.Background())
	defer cancel2()
	if got := simctx.FromStd(simctx.ToStd(sc)); got != sc {
		t.Errorf("FromStd(ToStd(sc)) = %v", got)
	}
	if got := simctx.ToStd(sc).(interface{ String() string }).String(); got != "simctx.ToStd(simctx.Background.WithCancel)" {
		t.Errorf("view's name %q", got)
	}
}

// TestToStdNil: a nil Context crosses to code weft does not instrument as
// a nil context.Context, which log/slog's Logger.Log takes for
// context.Background() (go.uber.org/fx's SlogLogger logs with a nil
// context). Before, ToStd panicked.
func TestToStdNil(t *testing.T) {
	if c := simctx.ToStd(nil); c != nil {
		t.Errorf("ToStd(nil) = %v, want nil", c)
	}
	var buf bytes.Buffer
	slog.New(slog.NewTextHandler(&buf, nil)).Log(simctx.ToStd(nil), slog.LevelInfo, "logged")
	if !strings.Contains(buf.String(), "logged") {
		t.Errorf("slog with ToStd(nil) logged %q", buf.String())
	}
}

// TestFromStdNil: a nil context.Context that code weft does not instrument
// hands to rewritten code (a method of an outside interface, which
// converts its context at its start) stays nil there, as it would be in
// plain Go, where only its use fails. Before, FromStd panicked.
func TestFromStdNil(t *testing.T) {
	if c := simctx.FromStd(nil); c != nil {
		t.Errorf("FromStd(nil) = %v, want nil", c)
	}
	if c := simctx.ToStd(simctx.FromStd(nil)); c != nil {
		t.Errorf("ToStd(FromStd(nil)) = %v, want nil", c)
	}
}
