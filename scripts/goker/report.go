//go:build unix

package main

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// classes in the table's order.
var classes = []string{"Resource Deadlock", "Communication Deadlock", "Mixed Deadlock", "Traditional", "Go-Specific"}

// report writes every kernel's line, then the table by class.
func report(w io.Writer, rows []outcome, command []string, b budget) {
	for _, o := range rows {
		fmt.Fprintln(w, o.line())
	}
	fmt.Fprintf(w, "\nweft: %s (-race for the non-blocking kernels), each command killed after %v\n", strings.Join(command, " "), b.timeout)
	fmt.Fprintf(w, "go test: -count=%d -timeout=%v (-race for the non-blocking kernels)\n\n", b.goRuns, b.goTime)
	fmt.Fprintln(w, "| class | kernels | go test shows it | weft finds it | executions: median / max | other failure | missed | not built, timed out or failed |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|")
	var all []outcome
	for _, c := range classes {
		var in []outcome
		for _, o := range rows {
			if o.class == c {
				in = append(in, o)
			}
		}
		if len(in) > 0 {
			fmt.Fprintln(w, tableRow(c, in))
			all = append(all, in...)
		}
	}
	fmt.Fprintln(w, tableRow("all", all))
}

func tableRow(name string, in []outcome) string {
	n := map[string]int{}
	goShows := 0
	var execs []int
	for _, o := range in {
		n[o.verdict]++
		if o.goVerdict != "pass" {
			goShows++
		}
		if o.verdict == found {
			execs = append(execs, o.execution)
		}
	}
	med := "–"
	if len(execs) > 0 {
		sort.Ints(execs)
		med = fmt.Sprintf("%d / %d", execs[len(execs)/2], execs[len(execs)-1])
	}
	return fmt.Sprintf("| %s | %d | %d | %d | %s | %d | %d | %d |", name, len(in), goShows, n[found], med, n[other], n[missed], n[notBuilt]+n[timedOut]+n[failed])
}
