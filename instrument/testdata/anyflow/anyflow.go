// Package anyflow is reduced from panjf2000/ants' tests: a channel made
// here goes to another package as an any (instrpool's Invoke and Box) and
// comes back to a function of this package, given to that package as a
// function value, or to this package's code, which asserts its type. The
// channel and the assertions keep one representation: Go's, since the
// interfaces reach fmt.
package anyflow

// wait blocks until the channel its argument holds is closed.
func wait(arg any) {
	<-arg.(chan struct{})
}

// waitSwitch is wait with a type switch: a channel that is not the type
// its case spells would go to the default.
func waitSwitch(arg any) {
	switch c := arg.(type) {
	case chan struct{}:
		<-c
	case func():
		c()
	default:
		panic("anyflow: not a channel")
	}
}
