//go:build !unix

package explore

import "os"

// quit ends the process: without SIGQUIT, its stacks are lost.
func quit(p *os.Process) { p.Kill() }
