package workspace

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/mod/module"
)

// A Copy is a module whose source the go command cannot overlay (it is in
// the module cache, or vendored), to be copied into weft's cache with some
// of its files rewritten, and replaced with the copy in the go.work.
type Copy struct {
	Path    string // the module's path
	Version string // its version, for the copy's name
	Dir     string // its source
	// Files are the rewritten files, by their path under Dir.
	Files map[string][]byte
	// Marked are the other Go files of the rewritten packages, by their
	// path under Dir: they start with a line directive naming their
	// original, so that the compiler's messages and stacks name it too.
	Marked []string
	// Salt identifies the rewriter (weft's build): a changed rewriter makes
	// new copies.
	Salt string
	// Origin is where the files of Dir come from, if Dir is itself a copy
	// (of a vendored module): the copy's files name it.
	Origin string
}

// Write makes the copy in cache (once: its name is a digest of what it
// holds) and returns its directory. The module's go.mod is kept, so its
// language version stays; unchanged files are hard links where the file
// system allows it.
func (c Copy) Write(cache string) (string, error) {
	esc, err := module.EscapePath(c.Path)
	if err != nil {
		return "", err
	}
	dir := filepath.Join(cache, "mod", esc+"@"+c.Version+"-"+c.key())
	if _, err := os.Stat(dir); err == nil {
		return dir, nil
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), ".tmp-*")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp) // after a rename, nothing is left to remove
	if err := c.fill(tmp); err != nil {
		return "", fmt.Errorf("copying %s@%s from %s: %w", c.Path, c.Version, c.Dir, err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, serr := os.Stat(dir); serr == nil {
			return dir, nil // another weft test made it first
		}
		return "", err
	}
	return dir, nil
}

// key digests what the copy holds.
func (c Copy) key() string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00%s\x00", c.Salt, c.Path, c.Version, c.Dir, c.Origin)
	names := make([]string, 0, len(c.Files))
	for n := range c.Files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		sum := sha256.Sum256(c.Files[n])
		fmt.Fprintf(h, "%s\x00%x\x00", n, sum)
	}
	marked := append([]string(nil), c.Marked...)
	sort.Strings(marked)
	fmt.Fprintf(h, "%q", marked)
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// fill writes the copy's files into dir.
func (c Copy) fill(dir string) error {
	marked := map[string]bool{}
	for _, m := range c.Marked {
		marked[m] = true
	}
	hasGoMod := false
	err := filepath.WalkDir(c.Dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(c.Dir, path)
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(dst, 0o755)
		case !d.Type().IsRegular():
			return nil // the module cache holds regular files only
		case rel == "go.mod":
			hasGoMod = true
		}
		origin := path
		if c.Origin != "" {
			origin = filepath.Join(c.Origin, rel)
		}
		if src, ok := c.Files[path]; ok {
			// The rewriter's line directives name the file it read.
			src = bytes.ReplaceAll(src, []byte("/*line "+path+":"), []byte("/*line "+origin+":"))
			return os.WriteFile(dst, Mark(origin, src), 0o644)
		}
		if marked[path] {
			return writeMarked(path, origin, dst)
		}
		return link(path, dst)
	})
	if err != nil {
		return err
	}
	if !hasGoMod {
		// A module from before modules: the go command gives it this go.mod.
		return os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module "+c.Path+"\n"), 0o644)
	}
	return nil
}

// writeMarked copies a Go file with a line directive naming its origin.
func writeMarked(src, origin, dst string) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, Mark(origin, data), 0o644)
}

// Mark returns the source of a copy of the Go file at path (the copy's
// text, line for line) with a line directive naming path, so that the
// compiler's messages, vet's and the stacks of the running code name the
// original file, not its copy.
func Mark(path string, src []byte) []byte {
	directive := "//line " + path + ":1:1\n"
	if bytes.HasPrefix(src, []byte(directive)) || strings.ContainsAny(path, "\n\r") {
		return src
	}
	return append([]byte(directive), src...)
}

// link hard-links src at dst, or copies it where links cannot be made.
func link(src, dst string) error {
	if err := os.Link(src, dst); err == nil {
		return nil
	}
	return copyFile(src, dst)
}

// copyFile copies src to a new file dst.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
