package record

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"hash"
	"hash/crc32"
	"os"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/weftdev/weft/internal/lineage"
	"github.com/weftdev/weft/sched"
)

// DefaultStallTimeout is how long a free run may make no progress before
// the watchdog reports it as deadlocked.
const DefaultStallTimeout = 5 * time.Second

// Options configure one recorded run.
type Options struct {
	// Name labels the run's goroutines in profiles: the test's name.
	Name string
	// Dir is the directory the log is written to; "" means os.TempDir().
	Dir string
	// StallTimeout bounds how long the run may make no progress (no
	// operation begun, no goroutine ended) before it is reported as
	// deadlocked and abandoned. Zero means DefaultBlockTimeout.
	StallTimeout time.Duration
	// Seed seeds the goroutines' random choices (Intn, select).
	Seed uint64
	// LockOrder watches the order in which goroutines take sim.Mutexes
	// with github.com/sasha-s/go-deadlock, which reports an inversion (a
	// potential deadlock) as the run's failure. It captures a stack at
	// every Lock, which costs far more than recording does.
	LockOrder bool
}

// Result is the outcome of a recorded run.
type Result struct {
	// Failure is the run's first failure, nil if it passed; More the
	// others.
	Failure *sched.Failure
	More    []*sched.Failure
	// Log is the path of the run's log. Remove it when done.
	Log string
	// Complete reports that every goroutine ended and the log holds the
	// whole run; an abandoned (deadlocked) run's log does not.
	Complete bool
	// Events counts the operations of the run.
	Events uint64
	// Bytes is the size of the log file.
	Bytes int64
	// Goroutines counts the run's goroutines, the root included.
	Goroutines int
	// Elapsed is the wall time of the run.
	Elapsed time.Duration
}

// LockOrder reports whether the run watches the order of locks
// (Options.LockOrder).
func (r *Session) LockOrder() bool { return r.opts.LockOrder }

// A Session is one recorded execution: a free run of the test under the Go
// scheduler, whose goroutines report to its Recorder.
type Session struct {
	rec   Recorder
	opts  Options
	label string

	mu             sync.Mutex // guards what follows
	threads        []*Thread
	locs           []*Loc
	slab           []Loc // fresh locations, allocated locSlab at a time
	failures       []*sched.Failure
	f              *os.File
	w              *bufio.Writer
	crc            hash.Hash32
	size           int64
	werr           error
	deadlockReport strings.Builder

	live       sync.WaitGroup
	exits      atomic.Uint64
	attachment atomic.Pointer[any] // a layer's state for the run (Attachment)
}

// Attachment returns the run's attachment, made by init at the first call:
// the state a layer over the recorder keeps for one run, which then lives
// and dies with it (sim maps there the addresses that atomic functions use
// to locations; a table outside the run would hold them, and every run's
// memory with them). Any goroutine of the run may call it.
func (r *Session) Attachment(init func() any) any {
	if v := r.attachment.Load(); v != nil {
		return *v
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if v := r.attachment.Load(); v != nil {
		return *v
	}
	v := init()
	r.attachment.Store(&v)
	return v
}

var runSeq atomic.Uint64

// Record runs body as the root goroutine of a free-running execution, its
// operations reported to rec, and writes the log to a new file in
// opts.Dir. It returns when every goroutine of the run has ended, or when
// the run has made no progress for opts.BlockTimeout (a deadlock: the
// blocked goroutines are abandoned and reported with their stacks).
func Record(body func(), rec Recorder, opts Options) (*Result, error) {
	if opts.StallTimeout <= 0 {
		opts.StallTimeout = DefaultStallTimeout
	}
	configureDeadlock()
	dir := opts.Dir
	if dir == "" {
		dir = os.TempDir()
	}
	f, err := os.CreateTemp(dir, "weft-"+rec.Algorithm()+"-*.log")
	if err != nil {
		return nil, fmt.Errorf("record: creating the log: %w", err)
	}
	r := &Session{rec: rec, opts: opts, label: strconv.FormatUint(runSeq.Add(1), 10), f: f,
		w: bufio.NewWriterSize(f, 64<<10), crc: crc32.NewIEEE()}
	r.writeHeader()
	start := time.Now()
	root := r.newThread(lineage.Root)
	r.live.Add(1)
	go r.goroutine(root, body)
	complete := r.wait()
	res := &Result{Complete: complete, Elapsed: time.Since(start)}
	r.mu.Lock()
	locs := append([]*Loc(nil), r.locs...)
	r.mu.Unlock()
	if complete {
		rec.Close(locs)
		for _, l := range locs {
			l.Stream.Flush()
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, t := range r.threads {
		res.Events += t.ops()
	}
	if len(r.failures) > 0 {
		res.Failure, res.More = r.failures[0], r.failures[1:]
	}
	res.Goroutines = len(r.threads)
	r.writeTrailer(complete)
	if err := r.w.Flush(); err != nil && r.werr == nil {
		r.werr = err
	}
	if err := f.Close(); err != nil && r.werr == nil {
		r.werr = err
	}
	res.Log, res.Bytes = f.Name(), r.size
	if r.werr != nil {
		os.Remove(f.Name())
		return nil, fmt.Errorf("record: writing %s: %w", f.Name(), r.werr)
	}
	return res, nil
}

func (r *Session) newThread(id string) *Thread {
	r.mu.Lock()
	defer r.mu.Unlock()
	idx := uint32(len(r.threads))
	t := &Thread{run: r, rec: r.rec, id: id, idx: idx, rng: r.opts.Seed ^ uint64(idx)*0x9e3779b97f4a7c15}
	if idx < 64 {
		t.bit = 1 << idx
	}
	t.Stream = Stream{run: r, kind: chunkThread, id: idx}
	t.reads.Prime()
	r.threads = append(r.threads, t)
	r.rec.NewThread(t)
	return t
}

// locSlab is how many locations newLoc allocates at once.
const locSlab = 32

func (r *Session) newLoc() *Loc {
	r.mu.Lock()
	if len(r.slab) == 0 {
		r.slab = make([]Loc, locSlab)
	}
	l := &r.slab[0]
	r.slab = r.slab[1:]
	l.id = uint32(len(r.locs) + 1)
	l.Stream = Stream{run: r, kind: chunkLoc, id: l.id}
	r.locs = append(r.locs, l)
	r.mu.Unlock()
	r.rec.NewLoc(l)
	return l
}

func (r *Session) exit(t *Thread) {
	t.Released()
	r.rec.ExitThread(t)
	t.Stream.Flush()
	r.exits.Add(1)
}

func (r *Session) fail(f *sched.Failure) {
	r.mu.Lock()
	r.failures = append(r.failures, f)
	r.mu.Unlock()
}

// wait waits for the run's goroutines to end, watching for a run that
// makes no progress. It reports whether they all ended.
func (r *Session) wait() bool {
	done := make(chan struct{})
	go func() { r.live.Wait(); close(done) }()
	tick := r.opts.StallTimeout / 8
	if tick > 100*time.Millisecond {
		tick = 100 * time.Millisecond
	}
	last, since := r.progress(), time.Now()
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		select {
		case <-done:
			return true
		case <-t.C:
			if p := r.progress(); p != last {
				last, since = p, time.Now()
				continue
			}
			if time.Since(since) < r.opts.StallTimeout {
				continue
			}
			r.fail(&sched.Failure{Kind: sched.Deadlock,
				Message: "the recorded run made no progress for " + r.opts.StallTimeout.String() + ": its goroutines are blocked",
				Stack:   r.stacks()})
			return false
		}
	}
}

// progress returns a number that changes whenever a goroutine of the run
// begins an operation or ends.
func (r *Session) progress() uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	p := r.exits.Load()
	for _, t := range r.threads {
		p += t.ops()
	}
	return p
}

// stacks returns the stacks of the run's live goroutines, from the
// labeled goroutine profile.
func (r *Session) stacks() string {
	var buf bytes.Buffer
	pprof.Lookup("goroutine").WriteTo(&buf, 1)
	var out strings.Builder
	for _, block := range strings.Split(buf.String(), "\n\n") {
		if strings.Contains(block, `"weft.record":"`+r.label+`"`) {
			out.WriteString(block)
			out.WriteString("\n\n")
		}
	}
	return strings.TrimSpace(out.String())
}

// The log file format. Integers are varints; the last four bytes are the
// CRC-32 (IEEE) of everything before them.
//
//	"weft log v1\n"
//	algorithm (length, bytes), test name (length, bytes)
//	chunks: kind (1 thread, 2 location), stream id, length, entries
//	0
//	threads: count, then per thread: lineage, operations, reads, read hash (8 bytes)
//	locations: count
//	complete: 0 or 1
//	CRC-32
const (
	magic       = "weft log v1\n"
	chunkEnd    = 0
	chunkThread = 1
	chunkLoc    = 2
)

func (r *Session) write(b []byte) {
	if r.werr != nil {
		return
	}
	r.crc.Write(b)
	n, err := r.w.Write(b)
	r.size += int64(n)
	r.werr = err
}

func (r *Session) writeHeader() {
	b := []byte(magic)
	b = appendString(b, r.rec.Algorithm())
	b = appendString(b, r.opts.Name)
	r.write(b)
}

func (r *Session) writeChunk(kind byte, id uint32, data []byte) {
	var hdr [1 + 2*binary.MaxVarintLen64]byte
	h := append(hdr[:0], kind)
	h = binary.AppendUvarint(h, uint64(id))
	h = binary.AppendUvarint(h, uint64(len(data)))
	r.mu.Lock()
	r.write(h)
	r.write(data)
	r.mu.Unlock()
}

// writeTrailer ends the log; r.mu is held.
func (r *Session) writeTrailer(complete bool) {
	b := []byte{chunkEnd}
	b = binary.AppendUvarint(b, uint64(len(r.threads)))
	for _, t := range r.threads {
		n, reads := t.counts()
		b = appendString(b, t.id)
		b = binary.AppendUvarint(b, n)
		b = binary.AppendUvarint(b, reads.Reads)
		b = binary.LittleEndian.AppendUint64(b, reads.Hash)
	}
	b = binary.AppendUvarint(b, uint64(len(r.locs)))
	if complete {
		b = append(b, 1)
	} else {
		b = append(b, 0)
	}
	r.write(b)
	r.write(binary.LittleEndian.AppendUint32(nil, r.crc.Sum32()))
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}
