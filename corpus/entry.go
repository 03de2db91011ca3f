package corpus

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/weftdev/weft/sched"
)

// An Entry is one failing execution saved in the corpus: which test failed,
// how and where the failure was found, and the schedule that reproduces it.
type Entry struct {
	Test        string // the name of the test, as t.Name returns it
	Found       Found  // how the failure was found
	Failure     string // a one-line summary of the failure
	Signature   string // identifies the failure (kind and site), see sched.Failure.Signature
	Preemptions int    // the preemptions of the schedule, after minimization
	Original    int    // the preemptions before minimization; 0 if unknown
	Hash        uint64 // the event hash of the execution; 0 if unknown
	// Input holds the inputs of an entry saved by a property test: the
	// stream of random bits its case drew them from (pgregory.net/rapid's,
	// 64 bits a word), which draws them again. Nil for other entries.
	Input []uint64
	// Parallel is go test's -parallel limit the execution ran its
	// parallel subtests under, which its replay keeps: with another
	// limit, other subtests wait for a slot. 0 if it had none.
	Parallel int
	// Extra holds the header lines this version does not know, as key and
	// value, in the order of the file, so that files written by a newer weft
	// survive a rewrite by an older one.
	Extra    [][2]string
	Schedule sched.Schedule // the choices that reproduce the failure
}

// Found tells how a failure was found: by which exploration strategy, from
// which seed, at which iteration. Zero fields are unknown, or do not apply to
// the strategy.
type Found struct {
	Strategy  string // the exploration strategy, such as "pct" or "random"
	Seed      uint64 // the strategy's seed
	Iteration int    // the execution, counted from 0, that failed
	Depth     int    // the bug depth PCT explored with
	// Extra holds the key=value fields this version does not know, in the
	// order of the file.
	Extra []string
}

// ID returns the name of a corpus file with content data: the first 16 hex
// digits of its SHA-256 hash.
func ID(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:8])
}
