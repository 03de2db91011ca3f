package main

import "syscall"

// childAttr puts a test process of weft nightly in a process group of its
// own (a terminal's Ctrl-C reaches it once, passed on by weft nightly), and
// has it sent SIGTERM if weft nightly dies first: it then saves what it
// found and ends.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}
