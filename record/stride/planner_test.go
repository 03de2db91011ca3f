package stride

import (
	"strings"
	"testing"

	"github.com/weftdev/weft/internal/rectest"
	"github.com/weftdev/weft/record"
	"github.com/weftdev/weft/replay"
	"github.com/weftdev/weft/sched"
	"github.com/weftdev/weft/sim"
)

func TestStrideReplayFailure(t *testing.T) {
	body := rectest.LostUpdate(3, 1)
	res, log, runs := rectest.RecordFailure(t, rectest.ByName(t, "stride"), body, 5000)
	if !strings.HasPrefix(res.Failure.Message, "lost update: got ") {
		t.Fatalf("recorded failure %v: %s", res.Failure.Kind, res.Failure.Message)
	}
	t.Logf("failed after %d runs: %s (%d bytes of log)", runs, res.Failure.Message, res.Bytes)
	rectest.ReplayN(t, body, log, res.Failure, 20)
}

func TestStrideReplayPass(t *testing.T) {
	rectest.ReplayPass(t, rectest.ByName(t, "stride"), rectest.LostUpdate(3, 1), 100, 5)
}

// strideLog is a log of one location written by goroutine 0 with the
// values ws, at its operations 1, 2, ..., and read by goroutine 1.
func strideLog(ws []uint64, reads ...record.Entry) *record.Log {
	log := &record.Log{Algorithm: "stride", Complete: true,
		Threads: []record.ThreadLog{{ID: "0", Ops: uint64(len(ws))}, {ID: "0.1", Entries: reads}},
		Locs:    [][]record.Entry{nil, nil}}
	for i, w := range ws {
		if i == 0 {
			log.Locs[1] = append(log.Locs[1], rectest.Entry(tagWrite, 0, 0, 1, w))
		} else {
			log.Locs[1] = append(log.Locs[1], rectest.Entry(tagWriteSame, 0, 1, w))
		}
	}
	return log
}

// The search goes back from the bound: the latest write of the value.
func TestStrideInference(t *testing.T) {
	const a, b = 5, 6
	log := strideLog([]uint64{a, b, a, b},
		rectest.Entry(tagRead, 1, 1, a, 3),  // bound 3: version 3, not 1
		rectest.Entry(tagReadSame, 2, b, 1), // bound 4: version 4
		rectest.Entry(tagRead, 3, 1, 77, 0), // never written in 4..4
		rectest.Entry(tagReadSame, 4, a, 0)) // unreachable
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
	w := func(n uint64) record.Access { return record.Access{Thread: 0, N: n, Loc: 1, Kind: sched.Write} }
	r := func(n uint64) record.Access { return record.Access{Thread: 1, N: n, Loc: 1, Kind: sched.Read} }
	steps := []rectest.OracleStep{{A: r(1), Allow: false}, {A: w(1), Allow: true}, {A: w(2), Allow: true}, {A: w(3), Allow: true}, {A: w(4), Allow: false}, {A: r(2), Allow: false}, {A: r(1), Allow: true}, {A: w(4), Allow: true}, {A: r(2), Allow: true}}
	rectest.DriveSteps(t, o, steps)
}

// The initial value: no write in range has the value, so the read read
// version 0; every read of version 0 must read the same value.
func TestStrideInitialValue(t *testing.T) {
	log := strideLog([]uint64{5},
		rectest.Entry(tagRead, 1, 1, 3, 1))
	o, err := planStride(log)
	if err != nil {
		t.Fatal(err)
	}
	if op := o.(*strideOracle).ops[strideKey{1, 1}]; op.ver != 0 {
		t.Errorf("read linked to %+v, want the initial value", op)
	}
	log.Threads = append(log.Threads, record.ThreadLog{ID: "0.2", Entries: []record.Entry{rectest.Entry(tagRead, 1, 1, 4, 0)}})
	if _, err := planStride(log); err == nil || !strings.Contains(err.Error(), "initial value") {
		t.Fatalf("plan: %v, want two initial values refused", err)
	}
}

// A read cannot link to a write older than one its goroutine made.
func TestStrideOwnWrite(t *testing.T) {
	log := strideLog([]uint64{5, 6, 5},
		rectest.Entry(tagRead, 4, 1, 6, 3)) // goroutine 0 reads after its write 3: 6 was version 2
	log.Threads[1].Entries, log.Threads[0].Entries = nil, log.Threads[1].Entries
	if _, err := planStride(log); err == nil || !strings.Contains(err.Error(), "could not infer the linkage of read (goroutine 0, operation 4)") {
		t.Fatalf("plan: %v, want a failed inference", err)
	}
}

func TestStridePlanErrors(t *testing.T) {
	for name, log := range map[string]*record.Log{
		"bad goroutine":   {Threads: []record.ThreadLog{{ID: "0"}}, Locs: [][]record.Entry{nil, {rectest.Entry(tagWrite, 0, 3, 1, 0)}}},
		"same, no first":  {Threads: []record.ThreadLog{{ID: "0"}}, Locs: [][]record.Entry{nil, {rectest.Entry(tagWriteSame, 0, 1, 0)}}},
		"zero delta":      {Threads: []record.ThreadLog{{ID: "0"}}, Locs: [][]record.Entry{nil, {rectest.Entry(tagWrite, 0, 0, 0, 0)}}},
		"bound too large": strideLog([]uint64{1}, rectest.Entry(tagRead, 1, 1, 1, 2)),
		"bad location":    strideLog([]uint64{1}, rectest.Entry(tagRead, 1, 2, 1, 1)),
		"short read":      strideLog([]uint64{1}, rectest.Entry(tagReadSame, 1, 1, 1)),
		"bad tag":         strideLog([]uint64{1}, rectest.Entry(record.TagFirst+20, 1, 1)),
		"twice":           strideLog([]uint64{1}, rectest.Entry(tagRead, 1, 1, 1, 1), rectest.Entry(tagRead, 1, 1, 1, 0)),
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
	in := &rectest.FuzzInput{Data: data}
	next := func() uint64 { return in.Next() % 8 }
	for len(in.Data) > 0 {
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
	data := rectest.RecordBytes(f, rectest.Recorder(f, "stride"), rectest.LostUpdate(2, 1))
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
func strideDrive(o record.Oracle, log *record.Log) {
	var as []record.Access
	for i, t := range log.Threads {
		for n := uint64(1); n <= t.Ops+4 && n < 64; n++ {
			as = append(as, record.Access{Thread: i, N: n, Kind: sched.Read})
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
		res, log := rectest.RecordOnce(t, rectest.Recorder(t, "stride"), body, dir)
		if res.Failure != nil {
			t.Fatalf("recorded run failed: %s", res.Failure.Message)
		}
		out, err := replay.Run(body, log, replay.Options{})
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
