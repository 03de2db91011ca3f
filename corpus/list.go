package corpus

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// A File is a file of a corpus directory, as List found it.
type File struct {
	ID    string // the file's name
	Path  string // the file's path: the directory joined with ID
	Entry *Entry // the parsed entry; nil if Err is set
	Err   error  // why the file could not be read or parsed
}

// List reads the corpus directory dir: every regular file in it (or symbolic
// link to one), sorted by name, not descending into subdirectories, which
// hold the corpora of subtests. Names starting with '.', such as the
// temporary files of an interrupted Write, are skipped. A file that cannot
// be read or parsed is listed with Err set, naming the file (and the line,
// for a *ParseError), and the others still load. A missing directory is an
// empty corpus.
func List(dir string) ([]File, error) {
	files, err := load(dir)
	if err != nil {
		return nil, fmt.Errorf("corpus: list %s: %w", dir, err)
	}
	out := make([]File, len(files))
	for i, f := range files {
		out[i] = f.File
	}
	return out, nil
}

// A loaded file is a File with its content.
type loaded struct {
	File
	data []byte
}

// load reads and parses the files of dir, sorted by name.
func load(dir string) ([]loaded, error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []loaded
	for _, ent := range ents {
		name := ent.Name()
		if strings.HasPrefix(name, ".") || !isRegular(dir, ent) {
			continue
		}
		f := loaded{File: File{ID: name, Path: filepath.Join(dir, name)}}
		f.data, f.Err = os.ReadFile(f.Path)
		if f.Err != nil {
			f.Err = fmt.Errorf("corpus: read %s: %w", f.Path, f.Err)
		} else {
			f.Entry, f.Err = Parse(f.Path, f.data)
		}
		out = append(out, f)
	}
	return out, nil
}

// isRegular reports whether a directory entry is a regular file, or a
// symbolic link to one.
func isRegular(dir string, ent fs.DirEntry) bool {
	if ent.Type().IsRegular() {
		return true
	}
	if ent.Type()&fs.ModeSymlink == 0 {
		return false
	}
	info, err := os.Stat(filepath.Join(dir, ent.Name()))
	return err == nil && info.Mode().IsRegular()
}
