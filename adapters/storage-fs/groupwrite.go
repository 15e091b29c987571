package storagefs

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/foliovec/folio/core"
)

var _ core.GroupWriter = (*LocalFileStorage)(nil)

// maxGroupWriters bounds the files WriteFiles writes at once.
const maxGroupWriters = 8

// WriteFiles implements [core.GroupWriter]: it writes every file to a
// temporary file in its folder and renames it over its path, several at
// once, then makes them all durable with one barrier: on Linux one
// syncfs(2) per file system (flushing its whole journal once), elsewhere
// an fsync of every file before its rename and one fsync per folder. A
// folder at a path fails that file, as in UpsertFile. Until WriteFiles
// returns nil, a crash may leave any of the files missing, empty or partly
// written (never a temporary file that ListFiles shows).
func (s *LocalFileStorage) WriteFiles(ctx context.Context, files []core.FileWrite) error {
	const op = "write files"
	targets := make([]target, len(files))
	dirs := map[string]bool{}
	for i, f := range files {
		t, err := s.resolveWritable(ctx, op, f.Path)
		if err != nil {
			return err
		}
		targets[i] = t
		dirs[filepath.Dir(t.name)] = true
	}
	errs := make([]error, len(files))
	sem := make(chan struct{}, maxGroupWriters)
	var wg sync.WaitGroup
	for i, f := range files {
		if err := ctx.Err(); err != nil {
			errs[i] = err
			break
		}
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			if err := s.writeUnsynced(targets[i].name, f.Content); err != nil {
				errs[i] = s.fail(op, f.Path, err)
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	for dir := range dirs {
		if err := s.barrier(dir); err != nil {
			return s.fail(op, filepath.ToSlash(dir), fmt.Errorf("sync: %w", err))
		}
	}
	return nil
}

// writeUnsynced writes content to a temporary file beside name and renames
// it over name. The data is synced only where the barrier cannot do it
// (deferSync false).
func (s *LocalFileStorage) writeUnsynced(name string, content []byte) error {
	if info, err := s.fsys.Stat(name); err == nil && info.IsDir() {
		return errIsFolder
	}
	tmp, err := s.writeTempFile(filepath.Dir(name), content, !deferSync)
	if err != nil {
		return err
	}
	if err := s.fsys.Rename(tmp, name); err != nil {
		s.fsys.Remove(tmp)
		return err
	}
	return nil
}

// closeFile closes f, keeping the first error.
func closeFile(f *os.File, err error) error {
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
