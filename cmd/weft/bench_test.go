package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// BenchmarkWeftTest measures weft test against go test of the same
// packages (testdata/plain, their fixed twins), both run in each
// iteration, with weft's cache warm and cold:
//
//	go test -run XXX -bench WeftTest -benchtime 10x ./cmd/weft
func BenchmarkWeftTest(b *testing.B) {
	dir := plainModule(b)
	// weft's cache of its own, so that the cold runs clear nobody else's;
	// go's build cache stays the one in use.
	gocache, err := exec.Command("go", "env", "GOCACHE").Output()
	if err != nil {
		b.Fatal(err)
	}
	b.Setenv("GOCACHE", strings.TrimSpace(string(gocache)))
	b.Setenv("XDG_CACHE_HOME", b.TempDir())
	args := []string{"-count=1", "-run", "TestFixed", "./..."}
	goTest := func() time.Duration {
		start := time.Now()
		cmd := exec.Command("go", append([]string{"test"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("go test: %v\n%s", err, out)
		}
		return time.Since(start)
	}
	weftTest := func() time.Duration {
		start := time.Now()
		if code, err := runTest(dir, args, io.Discard, io.Discard); err != nil || code != 0 {
			b.Fatalf("weft test: exit %d, %v", code, err)
		}
		return time.Since(start)
	}
	goTest()
	weftTest()
	for _, cache := range []string{"warm", "cold"} {
		b.Run(cache, func(b *testing.B) {
			var plain, weft time.Duration
			for range b.N {
				if cache == "cold" {
					b.StopTimer()
					clearCache(b)
					b.StartTimer()
				}
				weft += weftTest()
				plain += goTest()
			}
			b.ReportMetric(float64(weft)/float64(plain), "weft/go")
		})
	}
}

func clearCache(b *testing.B) {
	cache, err := os.UserCacheDir()
	if err != nil {
		b.Fatal(err)
	}
	os.RemoveAll(filepath.Join(cache, "weft"))
}
