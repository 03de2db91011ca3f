package sim

// OnceFunc, OnceValue and OnceValues are sync's, built on Once: under
// control, f runs once per execution (a Once's state starts afresh in each
// execution that uses it), the first call of each execution is the Once.Do
// event, and the other callers wait for f as Do's callers do.
//
// Unlike sync's, the returned functions keep f alive after it ran: a later
// execution runs it again.

// OnceFunc returns a function that invokes f only once. The returned
// function may be called concurrently.
//
// If f panics, the returned function will panic with the same value on
// every call.
func OnceFunc(f func()) func() {
	// A struct, so that there is a single heap allocation.
	d := struct {
		once  Once
		valid bool
		p     any
	}{}
	return func() {
		d.once.Do(func() {
			// Reset what an earlier execution left.
			d.valid, d.p = false, nil
			defer func() {
				d.p = recover()
				if !d.valid {
					// Re-panic at once, so that the first call gets a
					// complete stack trace into f.
					panic(d.p)
				}
			}()
			f()
			d.valid = true // only if f does not panic
		})
		if !d.valid {
			panic(d.p)
		}
	}
}

// OnceValue returns a function that invokes f only once and returns the
// value returned by f. The returned function may be called concurrently.
//
// If f panics, the returned function will panic with the same value on
// every call.
func OnceValue[T any](f func() T) func() T {
	d := struct {
		once   Once
		valid  bool
		p      any
		result T
	}{}
	return func() T {
		d.once.Do(func() {
			var zero T
			d.valid, d.p, d.result = false, nil, zero
			defer func() {
				d.p = recover()
				if !d.valid {
					panic(d.p)
				}
			}()
			d.result = f()
			d.valid = true
		})
		if !d.valid {
			panic(d.p)
		}
		return d.result
	}
}

// OnceValues returns a function that invokes f only once and returns the
// values returned by f. The returned function may be called concurrently.
//
// If f panics, the returned function will panic with the same value on
// every call.
func OnceValues[T1, T2 any](f func() (T1, T2)) func() (T1, T2) {
	d := struct {
		once  Once
		valid bool
		p     any
		r1    T1
		r2    T2
	}{}
	return func() (T1, T2) {
		d.once.Do(func() {
			var (
				z1 T1
				z2 T2
			)
			d.valid, d.p, d.r1, d.r2 = false, nil, z1, z2
			defer func() {
				d.p = recover()
				if !d.valid {
					panic(d.p)
				}
			}()
			d.r1, d.r2 = f()
			d.valid = true
		})
		if !d.valid {
			panic(d.p)
		}
		return d.r1, d.r2
	}
}
