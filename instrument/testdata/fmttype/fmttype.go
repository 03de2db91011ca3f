// Package fmttype names its subscribers by their type, with fmt's %T, as
// watermill's router does: fmt reads the type of what it is handed, not
// its contents, so the channels a subscriber returns stay weft's. Before,
// every channel of the Subscriber interface was left Go's, shared with
// fmt, and the goroutines waiting on them polled.
package fmttype

import "fmt"

// Subscriber hands out the values of a topic.
type Subscriber interface {
	Subscribe(topic string) (<-chan string, error)
}

// Name is the name of v's type, without its pointer marker; a width read
// from an argument and a literal percent sign do not shift the verbs.
func Name(v any) string {
	s := fmt.Sprintf("%*d%%%T", 0, 1, v)
	return s[3:]
}

// Printed prints a channel with %T: it stays Go's, as the name of its type
// is what fmt prints.
func Printed(ch chan int) string { return fmt.Sprintf("%T", ch) }

type memory struct{ values []string }

// NewMemory returns a Subscriber that hands out values to every topic.
func NewMemory(values ...string) Subscriber { return &memory{values} }

func (m *memory) Subscribe(topic string) (<-chan string, error) {
	out := make(chan string)
	go func() {
		for _, v := range m.values {
			out <- topic + ":" + v
		}
		close(out)
	}()
	return out, nil
}
