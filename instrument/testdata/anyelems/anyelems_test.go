package anyelems

import (
	"strings"
	"testing"
)

func TestApply(t *testing.T) {
	l := New()
	defer l.Stop()
	l.Apply([]int{1, 2})
	l.Apply([]int{3})
	for _, want := range []string{"&{n:2}", "&{n:1}"} {
		if got := Describe(<-l.Consumer()); !strings.Contains(got, want) {
			t.Fatalf("got %s, want %s", got, want)
		}
	}
}
