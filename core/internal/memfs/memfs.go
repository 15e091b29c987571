// Package memfs is the file tree behind core.MemoryStorage: files and
// folders in memory under normalised "/"-separated keys, with a write
// generation per file and a lock per folder. It knows nothing of core's
// types; core adapts it to the FileStorage port.
//
// Keys are normalised paths (pathutil.Normalize). The relative top ("") and
// the absolute root ("/") are two folders that always exist. An FS is safe
// for concurrent use; contents are copied in and out.
package memfs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"
	"sync"
)

// Errors beside fs.ErrExist and fs.ErrNotExist.
var (
	ErrIsFolder   = errors.New("is a folder")
	ErrIsFile     = errors.New("is a file")
	ErrParentFile = errors.New("a parent is a file")
	ErrRoot       = errors.New("cannot delete a root folder")
)

// Entry describes a file or a folder.
type Entry struct {
	Name, Path string
	IsFolder   bool
}

// FS is a file tree in memory. Create one with New.
type FS struct {
	mu      sync.RWMutex
	entries map[string]*entry // by key; "" and "/" are the roots
	gen     uint64            // the last generation given to a file write

	locksMu sync.Mutex
	locks   map[string]chan struct{} // Lock's slot per folder key
}

// entry is a file (data) or a folder (children, by name).
type entry struct {
	folder   bool
	data     []byte
	gen      uint64 // the FS's write counter when data was written
	children map[string]struct{}
}

// New returns a tree holding only the root folders "" and "/".
func New() *FS {
	return &FS{entries: map[string]*entry{"": newFolder(), "/": newFolder()}, locks: map[string]chan struct{}{}}
}

func newFolder() *entry { return &entry{folder: true, children: map[string]struct{}{}} }

// split returns the parent key and the name of a key; isRoot is true for
// the roots, which have neither.
func split(key string) (parent, name string, isRoot bool) {
	if key == "" || key == "/" {
		return "", "", true
	}
	i := strings.LastIndexByte(key, '/')
	switch {
	case i < 0:
		return "", key, false
	case i == 0:
		return "/", key[1:], false
	}
	return key[:i], key[i+1:], false
}

// childKey is the key of the entry name in the folder parent; split's
// inverse.
func childKey(parent, name string) string {
	if parent == "" || parent == "/" {
		return parent + name
	}
	return parent + "/" + name
}

// parentFolder returns the folder that holds key; s.mu is held.
func (s *FS) parentFolder(key string) (*entry, string, error) {
	parent, name, _ := split(key)
	e, ok := s.entries[parent]
	if !ok {
		if s.belowFile(parent) {
			return nil, "", ErrParentFile
		}
		return nil, "", fmt.Errorf("parent folder %q: %w", parent, fs.ErrNotExist)
	}
	if !e.folder {
		return nil, "", ErrParentFile
	}
	return e, name, nil
}

// belowFile reports whether some ancestor of key is a file; s.mu is held.
func (s *FS) belowFile(key string) bool {
	for {
		parent, _, isRoot := split(key)
		if isRoot {
			return false
		}
		if e, ok := s.entries[parent]; ok {
			return !e.folder
		}
		key = parent
	}
}

// write stores content at key, a new file only when create is set; s.mu is
// held for writing.
func (s *FS) write(key string, content []byte, create bool) error {
	if e, ok := s.entries[key]; ok {
		switch {
		case create:
			return fs.ErrExist
		case e.folder:
			return ErrIsFolder
		}
	}
	parent, name, err := s.parentFolder(key)
	if err != nil {
		return err
	}
	s.gen++
	s.entries[key] = &entry{data: clone(content), gen: s.gen}
	parent.children[name] = struct{}{}
	return nil
}

// Create stores a copy of content as a new file: fs.ErrExist if anything is
// at key, fs.ErrNotExist if its parent folder is missing.
func (s *FS) Create(key string, content []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.write(key, content, true)
}

// Upsert stores a copy of content as the file at key, replacing a file
// there; a folder there is ErrIsFolder.
func (s *FS) Upsert(key string, content []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.write(key, content, false)
}

// UpsertAll upserts every file in order under one lock, so readers see none
// of them or all of them; it stops at the first failure, returning its
// index.
func (s *FS) UpsertAll(keys []string, contents [][]byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, k := range keys {
		if err := s.write(k, contents[i], false); err != nil {
			return i, err
		}
	}
	return len(keys), nil
}

// Read returns a copy of the file at key (empty, not nil, for an empty
// file).
func (s *FS) Read(key string) ([]byte, error) {
	b, err := s.Shared(key)
	if err != nil {
		return nil, err
	}
	return clone(b), nil
}

// Shared returns the file at key without copying it: the caller must not
// write to it (a write of the file stores new bytes, leaving these as
// they are).
func (s *FS) Shared(key string) ([]byte, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	e, ok := s.entries[key]
	switch {
	case !ok:
		return nil, fs.ErrNotExist
	case e.folder:
		return nil, ErrIsFolder
	}
	return e.data, nil
}

// Delete removes the file (folder false) or the folder and everything below
// it (folder true) at key; nothing there is no error, the other kind is
// ErrIsFolder or ErrIsFile, and a root is ErrRoot.
func (s *FS) Delete(key string, folder bool) error {
	if _, _, isRoot := split(key); isRoot {
		return ErrRoot
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.entries[key]
	switch {
	case !ok:
		return nil
	case e.folder && !folder:
		return ErrIsFolder
	case !e.folder && folder:
		return ErrIsFile
	}
	s.remove(key)
	return nil
}

// remove deletes key and, for a folder, everything below it; s.mu is held.
func (s *FS) remove(k string) {
	if e := s.entries[k]; e.folder {
		for name := range e.children {
			s.remove(childKey(k, name))
		}
	}
	delete(s.entries, k)
	parent, name, _ := split(k)
	delete(s.entries[parent].children, name)
}

// MakeFolder creates the folder at key and any missing parent; an existing
// folder is no error, a file at key is fs.ErrExist and a file above it
// ErrParentFile.
func (s *FS) MakeFolder(key string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var missing []string
	cur := key
	for {
		e, ok := s.entries[cur] // the roots always exist, so the walk ends
		if ok && e.folder {
			break
		}
		if ok && cur == key {
			return fs.ErrExist
		}
		if ok {
			return ErrParentFile
		}
		missing = append(missing, cur)
		cur, _, _ = split(cur)
	}
	for _, m := range slices.Backward(missing) {
		s.entries[m] = newFolder()
		parent, name, _ := split(m)
		s.entries[parent].children[name] = struct{}{}
	}
	return nil
}

// Stat describes the entry at key; fs.ErrNotExist if there is none.
func (s *FS) Stat(key string) (Entry, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	e, ok := s.entries[key]
	if !ok {
		return Entry{}, fs.ErrNotExist
	}
	_, name, _ := split(key)
	return Entry{Name: name, Path: key, IsFolder: e.folder}, nil
}

// List returns the entries directly in the folder at key, sorted by name:
// fs.ErrNotExist if it is missing, ErrIsFile if it is a file.
func (s *FS) List(key string) ([]Entry, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	dir, ok := s.entries[key]
	switch {
	case !ok:
		return nil, fs.ErrNotExist
	case !dir.folder:
		return nil, ErrIsFile
	}
	out := make([]Entry, 0, len(dir.children))
	for _, name := range slices.Sorted(maps.Keys(dir.children)) {
		child := childKey(key, name)
		out = append(out, Entry{Name: name, Path: child, IsFolder: s.entries[child].folder})
	}
	return out, nil
}

// Version returns the generation of the file at key, which every write of
// the file advances.
func (s *FS) Version(key string) (uint64, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	e, ok := s.entries[key]
	switch {
	case !ok:
		return 0, fs.ErrNotExist
	case e.folder:
		return 0, ErrIsFolder
	}
	return e.gen, nil
}

// Lock takes the in-process lock of the folder at key, waiting until it is
// free or ctx ends, and returns its release, which may be called more than
// once.
func (s *FS) Lock(ctx context.Context, key string) (func(), error) {
	s.mu.RLock()
	e, ok := s.entries[key]
	s.mu.RUnlock()
	switch {
	case !ok:
		return nil, fs.ErrNotExist
	case !e.folder:
		return nil, ErrIsFile
	}
	s.locksMu.Lock()
	ch, ok := s.locks[key]
	if !ok {
		ch = make(chan struct{}, 1)
		s.locks[key] = ch
	}
	s.locksMu.Unlock()
	select {
	case ch <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	var once sync.Once
	return func() { once.Do(func() { <-ch }) }, nil
}

// Clone returns a copy of the tree: its files and folders, not its locks.
func (s *FS) Clone() *FS {
	s.mu.RLock()
	defer s.mu.RUnlock()
	c := New()
	c.gen = s.gen
	for k, e := range s.entries {
		ce := &entry{folder: e.folder, data: e.data, gen: e.gen} // data is never changed in place
		if e.folder {
			ce.children = maps.Clone(e.children)
		}
		c.entries[k] = ce
	}
	return c
}

// clone copies b; an empty or nil b gives an empty, non-nil slice.
func clone(b []byte) []byte { return append([]byte{}, b...) }
