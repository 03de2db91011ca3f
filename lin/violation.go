package lin

import (
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/anishathalye/porcupine"
)

// A violation is a history no sequential order of the model explains: the
// error After returns, whose details show the history as columns, one per
// goroutine, and write porcupine's visualization of it to an HTML file.
type violation struct {
	name    string // the test's, for the file's name
	model   porcupine.Model
	history *history
	s       *scenario
}

func (v *violation) Error() string {
	return fmt.Sprintf("not linearizable: no sequential order of the %s agrees with the model", v.s.describe())
}

// Details shows the history and writes its visualization.
func (v *violation) Details() string {
	var b strings.Builder
	b.WriteString("history (each call with its result and [call, return] in the execution's order):\n")
	writeColumns(&b, v.history)
	_, info := porcupine.CheckOperationsVerbose(v.model, operations(v.history.records()), 0)
	path, err := v.visualize(info)
	if err != nil {
		fmt.Fprintf(&b, "visualization: %v\n", err)
	} else {
		fmt.Fprintf(&b, "visualization: %s (porcupine's: the longest orders the model accepts, and where each stops)\n", path)
	}
	return b.String()
}

// visualize writes porcupine's visualization of the history to a file
// named by the test and the history, in the temporary directory.
func (v *violation) visualize(info porcupine.LinearizationInfo) (string, error) {
	var b strings.Builder
	writeColumns(&b, v.history)
	h := fnv.New64a()
	h.Write([]byte(b.String()))
	dir := filepath.Join(os.TempDir(), "weft-histories")
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return "", fmt.Errorf("writing the visualization: %w", err)
	}
	path := filepath.Join(dir, fmt.Sprintf("%s-%016x.html", fileName(v.name), h.Sum64()))
	if err := porcupine.VisualizePath(v.model, info, path); err != nil {
		return "", fmt.Errorf("writing the visualization %s: %w", path, err)
	}
	return path, nil
}

// writeColumns writes the history as Lincheck does: the init calls, a
// column per goroutine, the final calls.
func writeColumns(b *strings.Builder, h *history) {
	cell := func(r record) string {
		return fmt.Sprintf("%s: %s [%d,%d]", r.call, result(r.result), r.start, r.end)
	}
	line := func(what string, rs []record) {
		if len(rs) == 0 {
			return
		}
		cells := make([]string, len(rs))
		for i, r := range rs {
			cells[i] = cell(r)
		}
		fmt.Fprintf(b, "  %s (goroutine %s): %s\n", what, rs[0].goroutine, strings.Join(cells, ", "))
	}
	line("init", h.init)
	var cols [][]string
	width, rows := 0, 0
	for i, l := range h.lanes {
		col := []string{fmt.Sprintf("goroutine %d", i+1)}
		if len(l) > 0 {
			col[0] = "goroutine " + l[0].goroutine
		}
		for _, r := range l {
			col = append(col, cell(r))
		}
		for _, c := range col {
			width = max(width, len(c))
		}
		rows = max(rows, len(col))
		cols = append(cols, col)
	}
	for row := range rows {
		cells := make([]string, len(cols))
		for i, col := range cols {
			if row < len(col) {
				cells[i] = col[row]
			}
			cells[i] = fmt.Sprintf("%-*s", width, cells[i])
		}
		fmt.Fprintf(b, "  | %s |\n", strings.Join(cells, " | "))
	}
	line("final", h.final)
}

// fileName makes a test's name usable in a file name.
func fileName(name string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, name)
}
