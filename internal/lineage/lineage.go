// Package lineage names the goroutines of an execution by lineage: the
// root is "0", and the k-th goroutine a goroutine starts is its name, a
// dot and k ("0.2" is the root's second child, "0.2.1" that one's first).
// The controller (sched) and the recorders (record) name goroutines with
// it, so that a recorded goroutine and its replayed twin, and a saved
// schedule's goroutines from one run to the next, have the same names.
package lineage

import "strconv"

// Root is the root goroutine's name.
const Root = "0"

// Children counts the goroutines one goroutine has started; the zero
// value is a goroutine that started none.
type Children struct {
	n int
}

// Next returns the name of the next child of the goroutine named parent,
// whose Children c is, and counts it.
//
// Under the controller, Next runs on whichever goroutine holds the baton
// (a timer's goroutine is its setter's child, started by the goroutine
// that moves the clock), with the handoffs hidden from the race detector:
// it is not instrumented, as the controller's own state is not.
//
//go:norace
func (c *Children) Next(parent string) string {
	c.n++
	if parent == Root && c.n <= len(rootChildren) {
		return rootChildren[c.n-1]
	}
	return parent + "." + strconv.Itoa(c.n)
}

// rootChildren are the names of the root's first children, "0.1" to
// "0.64", made once: every execution starts some, and a name made on the
// spot costs an allocation.
var rootChildren = func() [64]string {
	var ids [64]string
	for i := range ids {
		ids[i] = Root + "." + strconv.Itoa(i+1)
	}
	return ids
}()
