package values

import (
	"bytes"
	"encoding/gob"
	"fmt"
	"reflect"
	"sync"
)

const typed int32 = 2

// Sizes makes channels with capacities of every integer type.
func Sizes() []int {
	var a int32 = 1
	var b int64 = 2
	var c uint8 = 3
	ca := make(chan int, a)
	cb := make(chan int, b)
	cc := make(chan int, c)
	cd := make(chan int, typed)
	return []int{cap(ca), cap(cb), cap(cc), cap(cd), sized[uint16](5)}
}

func sized[N ~int | ~uint16](n N) int {
	ch := make(chan struct{}, n)
	return cap(ch)
}

// Reflected hands channels to reflection: they stay Go channels.
func Reflected() []string {
	var v any = make(chan bool)
	gob.Register(v)
	err := gob.NewEncoder(new(bytes.Buffer)).Encode(&v)
	out := []string{fmt.Sprint(err), fmt.Sprintf("%T", make(chan int)), reflect.TypeOf(make(<-chan string)).String()}
	var box any = make(chan int, 1)
	c := box.(chan int)
	c <- 1
	switch x := box.(type) {
	case chan int:
		out = append(out, fmt.Sprint(<-x))
	}
	return out
}

// pool keeps channels in a sync.Pool, which hands them back as they went
// in: they stay weft's.
var pool = sync.Pool{New: func() any { return make(chan int, 1) }}

// Pooled sends and receives on a pooled channel.
func Pooled() int {
	c := pool.Get().(chan int)
	defer pool.Put(c)
	c <- 3
	return <-c
}
