// Package examples lists weft's examples: classic concurrency bugs written
// with package sim, each with its fixed twin, in the packages below this
// one. The measurement program (examples/measure) and the README's table
// iterate over All; Races are data races, which only the race detector
// reports (go test -race).
package examples

import (
	"github.com/weftdev/weft/examples/abastack"
	"github.com/weftdev/weft/examples/abba"
	"github.com/weftdev/weft/examples/bakery"
	"github.com/weftdev/weft/examples/checkthenact"
	"github.com/weftdev/weft/examples/deferorder"
	"github.com/weftdev/weft/examples/doubleclose"
	"github.com/weftdev/weft/examples/hitcounter"
	"github.com/weftdev/weft/examples/leak"
	"github.com/weftdev/weft/examples/lostupdate"
	"github.com/weftdev/weft/examples/lostwakeup"
	"github.com/weftdev/weft/examples/orderviolation"
	"github.com/weftdev/weft/examples/publish"
	"github.com/weftdev/weft/examples/rlockwrite"
	"github.com/weftdev/weft/examples/wgrace"
	"github.com/weftdev/weft/sched"
	weft "github.com/weftdev/weft/testing"
)

// An Example is a bug and its fix, as test bodies.
type Example struct {
	Name  string            // the package's name
	Bug   string            // what goes wrong
	Kind  sched.FailureKind // how weft reports it
	Buggy func(*weft.T)     // the test body of the buggy code
	Fixed func(*weft.T)     // the same test of the fixed code
}

// All are the examples.
var All = []Example{
	{"lostupdate", "lost update on a shared counter", sched.Error, lostupdate.Buggy, lostupdate.Fixed},
	{"checkthenact", "check-then-act on a map", sched.Error, checkthenact.Buggy, checkthenact.Fixed},
	{"abba", "AB-BA deadlock", sched.Deadlock, abba.Buggy, abba.Fixed},
	{"lostwakeup", "lost wakeup (Signal where Broadcast was needed)", sched.Deadlock, lostwakeup.Buggy, lostwakeup.Fixed},
	{"doubleclose", "double close of a channel", sched.Panic, doubleclose.Buggy, doubleclose.Fixed},
	{"wgrace", "WaitGroup.Add racing Wait", sched.Error, wgrace.Buggy, wgrace.Fixed},
	{"orderviolation", "order violation (use before init)", sched.Panic, orderviolation.Buggy, orderviolation.Fixed},
	{"leak", "goroutine leaked on a channel nobody receives from", sched.Leak, leak.Buggy, leak.Fixed},
	{"bakery", "bakery lock without choosing flags (depth 3)", sched.Error, bakery.Buggy, bakery.Fixed},
	{"abastack", "ABA on a lock-free stack (depth 3)", sched.Error, abastack.Buggy, abastack.Fixed},
}

// Races are the examples whose bug is a data race: weft's interleavings
// never make their values go wrong, and only the race detector reports them
// (go test -race), at the first execution that runs both accesses.
var Races = []Example{
	{"hitcounter", "a counter incremented without synchronization", sched.Race, hitcounter.Buggy, hitcounter.Fixed},
	{"publish", "data published through a plain flag", sched.Race, publish.Buggy, publish.Fixed},
	{"rlockwrite", "a map written under a read lock", sched.Race, rlockwrite.Buggy, rlockwrite.Fixed},
	{"deferorder", "a result written after Done (defers in the wrong order)", sched.Race, deferorder.Buggy, deferorder.Fixed},
}
