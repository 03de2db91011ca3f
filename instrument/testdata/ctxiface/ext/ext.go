// Package ext is code weft does not instrument.
package ext

import "context"

// Do calls f with a context derived from ctx.
func Do(ctx context.Context, f func(context.Context)) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	f(ctx)
}
