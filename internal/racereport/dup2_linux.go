package racereport

import (
	"os"
	"syscall"
)

func dup2(f *os.File, fd int) error { return syscall.Dup3(int(f.Fd()), fd, 0) }
