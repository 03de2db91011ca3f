package weft

import "testing"

func TestSplitPattern(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"TestA", []string{"TestA"}},
		{"TestA/sub", []string{"TestA", "sub"}},
		{"TestA/(x/y)", []string{"TestA", "(x/y)"}},
		{`TestA/a\/b`, []string{"TestA", `a\/b`}},
		{"TestA/[/]", []string{"TestA", "[/]"}},
	} {
		got := splitPattern(c.in)
		if len(got) != len(c.want) {
			t.Errorf("splitPattern(%q) = %q", c.in, got)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("splitPattern(%q) = %q", c.in, got)
			}
		}
	}
}
