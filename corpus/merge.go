package corpus

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Merge copies into the corpus directory dst the entries of src it lacks,
// and returns their IDs (file names). An entry is already in dst if a file
// of dst has its name, or holds the same entry. Copies keep the name and the
// exact content of the source file (comments included), and appear
// atomically; dst is created if needed.
//
// Every file of src is parsed before it is copied. Malformed files are not
// copied, but do not stop the others: the error then names each of them
// (file and line), and added lists what was copied anyway.
func Merge(dst, src string) (added []string, err error) {
	info, err := os.Stat(src)
	if err != nil {
		return nil, fmt.Errorf("corpus: merge %s: %w", src, err)
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("corpus: merge %s: not a directory", src)
	}
	srcFiles, err := load(src)
	if err != nil {
		return nil, fmt.Errorf("corpus: merge %s: %w", src, err)
	}
	dstFiles, err := load(dst)
	if err != nil {
		return nil, fmt.Errorf("corpus: merge into %s: %w", dst, err)
	}
	have := make(map[string]bool) // names and IDs of canonical content in dst
	for _, f := range dstFiles {
		have[f.ID] = true
		if f.Entry != nil {
			have[ID(f.Entry.Marshal())] = true
		}
	}
	var malformed []error
	for _, f := range srcFiles {
		if f.Err != nil {
			malformed = append(malformed, f.Err)
			continue
		}
		canon := ID(f.Entry.Marshal())
		if have[f.ID] || have[canon] {
			continue
		}
		path := filepath.Join(dst, f.ID)
		if err := writeFile(path, f.data); err != nil {
			return added, fmt.Errorf("corpus: merge: write %s: %w", path, err)
		}
		have[f.ID], have[canon] = true, true
		added = append(added, f.ID)
	}
	if len(malformed) > 0 {
		return added, fmt.Errorf("corpus: merge %s: %d malformed file(s) not copied:\n%w", src, len(malformed), errors.Join(malformed...))
	}
	return added, nil
}
