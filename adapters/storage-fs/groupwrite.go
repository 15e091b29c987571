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

// syncfsFrom is the group size from which, where the platform has
// syncfs(2), one syncfs makes a group durable instead of an fsync per file:
// syncfs flushes every pending write of the file system, which costs more
// than a few fsyncs when other writes are pending (and slows whatever else
// runs), and much less than thousands of them.
const syncfsFrom = 32

// maxGroupWriters bounds the files WriteFiles writes at once.
const maxGroupWriters = 8

// WriteFiles implements [core.GroupWriter]: it writes every file to a
// temporary file in its folder and renames it over its path, several at
// once, then makes them all durable with one barrier: for a group of
// syncfsFrom files or more on Linux, one syncfs(2) per file system
// (flushing its whole journal once); otherwise an fsync of every file
// before its rename and one fsync per folder. A
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
	bulk := deferSync && len(files) >= syncfsFrom
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
			if err := s.writeGroupFile(targets[i].name, f.Content, !bulk); err != nil {
				errs[i] = s.fail(op, f.Path, err)
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	for dir := range dirs {
		barrier := func(dir string) error { return syncDir(s.fsys, dir) }
		if bulk {
			barrier = s.barrier
		}
		if err := barrier(dir); err != nil {
			return s.fail(op, filepath.ToSlash(dir), fmt.Errorf("sync: %w", err))
		}
	}
	return nil
}

// writeGroupFile writes content to a temporary file beside name, synced
// when sync is set (else the barrier makes it durable), and renames it over
// name.
func (s *LocalFileStorage) writeGroupFile(name string, content []byte, sync bool) error {
	if info, err := s.fsys.Stat(name); err == nil && info.IsDir() {
		return errIsFolder
	}
	tmp, release, err := s.writeTempFile(filepath.Dir(name), content, sync)
	if err != nil {
		return err
	}
	defer release()
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
