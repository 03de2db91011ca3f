// Command weft is weft's command line.
//
//	weft test [-instrument.skip=PATTERNS] [-instrument=PATTERNS] [go test flags] [packages]
//	                           go test of unmodified packages and their dependencies, instrumented for weft
//	weft overlay [packages]    the go test command line (GOWORK and -overlay) that weft test runs
//	weft nightly [flags] [packages]
//	                           explore every weft test of the packages for a total time, going on past failures
//	weft demo [example]        find, minimize, save and replay a bug of weft's examples, with real go test runs
//	weft show [-html OUT.html] [-perfetto OUT.json] FILE...
//	                           print saved schedules, checking their format, or draw one's timeline
//	weft list [DIR...]         list the saved schedules under each DIR (default .) as a table
//	weft merge DST SRC...      merge the corpora under each SRC into DST, deduplicated by failure
//
// Tests explore with go test itself: go test -run TestX -explore.
package main

import (
	"fmt"
	"os"
)

const usage = `usage:
  weft test [-instrument.skip=PATTERNS] [-instrument=PATTERNS] [go test flags] [packages]
                                go test of packages written with plain Go: goroutines, channels,
                                sync, sync/atomic, time, context and math/rand run under weft, in
                                the tested packages and every package they import
                                (-instrument.skip leaves packages or files out, -instrument takes
                                them back; PATTERNS: see the README)
  weft overlay [flags] [packages]
                                print the go test command line weft test runs (GOWORK, -overlay)
  weft nightly [flags] [packages]
                                explore every weft test of the packages for -explore.time in
                                all (default 1h), split across the tests, going on past
                                failures; shards with -explore.shard=I/N (weft nightly -h)
  weft demo [-keep] [example]   find, minimize, save and replay a bug of weft's examples
  weft show [-html OUT.html] [-perfetto OUT.json] FILE...
                                print saved schedules, checking their format; with -html or
                                -perfetto, replay one and draw its timeline (weft show -h)
  weft list [DIR...]            list the saved schedules under each DIR (default: .) as a table
  weft merge DST SRC...         merge the corpora under each SRC (shards of a nightly run) into
                                the same paths under DST, deduplicated by schedule and failure

Tests explore with go test itself: go test -run TestX -explore (see the README).
`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	var err error
	switch cmd, args := os.Args[1], os.Args[2:]; cmd {
	case "demo":
		err = demo(args)
	case "test":
		err = testCmd(args)
	case "nightly":
		err = nightlyCmd(args)
	case "overlay":
		err = overlayCmd(args)
	case "show":
		err = show(args)
	case "list":
		err = list(args)
	case "merge":
		err = merge(args)
	case "help", "-h", "-help", "--help":
		fmt.Print(usage)
		return
	default:
		fmt.Fprintf(os.Stderr, "weft: unknown command %q\n%s", cmd, usage)
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "weft %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
}
