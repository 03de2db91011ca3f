package sim

import (
	"os"
	"slices"
	"testing"

	"github.com/weftdev/weft/record"
	"github.com/weftdev/weft/sched"
)

// digestRecorder records the digests the primitives report: of each read
// (ReadEnd) and of each write (WriteEnd: the value read, then the value
// written), in order. Its runs have one goroutine.
type digestRecorder struct{ got []uint64 }

func (*digestRecorder) Algorithm() string                                      { return "digests" }
func (*digestRecorder) NewThread(*record.Thread)                               {}
func (*digestRecorder) NewLoc(*record.Loc)                                     {}
func (*digestRecorder) ReadBegin(*record.Thread, *record.Loc) uint64           { return 0 }
func (*digestRecorder) WriteBegin(*record.Thread, *record.Loc)                 {}
func (*digestRecorder) Sync(*record.Thread, *record.Loc, sched.Access, uint64) {}
func (*digestRecorder) ExitThread(*record.Thread)                              {}
func (*digestRecorder) Close([]*record.Loc)                                    {}

func (r *digestRecorder) ReadEnd(_ *record.Thread, _ *record.Loc, _, v uint64) bool {
	r.got = append(r.got, v)
	return false
}

func (r *digestRecorder) WriteEnd(_ *record.Thread, _ *record.Loc, _ sched.Access, read, written uint64) {
	r.got = append(r.got, read, written)
}

// intAtomic is the method set of the integer atomics.
type intAtomic[T any] interface {
	Load() T
	Store(T)
	Add(T) T
	Swap(T) T
	CompareAndSwap(old, new T) bool
}

// intOps performs every operation of x with the values a, b and c, and
// returns the digests a recorder must be told of, as digest computes them.
func intOps[T int32 | int64 | uint32 | uint64 | uintptr](x intAtomic[T], a, b, c T) []uint64 {
	d := func(v T) uint64 { return digest(&v) }
	x.Store(a)
	x.Load()
	x.Add(b)
	x.Swap(c)
	x.CompareAndSwap(c, a)
	x.CompareAndSwap(c, b) // fails: x holds a
	return []uint64{0, d(a), d(a), d(a), d(a + b), d(a + b), d(c), d(c), d(a), d(a), d(a)}
}

// The integer atomics' recorded paths are written out, each digesting its
// values itself: they must tell the recorder the digests the generic
// digest computes (as the controller does), negative and wide values
// included.
func TestRecordedAtomicDigests(t *testing.T) {
	cases := map[string]func() []uint64{
		"Int32":   func() []uint64 { return intOps[int32](new(Int32), -5, -3, -1<<31) },
		"Int64":   func() []uint64 { return intOps[int64](new(Int64), -5, -3, -1<<63) },
		"Uint32":  func() []uint64 { return intOps[uint32](new(Uint32), 1<<31+5, 1<<31, 7) },
		"Uint64":  func() []uint64 { return intOps[uint64](new(Uint64), 1<<63+5, 1<<63, 7) },
		"Uintptr": func() []uint64 { return intOps[uintptr](new(Uintptr), 1<<63+5, 1<<63, 7) },
	}
	for name, ops := range cases {
		t.Run(name, func(t *testing.T) {
			rec := &digestRecorder{}
			var want []uint64
			res, err := record.Record(func() { want = ops() }, rec, record.Options{Dir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			os.Remove(res.Log)
			if res.Failure != nil {
				t.Fatal(res.Failure.Message)
			}
			if !slices.Equal(rec.got, want) {
				t.Errorf("digests reported %#x, want %#x", rec.got, want)
			}
		})
	}
}
