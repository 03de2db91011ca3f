//go:build !unix

package main

import "syscall"

// childAttr: elsewhere than unix, a test process of weft nightly shares its
// console; Ctrl-C reaches both.
func childAttr() *syscall.SysProcAttr { return nil }
