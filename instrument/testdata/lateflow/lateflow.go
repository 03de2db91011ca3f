// Package lateflow is reduced from alitto/pond: a generic task group
// returns its future's channel through an interface, and the tests hand
// that channel to fmt, so the channel is Go's in both packages. The decision
// about instrfut's Done is taken while lateflow is rewritten, after
// instrfut was; lateflow is checked again once instrfut is rewritten
// anew, instead of being left whole.
package lateflow

import "example.com/lateflow/instrfut"

type Task interface {
	Done() <-chan struct{}
}

type group[O any] struct {
	f *instrfut.F[O]
}

func (g *group[O]) Done() <-chan struct{} { return g.f.Done(1) }

func New[O any]() (Task, func()) {
	g := &group[O]{f: instrfut.New[O]()}
	return g, g.f.Close
}
