package workload

import (
	"os"
	"strings"
	"testing"

	"github.com/weftdev/weft/record"
	_ "github.com/weftdev/weft/record/all"
)

// recordRun records one run of body with the named recorder, its log in
// dir; the caller removes res.Log (readLog does).
func recordRun(tb testing.TB, algorithm string, body func(), dir string) *record.Result {
	tb.Helper()
	rec, err := record.New(algorithm)
	if err != nil {
		tb.Fatal(err)
	}
	res, err := record.Record(body, rec, record.Options{Name: tb.Name(), Dir: dir})
	if err != nil {
		tb.Fatal(err)
	}
	return res
}

// readLog decodes res's log and removes its file.
func readLog(tb testing.TB, res *record.Result) *record.Log {
	tb.Helper()
	log, err := record.ReadFile(res.Log)
	os.Remove(res.Log)
	if err != nil {
		tb.Fatal(err)
	}
	return log
}

// firstProblems is how a report names a replay's departures: its first
// three.
func firstProblems(ps []string) string { return strings.Join(ps[:min(3, len(ps))], "; ") }
