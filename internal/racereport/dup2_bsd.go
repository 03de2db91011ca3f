//go:build unix && !linux && !solaris

package racereport

import (
	"os"
	"syscall"
)

func dup2(f *os.File, fd int) error { return syscall.Dup2(int(f.Fd()), fd) }
