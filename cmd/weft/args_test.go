package main

import (
	"reflect"
	"testing"
)

func TestParseTestArgs(t *testing.T) {
	a, err := parseTestArgs([]string{"-run", "TestX", "-v", "-explore", "-instrument=./lib/...", "-count=1", "./pkg", "-tags", "integration", "./other"})
	if err != nil {
		t.Fatal(err)
	}
	want := testArgs{
		instrument: []string{"./lib/..."},
		verbose:    true,
		goArgs:     []string{"-run", "TestX", "-v", "-explore", "-count=1", "-tags", "integration"},
		patterns:   []string{"./pkg", "./other"},
	}
	if !reflect.DeepEqual(a, want) {
		t.Errorf("got %+v\nwant %+v", a, want)
	}
	if got := buildFlags(a.goArgs); !reflect.DeepEqual(got, []string{"-tags", "integration"}) {
		t.Errorf("buildFlags = %q", got)
	}
	if a, _ := parseTestArgs(nil); !reflect.DeepEqual(a.patterns, []string{"."}) {
		t.Errorf("default patterns %q", a.patterns)
	}
	if _, err := parseTestArgs([]string{"-instrument"}); err == nil {
		t.Error("-instrument without a pattern accepted")
	}
}
