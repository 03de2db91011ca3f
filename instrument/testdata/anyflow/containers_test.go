package anyflow

import (
	"container/list"
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"example.com/anyflow/instrpool"
	"example.com/anyflow/lib"
)

// TestSyncMap stores a channel that reaches fmt in a sync.Map.
func TestSyncMap(t *testing.T) {
	var m sync.Map
	ch := make(chan int, 1)
	m.Store("ch", ch)
	t.Log(fmt.Sprint(ch))
	v, _ := m.Load("ch")
	ch2 := v.(chan int)
	ch2 <- 1
	<-ch
}

// TestAtomicValue stores a channel that reaches fmt in an atomic.Value.
func TestAtomicValue(t *testing.T) {
	var a atomic.Value
	ch := make(chan int, 1)
	a.Store(ch)
	t.Log(fmt.Sprint(ch))
	a.Load().(chan int) <- 1
	<-ch
}

// TestContextValue carries a channel that reaches fmt in a context.
func TestContextValue(t *testing.T) {
	ch := make(chan int, 1)
	ctx := context.WithValue(context.Background(), "ch", ch)
	t.Log(fmt.Sprint(ch))
	ctx.Value("ch").(chan int) <- 1
	<-ch
}

// TestPool puts a channel that reaches fmt in a sync.Pool.
func TestPool(t *testing.T) {
	p := sync.Pool{New: func() any { return make(chan int, 1) }}
	ch := make(chan int, 1)
	t.Log(fmt.Sprint(ch))
	p.Put(ch)
	c := p.Get().(chan int)
	c <- 1
	<-c
}

// TestList pushes a channel that reaches fmt in a list.
func TestList(t *testing.T) {
	var l list.List
	ch := make(chan int, 1)
	t.Log(fmt.Sprint(ch))
	l.PushBack(ch)
	c := l.Front().Value.(chan int)
	c <- 1
	<-ch
}

// TestKept keeps a channel that reaches fmt here in an atomic.Value and a
// sync.Pool of another package, which hands it back.
func TestKept(t *testing.T) {
	var b instrpool.Box
	ch := make(chan int, 1)
	b.Keep(ch)
	t.Log(fmt.Sprint(ch))
	b.Latest().(chan int) <- 1
	<-ch
	if c, ok := b.Spare().(chan int); ok {
		c <- 2
		<-ch
	}
}

type chKey struct{}

// TestContextCarried carries a channel in a context through code weft does
// not instrument: it stays Go's, with its assertion.
func TestContextCarried(t *testing.T) {
	ch := make(chan int, 1)
	ctx := lib.Carry(context.WithValue(t.Context(), chKey{}, ch))
	ctx.Value(chKey{}).(chan int) <- 1
	<-ch
}
