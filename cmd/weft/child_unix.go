//go:build unix && !linux

package main

import "syscall"

// childAttr puts a test process of weft nightly in a process group of its
// own: a terminal's Ctrl-C reaches it once, passed on by weft nightly.
func childAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
