package storagefs_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	storagefs "github.com/foliovec/folio/adapters/storage-fs"
)

// RemoveTempFiles removes the temporary files of interrupted writes, and
// nothing else: not other files, not below the folder. A file no writer
// holds (as one a killed writer left) goes whatever its age where files
// are locked (Unix); elsewhere only a stale one goes.
func TestRemoveTempFiles(t *testing.T) {
	dir := t.TempDir()
	old := time.Now().Add(-time.Hour)
	write := func(name string, stale bool) {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		if stale {
			os.Chtimes(p, old, old)
		}
	}
	write(storagefs.TempPrefix+"stale1", true)
	write(storagefs.TempPrefix+"stale2", true)
	write(storagefs.TempPrefix+"fresh", false)
	write("index.json", true)
	write("sub/"+storagefs.TempPrefix+"below", true)
	want := 2
	if runtime.GOOS != "windows" {
		want = 3
	}
	n, err := localStorage().RemoveTempFiles(context.Background(), dir, 15*time.Minute)
	if err != nil || n != want {
		t.Fatalf("removed %d, %v; want %d", n, err, want)
	}
	for name, want := range map[string]bool{
		storagefs.TempPrefix + "stale1": false, storagefs.TempPrefix + "fresh": runtime.GOOS == "windows",
		"index.json": true, "sub/" + storagefs.TempPrefix + "below": true,
	} {
		if _, err := os.Stat(filepath.Join(dir, name)); (err == nil) != want {
			t.Errorf("%s: exists %v, want %v", name, err == nil, want)
		}
	}
	if n, err := localStorage().RemoveTempFiles(context.Background(), filepath.Join(dir, "missing"), 0); n != 0 || err != nil {
		t.Errorf("missing folder: %d, %v", n, err)
	}
}

// A write in progress holds its temporary file: RemoveTempFiles with no
// age limit leaves it, and the write completes.
func TestRemoveTempFilesKeepsAWriteInProgress(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := localStorage()
	writing, finish := make(chan struct{}), make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- s.UpsertFileFrom(ctx, filepath.Join(dir, "f"), func(w io.Writer) error {
			if _, err := w.Write([]byte("half")); err != nil {
				return err
			}
			close(writing)
			<-finish
			_, err := w.Write([]byte(" and half"))
			return err
		})
	}()
	<-writing
	n, err := s.RemoveTempFiles(ctx, dir, 0)
	close(finish)
	if err != nil || n != 0 {
		t.Fatalf("RemoveTempFiles during a write removed %d, %v; want 0", n, err)
	}
	if err := <-done; err != nil {
		t.Fatalf("the write: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "f")); err != nil || string(b) != "half and half" {
		t.Fatalf("the file holds %q, %v", b, err)
	}
}

// Writes racing RemoveTempFiles with no age limit all complete, whole,
// and leave no temporary file behind.
func TestRemoveTempFilesRacesWrites(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := localStorage()
	stop := make(chan struct{})
	var remover, writers sync.WaitGroup
	remover.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := s.RemoveTempFiles(ctx, dir, 0); err != nil {
				t.Error(err)
				return
			}
		}
	})
	for w := range 4 {
		writers.Go(func() {
			for i := range 200 {
				var err error
				if i%2 == 0 { // replaced over and over
					err = s.UpsertFile(ctx, filepath.Join(dir, fmt.Sprintf("u%d-%d", w, i%6)), []byte(fmt.Sprint(w, i)))
				} else {
					err = s.CreateFile(ctx, filepath.Join(dir, fmt.Sprintf("c%d-%d", w, i)), []byte(fmt.Sprint(w, i)))
				}
				if err != nil {
					t.Errorf("write %d of writer %d: %v", i, w, err)
					return
				}
			}
		})
	}
	writers.Wait()
	close(stop)
	remover.Wait()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), storagefs.TempPrefix) {
			t.Errorf("left behind: %s", e.Name())
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "u3-4")); err != nil || string(b) != "3 196" {
		t.Errorf("u3-4 holds %q, %v; want the last write, %q", b, err, "3 196")
	}
	if len(entries) != 4*(6/2+100) {
		t.Errorf("%d files, want %d", len(entries), 4*(6/2+100))
	}
}
