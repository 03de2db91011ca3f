package main

import (
	"strings"
	"testing"
)

// TestWeftTestPurgeLoop runs testdata/plain/purge, ants' default pool
// reduced, through weft test: the pool's purge loop, started in init, runs
// outside every execution and hands TestPool's idle worker its nil on the
// execution's channel. The execution receives it (a visit), the worker
// ends, the pool closes allDone, and ExampleReboot, run in plain mode
// after it, reboots the pool, as under go test. Before visits, the nil went
// into the plain buffer: TestPool failed as outside, and ExampleReboot
// waited in Reboot for the worker until go test's -timeout (bounded here
// by 60 s).
func TestWeftTestPurgeLoop(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test")
	}
	dir := plainModule(t)
	var out strings.Builder
	code, err := runTest(dir, []string{"-count=1", "-v", "-timeout", "60s", "./purge"}, &out, &out)
	if err != nil {
		t.Fatalf("weft test: %v\n%s", err, out.String())
	}
	if code != 0 || !strings.Contains(out.String(), "--- PASS: TestPool") || !strings.Contains(out.String(), "--- PASS: ExampleReboot") {
		t.Fatalf("weft test ./purge: exit %d\n%s", code, out.String())
	}
}

// TestWeftTestServe runs testdata/plain/serve through weft test: TestServe
// serves HTTP from a goroutine of the test, blocked in Accept, and makes a
// request from the test's body, blocked in the network until the server
// answers; TestHTTPTest does the same with httptest. Each passes, as
// under go test. Before, the first goroutine to block in the network kept
// the baton, nothing else ran, and TestServe failed as blocked after the
// block timeout. TestConcurrentHandlers makes requests from four
// goroutines together to handlers that sleep and count with atomics: it
// failed as an escape when a handler, on a goroutine net/http started,
// used a weft primitive while one of them held the execution's turn.
// TestHandlerSelects and TestHandlerSleeps: a handler's select on the
// test's channel and its WaitGroup's Done visit the execution, and its
// sleeps are on the execution's clock.
func TestWeftTestServe(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test")
	}
	dir := plainModule(t)
	var out strings.Builder
	code, err := runTest(dir, []string{"-count=1", "-v", "-timeout", "120s", "./serve"}, &out, &out)
	if err != nil {
		t.Fatalf("weft test: %v\n%s", err, out.String())
	}
	if code != 0 || !strings.Contains(out.String(), "--- PASS: TestServe") || !strings.Contains(out.String(), "--- PASS: TestHTTPTest") ||
		!strings.Contains(out.String(), "--- PASS: TestConcurrentHandlers") ||
		!strings.Contains(out.String(), "--- PASS: TestHandlerSelects") || !strings.Contains(out.String(), "--- PASS: TestHandlerSleeps") {
		t.Fatalf("weft test ./serve: exit %d\n%s", code, out.String())
	}
}

// TestWeftTestSkippedPackage runs testdata/plain/skipped through weft test
// with its package lib left as it is (-instrument.skip, as the safety net
// leaves a package it cannot rewrite): lib starts goroutines with plain go
// statements that run the test's functions, which lock its mutex and send
// on its channel. They leave the execution at their first operation of
// weft's, and their operations visit it: TestCallbacks passes, as under go
// test. Before, they were taken for the test's goroutine, and the
// execution failed (a deadlock, the test's own receive seen as a send).
func TestWeftTestSkippedPackage(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test")
	}
	dir := plainModule(t)
	code, out := weftTestIn(t, dir)("-count=1", "-v", "-timeout", "60s", "-instrument.skip=example.com/plain/skipped/lib", "./skipped")
	if code != 0 || !strings.Contains(out, "--- PASS: TestCallbacks") || !strings.Contains(out, "weft: skipped: example.com/plain/skipped/lib") {
		t.Fatalf("weft test ./skipped: exit %d\n%s", code, out)
	}
}
