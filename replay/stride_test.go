package replay

import (
	"encoding/binary"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/weftdev/weft/record"
	"github.com/weftdev/weft/sched"
	"github.com/weftdev/weft/sim"
)

// strideLostUpdate: workers add to a counter, reading and writing it in
// separate critical sections; the last one to finish checks the total.
func strideLostUpdate(workers int) func() {
	return func() {
		var m sim.Mutex
		c, done := sim.NewVar(0), sim.NewVar(0)
		for range workers {
			sim.Go(func() {
				m.Lock()
				x := c.Load()
				m.Unlock()
				m.Lock()
				c.Store(x + 1)
				m.Unlock()
				m.Lock()
				defer m.Unlock()
				d := done.Load() + 1
				done.Store(d)
				if d == workers {
					if got := c.Load(); got != workers {
						panic(fmt.Sprintf("lost update: got %d want %d", got, workers))
					}
				}
			})
		}
	}
}

// strideRecordOnce records body and returns the result and the log; the
// log file is removed.
func strideRecordOnce(t testing.TB, body func(), dir string) (*record.Result, *record.Log) {
	t.Helper()
	rec, err := record.New("stride")
	if err != nil {
		t.Fatal(err)
	}
	res, err := record.Record(body, rec, record.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(res.Log)
	log, err := record.ReadFile(res.Log)
	if err != nil {
		t.Fatal(err)
	}
	return res, log
}

func TestStrideReplayFailure(t *testing.T) {
	body := strideLostUpdate(3)
	dir := t.TempDir()
	var res *record.Result
	var log *record.Log
	runs := 0
	for runs = 1; runs <= 5000; runs++ {
		res, log = strideRecordOnce(t, body, dir)
		if res.Failure != nil {
			break
		}
	}
	if res.Failure == nil {
		t.Skip("the lost update did not happen in 5000 recorded runs")
	}
	if !strings.HasPrefix(res.Failure.Message, "lost update: got ") {
		t.Fatalf("recorded failure %v: %s", res.Failure.Kind, res.Failure.Message)
	}
	t.Logf("failed after %d runs: %s (%d bytes of log)", runs, res.Failure.Message, res.Bytes)
	for i := range 20 {
		out, err := Run(body, log, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !out.Faithful {
			t.Fatalf("replay %d not faithful: %v", i, out.Problems)
		}
		f := out.Result.Failure
		if f == nil || f.Kind != res.Failure.Kind || f.Message != res.Failure.Message {
			t.Fatalf("replay %d: failure %+v, want %v %q", i, f, res.Failure.Kind, res.Failure.Message)
		}
	}
}

func TestStrideReplayPass(t *testing.T) {
	body := strideLostUpdate(3)
	dir := t.TempDir()
	for range 100 {
		res, log := strideRecordOnce(t, body, dir)
		if res.Failure != nil {
			continue
		}
		for i := range 5 {
			out, err := Run(body, log, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !out.Faithful || out.Result.Failure != nil {
				t.Fatalf("replay %d: faithful %v, failure %+v, problems %v", i, out.Faithful, out.Result.Failure, out.Problems)
			}
		}
		return
	}
	t.Skip("no recorded run passed")
}

// strideEntry builds a location or thread entry.
func strideEntry(tag uint8, n uint64, args ...uint64) record.Entry {
	return record.Entry{Tag: tag, N: n, Args: args}
}

// strideLog is a log of one location written by goroutine 0 with the
// values ws, at its operations 1, 2, ..., and read by goroutine 1.
func strideLog(ws []uint64, reads ...record.Entry) *record.Log {
	log := &record.Log{Algorithm: "stride", Complete: true,
		Threads: []record.ThreadLog{{ID: "0", Ops: uint64(len(ws))}, {ID: "0.1", Entries: reads}},
		Locs:    [][]record.Entry{nil, nil}}
	for i, w := range ws {
		if i == 0 {
			log.Locs[1] = append(log.Locs[1], strideEntry(record.StrideWrite, 0, 0, 1, w))
		} else {
			log.Locs[1] = append(log.Locs[1], strideEntry(record.StrideWriteSame, 0, 1, w))
		}
	}
	return log
}

// The search goes back from the bound: the latest write of the value.
func TestStrideInference(t *testing.T) {
	const a, b = 5, 6
	log := strideLog([]uint64{a, b, a, b},
		strideEntry(record.StrideRead, 1, 1, a, 3),  // bound 3: version 3, not 1
		strideEntry(record.StrideReadSame, 2, b, 1), // bound 4: version 4
		strideEntry(record.StrideRead, 3, 1, 77, 0), // never written in 4..4
		strideEntry(record.StrideReadSame, 4, a, 0)) // unreachable
	if _, err := planStride(log); err == nil || !strings.Contains(err.Error(), "Stride could not infer the linkage of read (goroutine 0.1, operation 3)") {
		t.Fatalf("plan: %v, want a failed inference of operation 3", err)
	}
	log.Threads[1].Entries = log.Threads[1].Entries[:2]
	o, err := planStride(log)
	if err != nil {
		t.Fatal(err)
	}
	so := o.(*strideOracle)
	if op := so.ops[strideKey{1, 1}]; op.ver != 3 || op.write {
		t.Errorf("read 1 linked to %+v, want version 3", op)
	}
	if op := so.ops[strideKey{1, 2}]; op.ver != 4 {
		t.Errorf("read 2 linked to %+v, want version 4", op)
	}
	// The order: writes 1..3, read 1, write 4, read 2.
	w := func(n uint64) Access { return Access{Thread: 0, N: n, Loc: 1, Kind: sched.Write} }
	r := func(n uint64) Access { return Access{Thread: 1, N: n, Loc: 1, Kind: sched.Read} }
	steps := []struct {
		a     Access
		allow bool
	}{{r(1), false}, {w(1), true}, {w(2), true}, {w(3), true}, {w(4), false}, {r(2), false}, {r(1), true}, {w(4), true}, {r(2), true}}
	for i, s := range steps {
		if got := o.Allow(s.a); got != s.allow {
			t.Fatalf("step %d: Allow(%v) = %v, want %v", i, s.a, got, s.allow)
		}
		if s.allow {
			o.Performed(s.a)
		}
	}
}

// The initial value: no write in range has the value, so the read read
// version 0; every read of version 0 must read the same value.
func TestStrideInitialValue(t *testing.T) {
	log := strideLog([]uint64{5},
		strideEntry(record.StrideRead, 1, 1, 3, 1))
	o, err := planStride(log)
	if err != nil {
		t.Fatal(err)
	}
	if op := o.(*strideOracle).ops[strideKey{1, 1}]; op.ver != 0 {
		t.Errorf("read linked to %+v, want the initial value", op)
	}
	log.Threads = append(log.Threads, record.ThreadLog{ID: "0.2", Entries: []record.Entry{strideEntry(record.StrideRead, 1, 1, 4, 0)}})
	if _, err := planStride(log); err == nil || !strings.Contains(err.Error(), "initial value") {
		t.Fatalf("plan: %v, want two initial values refused", err)
	}
}

// A read cannot link to a write older than one its goroutine made.
func TestStrideOwnWrite(t *testing.T) {
	log := strideLog([]uint64{5, 6, 5},
		strideEntry(record.StrideRead, 4, 1, 6, 3)) // goroutine 0 reads after its write 3: 6 was version 2
	log.Threads[1].Entries, log.Threads[0].Entries = nil, log.Threads[1].Entries
	if _, err := planStride(log); err == nil || !strings.Contains(err.Error(), "could not infer the linkage of read (goroutine 0, operation 4)") {
		t.Fatalf("plan: %v, want a failed inference", err)
	}
}

func TestStridePlanErrors(t *testing.T) {
	for name, log := range map[string]*record.Log{
		"bad goroutine":   {Threads: []record.ThreadLog{{ID: "0"}}, Locs: [][]record.Entry{nil, {strideEntry(record.StrideWrite, 0, 3, 1, 0)}}},
		"same, no first":  {Threads: []record.ThreadLog{{ID: "0"}}, Locs: [][]record.Entry{nil, {strideEntry(record.StrideWriteSame, 0, 1, 0)}}},
		"zero delta":      {Threads: []record.ThreadLog{{ID: "0"}}, Locs: [][]record.Entry{nil, {strideEntry(record.StrideWrite, 0, 0, 0, 0)}}},
		"bound too large": strideLog([]uint64{1}, strideEntry(record.StrideRead, 1, 1, 1, 2)),
		"bad location":    strideLog([]uint64{1}, strideEntry(record.StrideRead, 1, 2, 1, 1)),
		"short read":      strideLog([]uint64{1}, strideEntry(record.StrideReadSame, 1, 1, 1)),
		"bad tag":         strideLog([]uint64{1}, strideEntry(record.TagFirst+20, 1, 1)),
		"twice":           strideLog([]uint64{1}, strideEntry(record.StrideRead, 1, 1, 1, 1), strideEntry(record.StrideRead, 1, 1, 1, 0)),
	} {
		if _, err := planStride(log); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// strideLogFrom builds a small Stride-shaped log from fuzz bytes, so that
// the planner, not only the parser, sees arbitrary input.
func strideLogFrom(data []byte) *record.Log {
	log := &record.Log{Algorithm: "stride", Complete: true,
		Threads: []record.ThreadLog{{ID: "0"}, {ID: "0.1"}}, Locs: make([][]record.Entry, 3)}
	next := func() uint64 {
		v, n := binary.Uvarint(data)
		if n <= 0 {
			data = nil
			return 0
		}
		data = data[n:]
		return v % 8
	}
	for len(data) > 0 {
		h := next()
		tag := record.TagFirst + uint8(h%6)
		e := record.Entry{Tag: tag, N: next()}
		for range next() % 4 {
			e.Args = append(e.Args, next())
		}
		if h&1 == 0 {
			loc := 1 + next()%2
			log.Locs[loc] = append(log.Locs[loc], e)
		} else {
			th := next() % 2
			log.Threads[th].Entries = append(log.Threads[th].Entries, e)
		}
	}
	return log
}

func FuzzStrideLog(f *testing.F) {
	rec, _ := record.New("stride")
	res, err := record.Record(strideLostUpdate(2), rec, record.Options{Dir: f.TempDir()})
	if err != nil {
		f.Fatal(err)
	}
	data, err := os.ReadFile(res.Log)
	os.Remove(res.Log)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add([]byte("weft log v1\n"))
	f.Add([]byte{8, 0, 0, 1, 2, 1, 9, 1, 1, 3, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		if log, err := record.Parse(data); err == nil {
			if o, err := planStride(log); err == nil {
				strideDrive(o, log)
			}
		}
		if o, err := planStride(strideLogFrom(data)); err == nil {
			strideDrive(o, strideLogFrom(data))
		}
	})
}

// strideDrive asks the oracle about every logged operation, performing
// those it allows, until none is.
func strideDrive(o Oracle, log *record.Log) {
	var as []Access
	for i, t := range log.Threads {
		for n := uint64(1); n <= t.Ops+4 && n < 64; n++ {
			as = append(as, Access{Thread: i, N: n, Kind: sched.Read})
		}
	}
	for progress := true; progress; {
		progress = false
		for i, a := range as {
			if a.N != 0 && o.Allow(a) {
				o.Performed(a)
				as[i].N = 0
				progress = true
			}
		}
	}
}

// strideAtomicLostUpdate: workers load and store an atomic counter with no
// lock, so the loads are Stride's unsynchronized reads, bounded by the
// version they see after the load.
func strideAtomicLostUpdate(workers int) func() {
	return func() {
		var c, done sim.Int64
		for range workers {
			sim.Go(func() {
				x := c.Load()
				c.Store(x + 1)
				done.Add(1)
			})
		}
	}
}

func TestStrideReplayAtomics(t *testing.T) {
	body := strideAtomicLostUpdate(3)
	dir := t.TempDir()
	replayed := 0
	for range 50 {
		res, log := strideRecordOnce(t, body, dir)
		if res.Failure != nil {
			t.Fatalf("recorded run failed: %s", res.Failure.Message)
		}
		out, err := Run(body, log, Options{})
		if err != nil {
			// Stride's inference may fail; it must say so plainly.
			if !strings.Contains(err.Error(), "Stride could not infer") {
				t.Fatal(err)
			}
			t.Log(err)
			continue
		}
		if !out.Faithful {
			t.Fatalf("replay not faithful: %v", out.Problems)
		}
		replayed++
	}
	t.Logf("%d of 50 runs replayed faithfully", replayed)
	if replayed == 0 {
		t.Fatal("no run replayed")
	}
}
