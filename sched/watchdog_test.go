//go:build unix

package sched_test

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/weftdev/weft/explore"
	"github.com/weftdev/weft/sched"
)

// stoppedEnv marks the child process of TestStoppedProcessIsNotBlocked.
const stoppedEnv = "WEFT_TEST_STOPPED_CHILD"

// TestStoppedProcessIsNotBlocked stops a process whose execution waits on a
// Go channel for a value from its standard input, for longer than the block
// timeout, and sends the value as soon as the process goes on: the time it
// was stopped is nobody's fault, and the execution must end without a
// Blocked failure. A loaded machine that does not run the process for a
// while is the same case.
func TestStoppedProcessIsNotBlocked(t *testing.T) {
	if os.Getenv(stoppedEnv) != "" {
		stoppedChild()
		return
	}
	if testing.Short() {
		t.Skip("stops a process for 2 s")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestStoppedProcessIsNotBlocked$")
	cmd.Env = append(os.Environ(), stoppedEnv+"=1")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(out)
	var log strings.Builder
	for lines.Scan() && lines.Text() != "waiting" {
		log.WriteString(lines.Text() + "\n")
	}
	time.Sleep(400 * time.Millisecond) // the watchdog sees it blocked
	if err := cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second) // twice the block timeout
	if err := cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	io.WriteString(in, "go\n")
	in.Close()
	for lines.Scan() {
		log.WriteString(lines.Text() + "\n")
	}
	if err := cmd.Wait(); err != nil || !strings.Contains(log.String(), "execution passed") {
		t.Fatalf("the stopped process: %v\n%s", err, log.String())
	}
}

// stoppedChild runs an execution whose goroutine waits on a Go channel for
// a line of standard input, with a block timeout of a second.
func stoppedChild() {
	outside := make(chan string)
	go func() {
		line, _ := bufio.NewReader(os.Stdin).ReadString('\n')
		outside <- line
	}()
	r := sched.Run(func() {
		os.Stdout.WriteString("waiting\n")
		<-outside
		sched.Current().Step(opWork, 0, nil)
	}, explore.RandomWalk(1), sched.Options{BlockTimeout: time.Second})
	if r.Failure != nil {
		os.Stdout.WriteString("failure: " + r.Failure.Summary() + "\n")
		return
	}
	os.Stdout.WriteString("execution passed\n")
}

// TestChildProcessIsNotBlocked runs an execution whose goroutine waits for
// a child process (a test that runs go build) five times as long as the
// block timeout: the child runs, and the execution must end without a
// Blocked failure (go.uber.org/atomic's TestNocmpIntegration).
func TestChildProcessIsNotBlocked(t *testing.T) {
	var err error
	r := sched.Run(func() {
		err = exec.Command("sleep", "0.5").Run()
		sched.Current().Step(opWork, 0, nil)
	}, explore.RandomWalk(1), sched.Options{BlockTimeout: 100 * time.Millisecond})
	if r.Failure != nil {
		t.Fatalf("waiting for a child process: %s", r.Failure.Summary())
	}
	if err != nil {
		t.Fatalf("the child process: %v", err)
	}
}
