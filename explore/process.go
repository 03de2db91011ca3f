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
// the worker says hello when it is ready, then answers every Chunk with a
// ChunkResult, and in between sends a heartbeat every second, so that a
// worker that stops answering is known to hang.

// message is what a worker sends.
type message struct {
	Hello     bool
	Heartbeat bool
	Result    *ChunkResult
}

const heartbeat = time.Second

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
	enc, dec := gob.NewEncoder(out), gob.NewDecoder(in)
	var mu sync.Mutex
	send := func(m message) error {
		mu.Lock()
		defer mu.Unlock()
		return enc.Encode(m)
	}
	if err := send(message{Hello: true}); err != nil {
		return fmt.Errorf("explore: worker: saying hello: %w", err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	defer wg.Wait()
	defer close(stop)
	wg.Go(func() {
		tick := time.NewTicker(heartbeat)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				if send(message{Heartbeat: true}) != nil {
					return
				}
			}
		}
	})
	// The test's epoch was taken in the calling process, maybe before this
	// one's package initialization: a time.Now taken then must not be
	// later than the virtual clock (see sched.Options.Epoch).
	started := time.Now()
	for {
		var c Chunk
		if err := dec.Decode(&c); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("explore: worker: reading a chunk: %w", err)
		}
		if c.Plan.Options.Epoch.Before(started) {
			c.Plan.Options.Epoch = started
		}
		r := runChunk(body, c, nil)
		if err := send(message{Result: &r}); err != nil {
			return fmt.Errorf("explore: worker: sending a result: %w", err)
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
	exited chan struct{}
	err    error // the process's exit, once exited is closed

	closeOnce sync.Once
}

// StartProcess starts cmd as a worker process, which must call Serve on
// WorkerPipes. A worker that sends nothing for hang (it sends a heartbeat
// every second) is taken to hang: it is sent SIGQUIT, so that the Go
// runtime prints every goroutine's stack, and the chunk it was running
// fails with what it printed.
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
	if !p.ready {
		p.fromW.SetReadDeadline(time.Now().Add(readyTimeout))
		var m message
		if err := p.dec.Decode(&m); err != nil || !m.Hello {
			if errors.Is(err, os.ErrDeadlineExceeded) {
				quit(p.cmd.Process)
				p.wait(5 * time.Second)
				return ChunkResult{}, fmt.Errorf("%w: %w", errUnready, &WorkerError{Pid: p.cmd.Process.Pid, Doing: "before it was ready", Hung: true,
					Why: fmt.Sprintf("it did not reach the exploration in %v", readyTimeout), Output: p.out.String()})
			}
			return ChunkResult{}, fmt.Errorf("%w: %w", errUnready, p.failed("before it was ready", err))
		}
		p.ready = true
	}
	if err := p.enc.Encode(c); err != nil {
		return ChunkResult{}, p.failed("running "+c.String(), err)
	}
	for {
		p.fromW.SetReadDeadline(time.Now().Add(p.hang))
		var m message
		if err := p.dec.Decode(&m); err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) {
				return ChunkResult{}, p.hung(c)
			}
			return ChunkResult{}, p.failed("running "+c.String(), err)
		}
		if m.Result != nil {
			return *m.Result, nil
		}
	}
}

// A WorkerError is a worker process that died or hung.
type WorkerError struct {
	Pid    int
	Doing  string // what it was doing: "running execution 12"
	Why    string // "exit status 2", "nothing from it for 17s"
	Output string // what it printed: its stacks, for one that hung
	Hung   bool
}

func (e *WorkerError) Error() string {
	what := "died"
	if e.Hung {
		what = "hung"
	}
	return fmt.Sprintf("worker process %d %s %s (%s); it printed:\n%s", e.Pid, what, e.Doing, e.Why, e.Output)
}

// hung makes a worker that stopped answering print its stacks, ends it,
// and returns the error that reports it.
func (p *process) hung(c Chunk) error {
	quit(p.cmd.Process)
	p.wait(5 * time.Second)
	return &WorkerError{Pid: p.cmd.Process.Pid, Doing: "running " + c.String(),
		Why: fmt.Sprintf("nothing from it for %v", p.hang), Output: p.out.String(), Hung: true}
}

// failed ends a worker whose pipe broke, and returns the error that reports
// it with what it printed.
func (p *process) failed(doing string, err error) error {
	p.wait(5 * time.Second)
	why := "exited"
	if p.err != nil {
		why = p.err.Error()
	} else if err != nil && !errors.Is(err, io.EOF) {
		why = err.Error()
	}
	return &WorkerError{Pid: p.cmd.Process.Pid, Doing: doing, Why: why, Output: p.out.String()}
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
}

const (
	headSize = 24 << 10
	tailSize = 8 << 10
)

func (o *output) Write(b []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
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
