package timerpool

import (
	"testing"
	"time"
)

func TestTimeout(t *testing.T) {
	if Send(make(chan int), 1, time.Second) {
		t.Fatal("sent to nobody")
	}
}
