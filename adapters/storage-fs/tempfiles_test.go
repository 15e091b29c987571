package storagefs_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	storagefs "github.com/foliovec/folio/adapters/storage-fs"
)

// RemoveTempFiles removes the stale temporary files of interrupted writes,
// and nothing else: not fresh ones, not other files, not below the folder.
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
	n, err := localStorage().RemoveTempFiles(context.Background(), dir, 15*time.Minute)
	if err != nil || n != 2 {
		t.Fatalf("removed %d, %v; want 2", n, err)
	}
	for name, want := range map[string]bool{
		storagefs.TempPrefix + "stale1": false, storagefs.TempPrefix + "fresh": true,
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
