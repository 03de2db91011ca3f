// Package reflectchan receives, sends and closes through reflect.Value's
// channel methods, as eapache/channels' Wrap and Unwrap do: v.Recv(),
// v.Send(x), v.Close() (and TryRecv, TrySend) become sim.ReflectRecv(v),
// ..., which wait under control as sim.ReflectSelect does, where reflect's
// methods blocked outside weft's control.
package reflectchan

import "reflect"

// Wrap hands what typed channel ch receives on a channel of any.
func Wrap(ch any) <-chan any {
	out := make(chan any)
	go func() {
		v := reflect.ValueOf(ch)
		for {
			x, ok := v.Recv()
			if !ok {
				close(out)
				return
			}
			out <- x.Interface()
		}
	}()
	return out
}

// Unwrap sends what in receives on typed channel out, then closes it.
func Unwrap(in <-chan any, out any) {
	go func() {
		v := reflect.ValueOf(out)
		for x := range in {
			v.Send(reflect.ValueOf(x))
		}
		v.Close()
	}()
}

// Drain receives without waiting what ch holds, through a pointer.
func Drain(ch any) (n int) {
	v := reflect.ValueOf(ch)
	p := &v
	for {
		if x, _ := p.TryRecv(); !x.IsValid() {
			return n
		}
		n++
	}
}

// Offer sends x on ch if it can without waiting.
func Offer(ch, x any) bool {
	return reflect.ValueOf(ch).TrySend(reflect.ValueOf(x))
}
