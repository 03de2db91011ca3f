package corpus

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestDir(t *testing.T) {
	long := strings.Repeat("x", 150)
	for _, tt := range []struct {
		name string
		want []string // the parts after testdata/weft
	}{
		{"TestLostUpdate", []string{"TestLostUpdate"}},
		{"TestWorkers/two_readers#01", []string{"TestWorkers", "two_readers_01"}},
		{"TestA/b/c", []string{"TestA", "b", "c"}},
		{"TestA/x=1+2-3.5", []string{"TestA", "x=1+2-3.5"}},
		{`TestA/a:b\c*d?e"f<g>h|i`, []string{"TestA", "a_b_c_d_e_f_g_h_i"}},
		{"TestA/日本", []string{"TestA", "__"}},
		{"TestA/..", []string{"TestA", "__"}},
		{"TestA/../../etc", []string{"TestA", "__", "__", "etc"}},
		{"TestA/.", []string{"TestA", "_"}},
		{"TestA/.hidden", []string{"TestA", "_hidden"}},
		{"TestA/end.", []string{"TestA", "end_"}},
		{"TestA//b/", []string{"TestA", "_", "b", "_"}},
		{"/abs", []string{"_", "abs"}},
		{"", []string{"_"}},
		{"TestA/con", []string{"TestA", "con_"}},
		{"TestA/NUL.txt", []string{"TestA", "NUL_.txt"}},
		{"TestA/com1", []string{"TestA", "com1_"}},
		{"TestA/console", []string{"TestA", "console"}},
	} {
		want := filepath.Join(append([]string{"testdata", "weft"}, tt.want...)...)
		if got := Dir(tt.name); got != want {
			t.Errorf("Dir(%q) = %q, want %q", tt.name, got, want)
		}
	}

	// Long names are shortened, and stay distinct.
	a, b := Dir("TestA/"+long+"a"), Dir("TestA/"+long+"b")
	if a == b {
		t.Errorf("Dir of two long names is %s for both", a)
	}
	for _, d := range []string{a, b} {
		if n := len(filepath.Base(d)); n > maxName {
			t.Errorf("Dir = %s: a part of %d bytes", d, n)
		}
	}

	// Whatever the name, the result stays under testdata/weft.
	for _, name := range []string{"..", "../..", "a/../../..", `..\..`, "./.", "TestX/\x00/.."} {
		d := Dir(name)
		for part := range strings.SplitSeq(filepath.ToSlash(d), "/") {
			if part == ".." || part == "." || part == "" {
				t.Errorf("Dir(%q) = %q has a part %q", name, d, part)
			}
		}
		if !strings.HasPrefix(d, filepath.Join("testdata", "weft")+string(filepath.Separator)) {
			t.Errorf("Dir(%q) = %q escapes testdata/weft", name, d)
		}
	}
}
