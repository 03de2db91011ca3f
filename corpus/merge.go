package corpus

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// Merge copies into the corpus directory dst the entries of src it lacks,
// and returns their IDs (file names). See MergeAll.
func Merge(dst, src string) (added []string, err error) {
	r, err := MergeAll(dst, src)
	for _, f := range r.Added {
		added = append(added, f.ID)
	}
	return added, err
}

// A Merged is what MergeAll did with the entries of its sources.
type Merged struct {
	// Added are the files copied into dst, as found in their source.
	Added []File
	// Duplicates are the files not copied, since dst or another source
	// holds the same entry or the same failure.
	Duplicates []Duplicate
}

// A Duplicate is an entry MergeAll left out.
type Duplicate struct {
	File File // the file left out, in its source
	// Of is the path of the entry it repeats: in dst, or in a source.
	Of string
	// SameFailure is set when the two entries are different schedules of
	// the same failure (signature); otherwise they are the same entry.
	SameFailure bool
}

// MergeAll copies into the corpus directory dst (created if needed) the
// entries of the source directories it lacks, deduplicated by schedule and
// by failure, as shards of a nightly run need: an entry is already in dst
// if a file of dst has its name, holds the same entry, or holds an entry of
// the same test with the same signature. Of new entries of one test and
// signature from several sources, the one with the fewest preemptions (then
// the lowest ID) is copied: the result does not depend on the order of the
// sources. Copies keep the name and the exact content of the source file
// (comments included), and appear atomically.
//
// Every file of the sources is parsed before it is copied. Malformed files
// are not copied, but do not stop the others: the error then names each of
// them (file and line), and the Merged lists what was copied anyway.
func MergeAll(dst string, srcs ...string) (Merged, error) {
	var m Merged
	var cands []loaded
	var malformed []error
	for _, src := range srcs {
		info, err := os.Stat(src)
		if err != nil {
			return m, fmt.Errorf("corpus: merge %s: %w", src, err)
		}
		if !info.IsDir() {
			return m, fmt.Errorf("corpus: merge %s: not a directory", src)
		}
		files, err := load(src)
		if err != nil {
			return m, fmt.Errorf("corpus: merge %s: %w", src, err)
		}
		for _, f := range files {
			if f.Err != nil {
				malformed = append(malformed, f.Err)
				continue
			}
			cands = append(cands, f)
		}
	}
	dstFiles, err := load(dst)
	if err != nil {
		return m, fmt.Errorf("corpus: merge into %s: %w", dst, err)
	}
	have := make(map[string]string) // names, IDs of canonical content, and test+signature in dst: the path holding it
	for _, f := range dstFiles {
		have[f.ID] = f.Path
		if f.Entry != nil {
			have[ID(f.Entry.Marshal())] = f.Path
			if key := failureKey(f.Entry); key != "" {
				have[key] = f.Path
			}
		}
	}
	// The best schedule of each failure first.
	slices.SortStableFunc(cands, func(a, b loaded) int {
		return cmp.Or(cmp.Compare(a.Entry.Preemptions, b.Entry.Preemptions), cmp.Compare(a.ID, b.ID))
	})
	for _, f := range cands {
		canon, key := ID(f.Entry.Marshal()), failureKey(f.Entry)
		if of := cmp.Or(have[f.ID], have[canon]); of != "" {
			m.Duplicates = append(m.Duplicates, Duplicate{File: f.File, Of: of})
			continue
		}
		if of := have[key]; of != "" && key != "" {
			m.Duplicates = append(m.Duplicates, Duplicate{File: f.File, Of: of, SameFailure: true})
			continue
		}
		path := filepath.Join(dst, f.ID)
		if err := writeFile(path, f.data); err != nil {
			return m, fmt.Errorf("corpus: merge: write %s: %w", path, err)
		}
		have[f.ID], have[canon] = path, path
		if key != "" {
			have[key] = path
		}
		m.Added = append(m.Added, f.File)
	}
	slices.SortFunc(m.Added, func(a, b File) int { return cmp.Compare(a.Path, b.Path) })
	if len(malformed) > 0 {
		return m, fmt.Errorf("corpus: merge: %d malformed file(s) not copied:\n%w", len(malformed), errors.Join(malformed...))
	}
	return m, nil
}

// failureKey identifies an entry's failure: its test and signature; "" if
// the entry has no signature (written by an early weft).
func failureKey(e *Entry) string {
	if e.Signature == "" {
		return ""
	}
	return "failure\x00" + e.Test + "\x00" + e.Signature
}
