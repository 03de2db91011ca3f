package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"

	"github.com/weftdev/weft/internal/workspace"
)

// goTestBoolFlags are the go test and test binary flags that take no value;
// every other flag given as "-flag value" takes the next argument.
var goTestBoolFlags = map[string]bool{
	"a": true, "n": true, "x": true, "v": true, "race": true, "msan": true, "asan": true,
	"cover": true, "short": true, "json": true, "failfast": true, "benchmem": true,
	"fullpath": true, "trimpath": true, "work": true, "i": true, "c": true,
	// weft's own, registered in the test binary (-explore.html takes a
	// value only as -explore.html=DIR):
	"explore": true, "explore.continue": true, "explore.quiet": true, "explore.html": true, "explore.strictleaks": true,
}

// testArgs is a weft test command line, split.
type testArgs struct {
	instrument []string // -instrument patterns
	skip       []string // -instrument.skip patterns
	verbose    bool     // -v: list the sites and packages left alone
	mod        string   // go's -mod flag, which weft decides on (see workspace.Config.Mod)
	goArgs     []string // flags for go test, in order
	patterns   []string // packages to test
}

func parseTestArgs(args []string) (testArgs, error) {
	var a testArgs
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if !strings.HasPrefix(arg, "-") || arg == "-" {
			a.patterns = append(a.patterns, arg)
			continue
		}
		if arg == "--" {
			a.goArgs = append(a.goArgs, args[i:]...)
			break
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(arg, "-"), "=")
		switch name {
		case "instrument", "instrument.skip", "mod", "modfile":
			if !hasValue {
				if i+1 == len(args) {
					return a, fmt.Errorf("-%s needs a value", name)
				}
				i++
				value = args[i]
			}
			switch name {
			case "instrument":
				a.instrument = append(a.instrument, splitList(value)...)
			case "instrument.skip":
				a.skip = append(a.skip, splitList(value)...)
			case "mod":
				a.mod = value
			case "modfile":
				return a, errors.New("-modfile: weft test builds in a workspace of its own (GOWORK), where go does not allow -modfile")
			}
			continue
		}
		if name == "v" && (!hasValue || value == "true") {
			a.verbose = true
		}
		a.goArgs = append(a.goArgs, arg)
		if !hasValue && !goTestBoolFlags[name] && i+1 < len(args) {
			i++
			a.goArgs = append(a.goArgs, args[i])
		}
	}
	if len(a.patterns) == 0 {
		a.patterns = []string{"."}
	}
	if a.mod == "" {
		a.mod = workspace.ModFlag(os.Getenv("GOFLAGS"))
	}
	switch a.mod {
	case "", "mod", "readonly", "vendor":
	default:
		return a, fmt.Errorf("-mod=%s: go knows mod, readonly and vendor", a.mod)
	}
	return a, nil
}

// splitList splits a comma-separated list, dropping empty elements.
func splitList(s string) []string {
	var out []string
	for _, e := range strings.Split(s, ",") {
		if e = strings.TrimSpace(e); e != "" {
			out = append(out, e)
		}
	}
	return out
}

// testCmd is weft test: go test of instrumented packages. It exits as go
// test does.
func testCmd(args []string) error {
	code, err := runTest("", args, os.Stdout, os.Stderr)
	if err != nil {
		return err
	}
	if code != 0 {
		os.Exit(code)
	}
	return nil
}

// runTest runs weft test in dir (the current directory if empty) and
// returns go test's exit code. The summary of what was instrumented ends
// the output, on stderr (stdout may be go test -json's).
func runTest(dir string, args []string, stdout, stderr io.Writer) (int, error) {
	a, err := parseTestArgs(args)
	if err != nil {
		return 0, err
	}
	s, err := prepare(dir, a)
	if err != nil {
		return 0, err
	}
	if a.verbose {
		s.list(stderr)
	}
	// The packages go before the flags: go test cannot tell whether a flag
	// it does not know (-explore) takes a value.
	cmd := exec.Command("go", append(append([]string{"test", "-overlay=" + s.Overlay}, a.patterns...), a.goArgs...)...)
	cmd.Dir = dir
	cmd.Env = testEnv(os.Environ(), s.Work)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, stdout, stderr
	code := 0
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			return 0, err
		}
		code = exit.ExitCode()
	}
	s.summarize(stderr)
	return code, nil
}

// overlayCmd is weft overlay: it prints the go test command line that runs
// the instrumented packages: the go.work to use and the overlay file.
func overlayCmd(args []string) error {
	a, err := parseTestArgs(args)
	if err != nil {
		return err
	}
	s, err := prepare("", a)
	if err != nil {
		return err
	}
	if a.verbose {
		s.list(os.Stderr)
	}
	fmt.Printf("GOWORK=%s go test -overlay=%s\n", s.Work, s.Overlay)
	return nil
}

// testEnv returns the environment of weft test's go test: env with the
// workspace's GOWORK and GOFLAGS (workspace.Env); WEFT_COMMAND, so that
// the replay commands in reports say weft test; and env's GOWORK and
// GOFLAGS as WEFT_USER_GOWORK and WEFT_USER_GOFLAGS, which weft's testing
// package gives back to the test's process, as go test would leave them
// (a test that runs the go command must not find weft's workspace).
func testEnv(env []string, work string) []string {
	var gowork, goflags string
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "GOWORK="); ok {
			gowork = v
		} else if v, ok := strings.CutPrefix(kv, "GOFLAGS="); ok {
			goflags = v
		}
	}
	return append(workspace.Env(env, work), "WEFT_COMMAND=weft test",
		"WEFT_USER_GOWORK="+gowork, "WEFT_USER_GOFLAGS="+goflags)
}
