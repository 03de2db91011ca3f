package corpus

import (
	"bytes"
	"fmt"
	"strings"
)

// Marshal returns the canonical text of the entry, the content of its corpus
// file. For an entry Parse returned, Parse(Marshal(e)) equals e.
//
// Text the format cannot hold is adjusted rather than refused: line breaks
// and other control characters in a value become spaces, invalid UTF-8
// becomes U+FFFD, surrounding whitespace goes, whitespace inside a strategy,
// a found field or a site becomes '_', a site that is not file:line is
// dropped, and an operation "-" reads back as unknown. An entry that stays invalid (no test name, a goroutine that is
// not a lineage, a pick value out of range) is written as is, and Parse
// rejects the result; Write checks this.
func (e *Entry) Marshal() []byte {
	var b bytes.Buffer
	b.WriteString(versionLine + "\n")
	writeHeader(&b, keyTest, e.Test)
	if found := formatFound(e.Found); found != "" {
		writeHeader(&b, keyFound, found)
	}
	if failure := cleanText(e.Failure); failure != "" {
		writeHeader(&b, keyFailure, failure)
	}
	if signature := cleanText(e.Signature); signature != "" {
		writeHeader(&b, keySignature, signature)
	}
	preemptions := fmt.Sprint(e.Preemptions)
	if e.Original != 0 {
		preemptions += fmt.Sprintf(" (minimized from %d)", e.Original)
	}
	writeHeader(&b, keyPreemptions, preemptions)
	if e.Hash != 0 {
		writeHeader(&b, keyHash, fmt.Sprintf("0x%016x", e.Hash))
	}
	if len(e.Input) > 0 {
		writeHeader(&b, keyInput, formatInput(e.Input))
	}
	if e.Parallel > 0 {
		writeHeader(&b, keyParallel, fmt.Sprint(e.Parallel))
	}
	for _, kv := range e.Extra {
		writeHeader(&b, kv[0], kv[1])
	}
	b.WriteString("\n")
	if len(e.Schedule) == 0 {
		b.WriteString("# no choices: the default policy alone reproduces the failure\n")
	} else {
		b.WriteString("# goroutine#event: the event at which a choice differs from the default policy\n")
	}
	for _, c := range e.Schedule {
		b.WriteString(formatChoice(c))
		b.WriteString("\n")
	}
	return b.Bytes()
}

// writeHeader writes the header line "key: value", or "key:" if the value is
// empty.
func writeHeader(b *bytes.Buffer, key, value string) {
	b.WriteString(key)
	b.WriteString(":")
	if value = cleanText(value); value != "" {
		b.WriteString(" ")
		b.WriteString(value)
	}
	b.WriteString("\n")
}

// formatFound formats the value of the found: header, or "" if nothing is
// known. Seed and iteration are written whenever the strategy is known,
// since 0 is a valid value of both.
func formatFound(f Found) string {
	var parts []string
	strategy := cleanToken(f.Strategy)
	if strategy != "" {
		parts = append(parts, foundStrategy+"="+strategy)
	}
	if strategy != "" || f.Seed != 0 {
		parts = append(parts, fmt.Sprintf("%s=%#x", foundSeed, f.Seed))
	}
	if strategy != "" || f.Iteration != 0 {
		parts = append(parts, fmt.Sprintf("%s=%d", foundIteration, f.Iteration))
	}
	if f.Depth != 0 {
		parts = append(parts, fmt.Sprintf("%s=%d", foundDepth, f.Depth))
	}
	for _, x := range f.Extra {
		if x = cleanToken(x); x != "" {
			parts = append(parts, x)
		}
	}
	return strings.Join(parts, " ")
}

// formatInput formats the value of the input: header, the words in
// hexadecimal.
func formatInput(in []uint64) string {
	words := make([]string, len(in))
	for i, w := range in {
		words[i] = fmt.Sprintf("%#x", w)
	}
	return strings.Join(words, " ")
}
