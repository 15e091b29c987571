//go:build unix

package storagefs_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	storagefs "github.com/foliovec/folio/adapters/storage-fs"
	"github.com/foliovec/folio/core"
)

// storages returns, over dir, the unconfined storage (paths given whole)
// and the rooted one (paths relative to dir), with a function that turns a
// name into each one's path.
func readStorages(t *testing.T, dir string, opts storagefs.Options) map[string]func() (core.FileStorage, func(string) string) {
	return map[string]func() (core.FileStorage, func(string) string){
		"New": func() (core.FileStorage, func(string) string) {
			s, err := storagefs.New(&storagefs.Options{MaxReadSize: opts.MaxReadSize})
			if err != nil {
				t.Fatal(err)
			}
			return s, func(name string) string { return filepath.Join(dir, name) }
		},
		"Root": func() (core.FileStorage, func(string) string) {
			s, err := storagefs.New(&storagefs.Options{Root: dir, MaxReadSize: opts.MaxReadSize})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return s, func(name string) string { return name }
		},
	}
}

// ReadFile never blocks on, nor reads without end from, something that is
// not a regular file: a FIFO (opened by no writer) and a link to
// /dev/zero fail at once with ErrNotRegular.
func TestReadFileRefusesWhatIsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.json"), 0o644); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "zero.json")); err != nil {
		t.Fatal(err)
	}
	for name, open := range readStorages(t, dir, storagefs.Options{}) {
		s, path := open()
		for _, file := range []string{"fifo.json", "zero.json"} {
			if name == "Root" && file == "zero.json" {
				continue // the link leaves the root: ErrOutsideRoot, tested elsewhere
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			start := time.Now()
			_, err := s.ReadFile(ctx, path(file))
			cancel()
			if !errors.Is(err, storagefs.ErrNotRegular) {
				t.Errorf("%s: ReadFile(%s) = %v, want ErrNotRegular", name, file, err)
			}
			if d := time.Since(start); d > 2*time.Second {
				t.Errorf("%s: ReadFile(%s) took %v", name, file, d)
			}
		}
	}
}

// A file larger than MaxReadSize is ErrTooLarge, naming the file; one at
// the limit reads whole.
func TestReadFileSizeLimit(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "small.json"), make([]byte, 100), 0o644)
	os.WriteFile(filepath.Join(dir, "big.json"), make([]byte, 101), 0o644)
	for name, open := range readStorages(t, dir, storagefs.Options{MaxReadSize: 100}) {
		s, path := open()
		if b, err := s.ReadFile(context.Background(), path("small.json")); err != nil || len(b) != 100 {
			t.Errorf("%s: at the limit: %d bytes, %v", name, len(b), err)
		}
		_, err := s.ReadFile(context.Background(), path("big.json"))
		if !errors.Is(err, storagefs.ErrTooLarge) || !strings.Contains(err.Error(), "big.json") {
			t.Errorf("%s: over the limit: %v", name, err)
		}
	}
	if _, err := storagefs.New(&storagefs.Options{MaxReadSize: -1}); !errors.Is(err, core.ErrInvalidArgument) {
		t.Errorf("negative MaxReadSize: %v", err)
	}
}

// A cancelled context stops ReadFile with the context's error.
func TestReadFileHonoursContext(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.json"), make([]byte, 20<<20), 0o644)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := localStorage().ReadFile(ctx, filepath.Join(dir, "a.json")); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
}
