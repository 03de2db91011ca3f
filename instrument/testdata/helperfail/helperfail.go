// Package helperfail has a race that only some schedules show.
package helperfail

// Counter counts without a lock.
type Counter struct{ n int }

// Inc increments in two steps, with a scheduling point between them.
func (c *Counter) Inc(step chan struct{}) {
	n := c.n
	step <- struct{}{}
	c.n = n + 1
}
