package sched_test

import (
	"testing"

	"github.com/weftdev/weft/sched"
)

// A leak or deadlock is the same failure however many goroutines wait at
// each place: minimization keeps the places, not the count.
func TestSignatureCountsEachPlaceOnce(t *testing.T) {
	waiting := func(sites ...string) []sched.Waiting {
		var ws []sched.Waiting
		for _, s := range sites {
			ws = append(ws, sched.Waiting{Op: "Chan.Send", Site: s})
		}
		return ws
	}
	three := &sched.Failure{Kind: sched.Leak, Waiting: waiting("cache.go:204", "cache.go:204", "cache.go:196")}
	two := &sched.Failure{Kind: sched.Leak, Waiting: waiting("cache.go:196", "cache.go:204")}
	if three.Signature() != two.Signature() {
		t.Errorf("%q and %q differ", three.Signature(), two.Signature())
	}
	if want := "leak Chan.Send@cache.go:196,Chan.Send@cache.go:204"; two.Signature() != want {
		t.Errorf("signature %q, want %q", two.Signature(), want)
	}
	other := &sched.Failure{Kind: sched.Leak, Waiting: waiting("cache.go:204")}
	if other.Signature() == two.Signature() {
		t.Errorf("a leak at another set of places has the same signature %q", other.Signature())
	}
}
