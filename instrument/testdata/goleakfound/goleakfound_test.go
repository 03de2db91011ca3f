package goleakfound

import (
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestNotStopped(t *testing.T) {
	defer goleak.VerifyNone(t)
	Start()
	time.Sleep(5 * time.Millisecond)
}
