// Package lib is code weft does not instrument: a context handed through
// it comes back with the values it held.
package lib

import "context"

// Carry returns ctx as it is.
func Carry(ctx context.Context) context.Context { return ctx }
