package record_test

import (
	"os"
	"testing"

	"github.com/weftdev/weft/record"
)

// recorder returns the recorder registered as name.
func recorder(t *testing.T, name string) record.Recorder {
	t.Helper()
	rec, err := record.New(name)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// recordLog records body with rec and returns the result and the decoded
// log; the log file is removed. The run must pass and be complete, and
// the log be rec's.
func recordLog(t *testing.T, rec record.Recorder, body func()) (*record.Result, *record.Log) {
	t.Helper()
	res, err := record.Record(body, rec, record.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(res.Log)
	if res.Failure != nil {
		t.Fatalf("recorded run failed: %s", res.Failure.Message)
	}
	if !res.Complete {
		t.Fatal("recorded run incomplete")
	}
	log, err := record.ReadFile(res.Log)
	if err != nil {
		t.Fatal(err)
	}
	if log.Algorithm != rec.Algorithm() || !log.Complete {
		t.Fatalf("log of %q, complete %v; want %q, complete", log.Algorithm, log.Complete, rec.Algorithm())
	}
	return res, log
}

// touched returns the location thread th touched first at its operation n.
func touched(t *testing.T, log *record.Log, th int, n uint64) uint32 {
	t.Helper()
	for _, e := range log.Threads[th].Entries {
		if e.Tag == record.TagTouch && e.N == n {
			return uint32(e.Args[0])
		}
	}
	t.Fatalf("goroutine %d logged no touch at operation %d", th, n)
	return 0
}
