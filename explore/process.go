package explore

import (
	"bytes"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"
)

// Worker processes. The coordinator (the test process) starts a worker as
// Go's fuzzing does: the test binary again, running the same test, which
// calls Serve instead of exploring. Requests go down one pipe (the worker's
// file descriptor 3), replies come up another (descriptor 4), gob-encoded:
// the worker says hello when it is ready, then answers every request (a
// numbered Chunk) with its ChunkResult, and in between sends a heartbeat
// every second that names the request it runs. A worker that sends
// nothing hangs; one whose heartbeats name another request than the one
// it was sent has lost it: the coordinator gives up on either.

// request is what the coordinator sends: a chunk, numbered from 1.
type request struct {
	Seq   int
	Chunk Chunk
}

// message is what a worker sends.
type message struct {
	Hello     bool
	Heartbeat bool
	// Running is the Seq of the request the worker runs, 0 if none: in
	// heartbeats.
	Running int
	// Seq is the request Result answers.
	Seq    int
	Result *ChunkResult
}

const heartbeat = time.Second

// lostAfter is how long after a request was sent the worker's heartbeats
// may still name another one (half the hang time if shorter): a request
// takes microseconds down the pipe.
const lostAfter = 5 * heartbeat

// readyTimeout bounds the time a worker process takes to reach Serve: its
// test's setup, before it calls Check, runs again there. Past it, the
// calling process runs the executions itself.
const readyTimeout = 20 * time.Second

// errUnready marks the error of a worker that died before it was ready.
var errUnready = errors.New("explore: the worker process never reached the exploration")

// Serve is the worker side of StartProcess: it reads chunks from in, runs
// their executions of body one at a time in the calling process, and
// writes their results to out, until in ends. Worker processes call it
// with the pipes StartProcess gives them (WorkerPipes).
func Serve(in io.Reader, out io.Writer, body func()) error {
	s := &server{enc: gob.NewEncoder(out)}
	if err := s.send(message{Hello: true}, 0); err != nil {
		return fmt.Errorf("explore: worker: saying hello: %w", err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	defer wg.Wait()
	defer close(stop)
	wg.Go(func() { s.beat(stop) })
	dec := gob.NewDecoder(in)
	// The test's epoch was taken in the calling process, maybe before this
	// one's package initialization: a time.Now taken then must not be
	// later than the virtual clock (see sched.Options.Epoch).
	started := time.Now()
	for {
		var req request
		if err := dec.Decode(&req); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("explore: worker: reading a chunk: %w", err)
		}
		if c := &req.Chunk; c.Plan.Options.Epoch.Before(started) {
			c.Plan.Options.Epoch = started
		}
		s.start(req.Seq)
		r := runChunk(body, req.Chunk, nil)
		if err := s.send(message{Seq: req.Seq, Result: &r}, 0); err != nil {
			return fmt.Errorf("explore: worker: sending the result of %v: %w", req.Chunk, err)
		}
	}
}

// server is the worker's side of the pipes: one encoder for results and
// heartbeats, and the request it runs, which heartbeats name.
type server struct {
	mu      sync.Mutex
	enc     *gob.Encoder
	running int // the Seq of the request being run, 0 between two
}

// start notes that the worker runs request seq.
func (s *server) start(seq int) {
	s.mu.Lock()
	s.running = seq
	s.mu.Unlock()
}

// send sends m, and then notes that the worker runs request running: a
// heartbeat never names a request already answered.
func (s *server) send(m message, running int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.running = running
	return s.enc.Encode(m)
}

// beat sends a heartbeat every second until stop is closed.
func (s *server) beat(stop <-chan struct{}) {
	tick := time.NewTicker(heartbeat)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return
		case <-tick.C:
		}
		s.mu.Lock()
		err := s.enc.Encode(message{Heartbeat: true, Running: s.running})
		s.mu.Unlock()
		if err != nil {
			return
		}
	}
}

// WorkerPipes returns the pipes StartProcess gives a worker process.
func WorkerPipes() (in io.ReadCloser, out io.WriteCloser) {
	return os.NewFile(3, "weft-requests"), os.NewFile(4, "weft-results")
}

// process is the coordinator's side of a worker process.
type process struct {
	cmd    *exec.Cmd
	out    *output
	hang   time.Duration
	toW    *os.File
	fromW  *os.File
	enc    *gob.Encoder
	dec    *gob.Decoder
	ready  bool
	seq    int // the last request sent
	exited chan struct{}
	err    error // the process's exit, once exited is closed

	closeOnce sync.Once
}

// StartProcess starts cmd as a worker process, which must call Serve on
// WorkerPipes. A worker is taken to hang if it sends nothing for hang (it
// sends a heartbeat every second), if no result comes hang past the
// chunk's deadline, or if its heartbeats still name another chunk a few
// seconds after it was sent one (5s, or hang/2 if shorter): it is sent
// SIGQUIT, so that the Go runtime prints every goroutine's stack, and Run
// fails with what it printed (a WorkerError with Hung set).
func StartProcess(cmd *exec.Cmd, hang time.Duration) (Worker, error) {
	toR, toW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("explore: starting a worker: %w", err)
	}
	fromR, fromW, err := os.Pipe()
	if err != nil {
		toR.Close()
		toW.Close()
		return nil, fmt.Errorf("explore: starting a worker: %w", err)
	}
	p := &process{cmd: cmd, out: &output{}, hang: hang, toW: toW, fromW: fromR, exited: make(chan struct{})}
	cmd.ExtraFiles = []*os.File{toR, fromW}
	cmd.Stdout, cmd.Stderr = p.out, p.out
	err = cmd.Start()
	toR.Close()
	fromW.Close()
	if err != nil {
		toW.Close()
		fromR.Close()
		return nil, fmt.Errorf("explore: starting a worker: %w", err)
	}
	go func() {
		p.err = cmd.Wait()
		close(p.exited)
	}()
	p.enc, p.dec = gob.NewEncoder(toW), gob.NewDecoder(fromR)
	return p, nil
}

func (p *process) Run(c Chunk) (ChunkResult, error) {
	if err := p.hello(); err != nil {
		return ChunkResult{}, err
	}
	p.seq++
	sent := time.Now()
	if err := p.enc.Encode(request{Seq: p.seq, Chunk: c}); err != nil {
		return ChunkResult{}, p.failed("running "+c.String(), err)
	}
	// The worker stops at the chunk's deadline, once its execution then
	// ends: its result comes at most the hang time later.
	var giveUp time.Time
	if !c.Deadline.IsZero() {
		giveUp = c.Deadline.Add(p.hang)
	}
	for {
		wait := time.Now().Add(p.hang)
		if !giveUp.IsZero() && giveUp.Before(wait) {
			wait = giveUp
		}
		p.fromW.SetReadDeadline(wait)
		var m message
		if err := p.dec.Decode(&m); err != nil {
			switch {
			case !errors.Is(err, os.ErrDeadlineExceeded):
				return ChunkResult{}, p.failed("running "+c.String(), err)
			case wait.Equal(giveUp):
				return ChunkResult{}, p.hung(c, fmt.Sprintf("no result %v past the chunk's deadline", p.hang))
			}
			return ChunkResult{}, p.hung(c, fmt.Sprintf("nothing from it for %v", p.hang))
		}
		switch {
		case m.Result != nil && m.Seq == p.seq:
			return *m.Result, nil
		case m.Result != nil:
			return ChunkResult{}, p.hung(c, fmt.Sprintf("it answered request %d, not %d", m.Seq, p.seq))
		case m.Heartbeat && m.Running != p.seq && time.Since(sent) > min(lostAfter, p.hang/2):
			what := "no request"
			if m.Running != 0 {
				what = fmt.Sprintf("request %d", m.Running)
			}
			return ChunkResult{}, p.hung(c, fmt.Sprintf("its heartbeats name %s, not %d, %v after it was sent", what, p.seq, time.Since(sent).Round(time.Second)))
		}
	}
}

// hello waits for the worker to be ready, the first time.
func (p *process) hello() error {
	if p.ready {
		return nil
	}
	p.fromW.SetReadDeadline(time.Now().Add(readyTimeout))
	var m message
	if err := p.dec.Decode(&m); err != nil || !m.Hello {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			quit(p.cmd.Process)
			p.wait(5 * time.Second)
			return fmt.Errorf("%w: %w", errUnready, &WorkerError{Pid: p.cmd.Process.Pid, Doing: "before it was ready", Hung: true,
				Why: fmt.Sprintf("it did not reach the exploration in %v", readyTimeout), Output: p.out.String()})
		}
		return fmt.Errorf("%w: %w", errUnready, p.failed("before it was ready", err))
	}
	p.ready = true
	return nil
}

// A WorkerError is a worker process that died or hung.
type WorkerError struct {
	Pid    int
	Doing  string // what it was doing: "running execution 12"
	Why    string // "exit status 2", "nothing from it for 17s"
	Output string // what it printed: its stacks, for one that hung
	// Hung is set for a worker that stopped answering (weft sent it
	// SIGQUIT, for its stacks) or was sent SIGQUIT by someone else, as a
	// hung process is: its executions are not to blame.
	Hung bool
}

func (e *WorkerError) Error() string {
	what := "died"
	if e.Hung {
		what = "hung"
	}
	return fmt.Sprintf("worker process %d %s %s (%s); it printed:\n%s", e.Pid, what, e.Doing, e.Why, e.Output)
}

// hung makes a worker that stopped working on c print its stacks, ends it,
// and returns the error that reports it.
func (p *process) hung(c Chunk, why string) error {
	quit(p.cmd.Process)
	p.wait(5 * time.Second)
	return &WorkerError{Pid: p.cmd.Process.Pid, Doing: "running " + c.String(), Why: why, Output: p.out.String(), Hung: true}
}

// failed ends a worker whose pipe broke, and returns the error that reports
// it with what it printed. A worker that printed the stacks of a SIGQUIT
// was ended by someone who found it hung.
func (p *process) failed(doing string, err error) error {
	p.wait(5 * time.Second)
	why := "exited"
	if p.err != nil {
		why = p.err.Error()
	} else if err != nil && !errors.Is(err, io.EOF) {
		why = err.Error()
	}
	quitted := p.out.sawSigquit()
	if quitted {
		why = "it was sent SIGQUIT: " + why
	}
	return &WorkerError{Pid: p.cmd.Process.Pid, Doing: doing, Why: why, Output: p.out.String(), Hung: quitted}
}

// wait waits for the process to exit, and kills it after d.
func (p *process) wait(d time.Duration) {
	select {
	case <-p.exited:
	case <-time.After(d):
		p.cmd.Process.Kill()
		<-p.exited
	}
}

// Close ends the worker: its requests end, so that it returns from Serve
// and its test ends as a test does, cleanups included; if it has not ended
// a few seconds later, it is killed.
func (p *process) Close() error {
	p.closeOnce.Do(func() {
		p.toW.Close()
		p.wait(5 * time.Second)
		p.fromW.Close()
	})
	return nil
}

// output keeps what a worker prints: the beginning, where a panic's
// message and the first stacks are, and the end.
type output struct {
	mu   sync.Mutex
	head []byte
	tail []byte
	cut  int // bytes dropped between head and tail
	// line is the start of the last line written, while it is short;
	// sigquit is set once a line was the runtime's "SIGQUIT: quit".
	line    []byte
	sigquit bool
}

// sigquitLine is the line the Go runtime prints before the stacks of a
// process sent SIGQUIT.
var sigquitLine = []byte("SIGQUIT: quit")

const (
	headSize = 24 << 10
	tailSize = 8 << 10
)

func (o *output) Write(b []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.scan(b)
	n := len(b)
	if room := headSize - len(o.head); room > 0 {
		k := min(room, len(b))
		o.head = append(o.head, b[:k]...)
		b = b[k:]
	}
	o.tail = append(o.tail, b...)
	if extra := len(o.tail) - tailSize; extra > 0 {
		o.cut += extra
		o.tail = append(o.tail[:0], o.tail[extra:]...)
	}
	return n, nil
}

func (o *output) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	var b bytes.Buffer
	b.Write(o.head)
	if o.cut > 0 {
		fmt.Fprintf(&b, "\n[... %d bytes ...]\n", o.cut)
	}
	b.Write(o.tail)
	return string(bytes.TrimRight(b.Bytes(), "\n"))
}

// scan watches the lines of b for sigquitLine.
func (o *output) scan(b []byte) {
	for len(b) > 0 && !o.sigquit {
		text, rest, ended := bytes.Cut(b, []byte("\n"))
		if len(o.line) <= len(sigquitLine) {
			o.line = append(o.line, text[:min(len(text), len(sigquitLine)+1)]...)
		}
		if !ended {
			return
		}
		o.sigquit = bytes.Equal(o.line, sigquitLine)
		o.line, b = o.line[:0], rest
	}
}

// sawSigquit reports whether the process printed the stacks of a SIGQUIT.
func (o *output) sawSigquit() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.sigquit
}
