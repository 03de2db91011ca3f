package corpus

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
)

// tempPrefix starts the names of the temporary files Write creates. They are
// dotfiles, which List ignores: one remains only if the process died while
// writing.
const tempPrefix = ".tmp-"

// Write saves an entry in the corpus directory dir, creating dir if needed,
// as the file dir/ID(e.Marshal()), and returns its path. The file appears
// atomically, complete and synced, or not at all. If the file exists and
// holds the same entry, it is left alone, keeping any comments a person
// added or a checkout's CRLF line endings; any other content is replaced.
// Write refuses an entry whose text Parse would reject.
func Write(dir string, e *Entry) (path string, err error) {
	data := e.Marshal()
	path = filepath.Join(dir, ID(data))
	canon, err := Parse(path, data)
	if err != nil {
		return "", fmt.Errorf("corpus: write %s: invalid entry: %w", path, err)
	}
	if old, err := os.ReadFile(path); err == nil {
		if bytes.Equal(old, data) {
			return path, nil
		}
		if prev, err := Parse(path, old); err == nil && reflect.DeepEqual(prev, canon) {
			return path, nil
		}
	}
	if err := writeFile(path, data); err != nil {
		return "", fmt.Errorf("corpus: write %s: %w", path, err)
	}
	return path, nil
}

// Read reads and parses the corpus file at path.
func Read(path string) (*Entry, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("corpus: read %s: %w", path, err)
	}
	return Parse(path, data)
}

// writeFile atomically replaces the file at path with data: it writes a
// temporary file in the same directory, syncs it, and renames it.
func writeFile(path string, data []byte) (err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, tempPrefix+"*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if _, err := f.Write(data); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Chmod(f.Name(), 0o644); err != nil {
		return err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return err
	}
	syncDir(dir)
	return nil
}

// syncDir makes a rename in dir durable, where the system allows: Windows
// cannot sync a directory, and the rename is atomic without it.
func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	d.Sync()
	d.Close()
}
