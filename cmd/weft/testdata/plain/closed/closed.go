// Package closed sends on a closed channel: a producer keeps sending after
// the consumer closed the channel to stop it.
package closed

// Pipeline sends n values on out, stopping early when stop is closed.
func Pipeline(out chan int, stop chan struct{}, n int, fixed bool) {
	for i := range n {
		if fixed {
			select {
			case out <- i:
			case <-stop:
				return
			}
			continue
		}
		select {
		case <-stop:
			return
		default:
		}
		out <- i
	}
	close(out)
}
