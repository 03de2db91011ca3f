// Package funcany is reduced from gocron's NewTask: a function and its
// arguments handed over as anys, checked and called through reflect. The
// argument, a channel that reaches reflect, stays a Go channel, and so must
// the function's parameter, or reflect finds their types differ.
package funcany

import (
	"errors"
	"reflect"
)

// Call calls fn with args, after checking their types as gocron does.
func Call(fn any, args ...any) error {
	fv := reflect.ValueOf(fn)
	if fv.Type().NumIn() != len(args) {
		return errors.New("wrong number of arguments")
	}
	in := make([]reflect.Value, len(args))
	for i, a := range args {
		if reflect.TypeOf(a) != fv.Type().In(i) {
			return errors.New("wrong type of argument")
		}
		in[i] = reflect.ValueOf(a)
	}
	fv.Call(in)
	return nil
}
