package storagefs_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	storagefs "github.com/foliovec/folio/adapters/storage-fs"
	"github.com/foliovec/folio/core"
)

// rssFileKB is the process's resident pages of mapped files, in KiB.
func rssFileKB(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "RssFile:"); ok {
			n, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatal("no RssFile in /proc/self/status")
	return 0
}

// ReleasePages drops a mapping's pages from the process's memory; the
// mapping still reads the file's bytes, and after Close it does nothing.
func TestMappingReleasesItsPages(t *testing.T) {
	ctx := context.Background()
	st, err := storagefs.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "f.bin")
	content := bytes.Repeat([]byte("0123456789abcdef"), 2<<20) // 32 MiB
	if err := os.WriteFile(path, content, 0o644); err != nil {
		t.Fatal(err)
	}
	mf, err := st.MapFile(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer mf.Close()
	rel, ok := mf.(core.PageReleaser)
	if !ok {
		t.Fatal("the mapping is not a core.PageReleaser")
	}
	before := rssFileKB(t)
	if !bytes.Equal(mf.Bytes(), content) { // reads every page
		t.Fatal("the mapping differs from the file")
	}
	touched := rssFileKB(t)
	if err := rel.ReleasePages(); err != nil {
		t.Fatal(err)
	}
	released := rssFileKB(t)
	t.Logf("RssFile: %d KiB, %d after reading the mapping, %d after ReleasePages", before, touched, released)
	if touched-released < 24<<10 {
		t.Fatalf("ReleasePages freed %d KiB of the 32 MiB read", touched-released)
	}
	if !bytes.Equal(mf.Bytes(), content) {
		t.Fatal("after ReleasePages the mapping differs from the file")
	}
	if err := mf.Close(); err != nil {
		t.Fatal(err)
	}
	if err := rel.ReleasePages(); err != nil {
		t.Fatalf("ReleasePages after Close: %v", err)
	}
}
