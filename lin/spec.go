package lin

import (
	"fmt"
	"reflect"

	"pgregory.net/rapid"
)

// A Spec declares a concurrent object for Check: how to make one, the
// operations to call on it, and the sequential model they must agree
// with. O is the object's type, S the model's state.
type Spec[O, S any] struct {
	// New makes the object under test, afresh for every execution.
	New func() O
	// Init returns the model's initial state.
	Init func() S
	// Ops are the operations scenarios are made of (Op, Op0). The first
	// is the one a shrunk scenario favours.
	Ops []Operation[O, S]
	// Equal compares two model states; reflect.DeepEqual if nil. The
	// checker uses it to recognize a state it has been in before.
	Equal func(a, b S) bool

	// The shape of a scenario: operations run by the root goroutine
	// before the others start (at most InitOps, default 2), at most
	// Goroutines goroutines (default 3) of at least one and at most
	// OpsPerGoroutine operations each (default 3), and operations run
	// after they have all returned (at most FinalOps, default 2). Set a
	// field to -1 for none.
	InitOps, Goroutines, OpsPerGoroutine, FinalOps int
}

// An Operation is one operation of a Spec, made by Op or Op0.
type Operation[O, S any] struct {
	name string
	arg  func(r *rapid.T, label string) any // nil: no argument
	run  func(o O, arg any) any
	step func(s S, arg any) (S, any)
}

// Op declares an operation that takes an argument, drawn from arg: run
// calls it on the object, step on the model, which returns the state after
// it and the result it must have. step must not modify the state it is
// given (the checker steps one state along several orders): copy a slice or
// a map before changing it. Results are compared with reflect.DeepEqual.
//
//	lin.Op("Push", rapid.IntRange(0, 9), (*Stack).Push,
//		func(s []int, v int) ([]int, bool) { return append(s[:len(s):len(s)], v), true })
func Op[O, S, A, R any](name string, arg *rapid.Generator[A], run func(O, A) R, step func(S, A) (S, R)) Operation[O, S] {
	return Operation[O, S]{
		name: name,
		arg:  func(r *rapid.T, label string) any { return arg.Draw(r, label) },
		run:  func(o O, a any) any { return run(o, a.(A)) },
		step: func(s S, a any) (S, any) { return step(s, a.(A)) },
	}
}

// Op0 declares an operation without an argument (see Op).
func Op0[O, S, R any](name string, run func(O) R, step func(S) (S, R)) Operation[O, S] {
	return Operation[O, S]{
		name: name,
		run:  func(o O, _ any) any { return run(o) },
		step: func(s S, _ any) (S, any) { return step(s) },
	}
}

// shape returns the scenario bounds of the spec, defaults applied.
func (sp *Spec[O, S]) shape() shape {
	pick := func(v, def int) int {
		switch {
		case v < 0:
			return 0
		case v == 0:
			return def
		}
		return v
	}
	return shape{
		init:       pick(sp.InitOps, 2),
		goroutines: max(pick(sp.Goroutines, 3), 1),
		perG:       max(pick(sp.OpsPerGoroutine, 3), 1),
		final:      pick(sp.FinalOps, 2),
	}
}

type shape struct{ init, goroutines, perG, final int }

// validate reports what is wrong with the spec.
func (sp *Spec[O, S]) validate() error {
	switch {
	case sp.New == nil:
		return fmt.Errorf("lin: Spec.New is nil")
	case sp.Init == nil:
		return fmt.Errorf("lin: Spec.Init is nil")
	case len(sp.Ops) == 0:
		return fmt.Errorf("lin: Spec.Ops is empty")
	}
	for i, op := range sp.Ops {
		if op.run == nil || op.name == "" {
			return fmt.Errorf("lin: Spec.Ops[%d] was not made by Op or Op0", i)
		}
	}
	return nil
}

func (sp *Spec[O, S]) equal(a, b S) bool {
	if sp.Equal != nil {
		return sp.Equal(a, b)
	}
	return reflect.DeepEqual(a, b)
}
