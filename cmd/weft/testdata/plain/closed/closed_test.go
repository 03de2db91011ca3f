package closed

import "testing"

func run(fixed bool) {
	out := make(chan int, 1)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		Pipeline(out, stop, 3, fixed)
		close(done)
	}()
	<-out
	close(stop)
	if !fixed {
		close(out) // the consumer closes to stop the producer: wrong
	}
	<-done
}

func TestBug(t *testing.T)   { run(false) }
func TestFixed(t *testing.T) { run(true) }
