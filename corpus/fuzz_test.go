package corpus

import (
	"bytes"
	"errors"
	"reflect"
	"testing"
)

func FuzzParse(f *testing.F) {
	f.Add([]byte(example))
	f.Add(exampleEntry.Marshal())
	for _, tt := range malformed {
		f.Add([]byte(tt.data))
	}
	for _, tt := range wellFormed {
		f.Add([]byte(tt.data))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := Parse("fuzz", data)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Line < 1 || pe.Problem == "" {
				t.Fatalf("Parse error %v (%T) is not a *ParseError with a line and a problem", err, err)
			}
			return
		}
		out := e.Marshal()
		e2, err := Parse("marshaled", out)
		if err != nil {
			t.Fatalf("Parse(Marshal(e)) failed: %v\ninput:\n%q\nmarshaled:\n%s", err, data, out)
		}
		if !reflect.DeepEqual(e, e2) {
			t.Fatalf("Parse(Marshal(e)) != e\ne:  %#v\ne2: %#v\nmarshaled:\n%s", e, e2, out)
		}
		if out2 := e2.Marshal(); !bytes.Equal(out, out2) {
			t.Fatalf("Marshal is not a fixpoint:\n%s\nthen\n%s", out, out2)
		}
	})
}

// FuzzMarshal checks that Marshal makes a valid, canonical file of any text
// in the free-form fields of an entry.
func FuzzMarshal(f *testing.F) {
	f.Add("TestX", "error at x.go:1: boom", "error x.go:1", "pct", "v0.1", "Mutex.Lock", "x.go:1")
	f.Add("Test\n", "a\r\nb\x00\xff", " ", "a b=c", "\t", "-", "-")
	f.Add("TestÜ/日本", "\u2028\u0085", "#", "=", "@", "@ - #", "a b:1")
	f.Fuzz(func(t *testing.T, test, failure, signature, strategy, value, op, site string) {
		e := exampleEntry.clone()
		e.Test = "Test" + test
		e.Failure, e.Signature, e.Found.Strategy = failure, signature, strategy
		e.Extra = [][2]string{{"note", value}}
		for i := range e.Schedule {
			e.Schedule[i].Op, e.Schedule[i].Site = op, site
		}
		out := e.Marshal()
		e2, err := Parse("marshaled", out)
		if err != nil {
			t.Fatalf("Parse(Marshal(e)) failed: %v\n%s", err, out)
		}
		if out2 := e2.Marshal(); !bytes.Equal(out, out2) {
			t.Fatalf("Marshal(Parse(Marshal(e))) differs:\n%s\nthen\n%s", out, out2)
		}
	})
}
