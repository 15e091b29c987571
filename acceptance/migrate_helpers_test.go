package acceptance_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	storagefs "github.com/foliovec/folio/adapters/storage-fs"
	"github.com/foliovec/folio/conformance/testkit"
	"github.com/foliovec/folio/core"
)

// migrateCopyFixture copies a fixture folder into a fresh temporary folder
// and returns its path.
func migrateCopyFixture(t testing.TB, folder string) string {
	t.Helper()
	src := filepath.Join(testkit.FixtureDir(t), folder)
	dst := filepath.Join(t.TempDir(), folder)
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	return dst
}

// migrateFiles reads every file of a folder, by name, less Folio's lock
// file, which Vectra ignores.
func migrateFiles(t testing.TB, dir string) map[string][]byte {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, e := range entries {
		if e.Name() == storagefs.LockFile {
			continue
		}
		if e.IsDir() {
			t.Fatalf("unexpected folder %s in %s", e.Name(), dir)
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name()] = b
	}
	return files
}

// migrateNames lists the names of files, sorted.
func migrateNames(files map[string][]byte) []string {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// errMigrateCrash stands for a crash during a migration.
var errMigrateCrash = errors.New("simulated crash")

// migrateCrashingStorage fails its crashAt-th write or delete and every
// one after, as a process that died would (1-based; 0 never), and counts
// them.
type migrateCrashingStorage struct {
	core.FileStorage
	mu      sync.Mutex
	crashAt int
	ops     int
}

func (s *migrateCrashingStorage) mutate() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ops++
	if s.crashAt > 0 && s.ops >= s.crashAt {
		return errMigrateCrash
	}
	return nil
}

func (s *migrateCrashingStorage) CreateFile(ctx context.Context, p string, b []byte) error {
	if err := s.mutate(); err != nil {
		return err
	}
	return s.FileStorage.CreateFile(ctx, p, b)
}

func (s *migrateCrashingStorage) UpsertFile(ctx context.Context, p string, b []byte) error {
	if err := s.mutate(); err != nil {
		return err
	}
	return s.FileStorage.UpsertFile(ctx, p, b)
}

func (s *migrateCrashingStorage) DeleteFile(ctx context.Context, p string) error {
	if err := s.mutate(); err != nil {
		return err
	}
	return s.FileStorage.DeleteFile(ctx, p)
}
