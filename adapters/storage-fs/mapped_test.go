//go:build unix

package storagefs_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	storagefs "github.com/foliovec/folio/adapters/storage-fs"
	"github.com/foliovec/folio/conformance/reference"
	"github.com/foliovec/folio/core"
)

// A segmented index on this storage reads its large segments' vectors in
// place from mappings: a reader answers as the writer does, and goes on
// answering from its mapping while a compaction deletes the file.
func TestSegmentedIndexReadsItsVectorsInPlace(t *testing.T) {
	ctx := context.Background()
	st, err := storagefs.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "ix")
	opts := core.IndexOptions{Storage: st, Codec: reference.Codec{}, RetainDropped: -1}
	writer, err := core.NewLocalIndex(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := writer.CreateIndex(ctx, core.CreateIndexConfig{Layout: core.LayoutSegmented}); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(4, 2))
	vec := func() []float32 {
		v := make([]float32, 16)
		for i := range v {
			v[i] = float32(rng.NormFloat64())
		}
		return v
	}
	items := make([]core.IndexItem, 3000)
	for i := range items {
		items[i] = core.IndexItem{ID: fmt.Sprint("i", i), Vector: vec(), Metadata: core.Metadata{"n": float64(i)}}
	}
	if _, err := writer.BatchInsertItems(ctx, items); err != nil {
		t.Fatal(err)
	}
	for i := range 10 { // a second segment, and tombstones in the first
		if _, err := writer.UpsertItem(ctx, core.IndexItem{ID: fmt.Sprint("i", i*7), Vector: vec()}); err != nil {
			t.Fatal(err)
		}
	}
	reader, err := core.NewLocalIndex(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	queries := make([][]float32, 20)
	for i := range queries {
		queries[i] = vec()
	}
	same := func(what string) {
		t.Helper()
		for _, q := range queries {
			want, err := writer.QueryItems(ctx, q, "", 10, nil, false)
			if err != nil {
				t.Fatal(err)
			}
			got, err := reader.QueryItems(ctx, q, "", 10, nil, false)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.EqualFunc(got, want, func(a, b core.QueryResult) bool {
				return a.Item.ID == b.Item.ID && a.Score == b.Score && slices.Equal(a.Item.Vector, b.Item.Vector)
			}) {
				t.Fatalf("%s: the reader answers %v, the writer %v", what, ids(got), ids(want))
			}
		}
	}
	same("after open")
	if runtime.GOOS == "linux" {
		maps, err := os.ReadFile("/proc/self/maps")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(maps), dir) {
			t.Fatal("no segment of the index is mapped")
		}
	}
	if rep, err := writer.Compact(ctx); err != nil || rep.Segments == 0 {
		t.Fatalf("Compact = %+v, %v", rep, err)
	}
	same("after a compaction deleted the mapped segment") // the reader has not looked yet
	reader2, err := core.NewLocalIndex(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	reader = reader2
	same("reopened after the compaction")
}

func ids(rs []core.QueryResult) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.Item.ID
	}
	return out
}

// MaxReadSize bounds what ReadFile reads into memory, not what MapFile
// maps: a mapping past it maps, and reads back the file's bytes through
// the mapping and through ReadAt, which a mapping offers (io.ReaderAt).
func TestMapFilePastMaxReadSize(t *testing.T) {
	dir := t.TempDir()
	content := []byte(strings.Repeat("0123456789", 20))
	os.WriteFile(filepath.Join(dir, "big.seg"), content, 0o644)
	s, err := storagefs.New(&storagefs.Options{MaxReadSize: 100})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	m, err := s.MapFile(ctx, filepath.Join(dir, "big.seg"))
	if err != nil {
		t.Fatalf("MapFile past MaxReadSize: %v", err)
	}
	if !slices.Equal(m.Bytes(), content) {
		t.Fatal("the mapping differs from the file")
	}
	ra, ok := m.(io.ReaderAt)
	if !ok {
		t.Fatal("the mapping is not an io.ReaderAt")
	}
	buf := make([]byte, 7)
	if n, err := ra.ReadAt(buf, 193); n != 7 || err != nil || string(buf) != "3456789" {
		t.Fatalf("ReadAt = %d %q %v", n, buf, err)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := ra.ReadAt(buf, 0); err == nil {
		t.Fatal("ReadAt after Close succeeded")
	}
	if _, err := s.ReadFile(ctx, filepath.Join(dir, "big.seg")); !errors.Is(err, storagefs.ErrTooLarge) {
		t.Fatalf("ReadFile past MaxReadSize: %v", err)
	}
}

// A segmented index with 4-bit codes, bulk loaded on this storage, maps
// its segment and answers as an exact index over the same folder does,
// its candidates read from the file with pread; rows upserted after the
// load, in their own segment, rank among them.
func TestInt4IndexOnTheFileSystem(t *testing.T) {
	ctx := context.Background()
	st, err := storagefs.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "ix")
	rng := rand.New(rand.NewPCG(9, 4))
	const n, d = 5000, 48
	vecs := make([][]float32, n)
	for i := range vecs {
		vecs[i] = make([]float32, d)
		for j := range vecs[i] {
			vecs[i][j] = float32(rng.NormFloat64())
		}
	}
	int4 := core.IndexOptions{Storage: st, Codec: reference.Codec{}, ScanCodes: core.CodesInt4}
	writer, err := core.NewLocalIndex(dir, int4)
	if err != nil {
		t.Fatal(err)
	}
	if err := writer.CreateIndex(ctx, core.CreateIndexConfig{Layout: core.LayoutSegmented}); err != nil {
		t.Fatal(err)
	}
	src := core.IndexSource{Len: n, Item: func(i int) core.IndexItem { return core.IndexItem{ID: fmt.Sprint("v", i), Vector: vecs[i]} }}
	if _, err := writer.BulkLoad(ctx, src); err != nil {
		t.Fatal(err)
	}
	if _, err := writer.UpsertItem(ctx, core.IndexItem{ID: "late", Vector: vecs[11]}); err != nil {
		t.Fatal(err)
	}
	coded, err := core.NewLocalIndex(dir, int4)
	if err != nil {
		t.Fatal(err)
	}
	exact, err := core.NewLocalIndex(dir, core.IndexOptions{Storage: st, Codec: reference.Codec{}})
	if err != nil {
		t.Fatal(err)
	}
	for qi := range 30 {
		q := vecs[qi*97%n]
		got, err := coded.QueryItems(ctx, q, "", 10, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		want, err := exact.QueryItems(ctx, q, "", 10, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("query %d: %d results, want %d", qi, len(got), len(want))
		}
		for i := range got {
			if got[i].Item.ID != want[i].Item.ID || got[i].Score != want[i].Score || !slices.Equal(got[i].Item.Vector, want[i].Item.Vector) {
				t.Fatalf("query %d rank %d: %s %v, want %s %v", qi, i, got[i].Item.ID, got[i].Score, want[i].Item.ID, want[i].Score)
			}
		}
	}
	res, err := coded.QueryItems(ctx, vecs[11], "", 2, nil, false)
	if err != nil || len(res) != 2 || res[0].Score < 0.9999 || res[1].Score < 0.9999 {
		t.Fatalf("the loaded row and its upserted twin: %v %v", res, err)
	}
}

// A symbolic link in a segment file's place is refused by every read
// (ReadFile, OpenFile, MapFile, OpenFileRange), whether it points outside
// the folder or into it, by the storage over the whole file system and by
// a rooted one; other files are still read through links.
func TestSegmentFilesAreNeverReadThroughLinks(t *testing.T) {
	ctx := t.Context()
	base := t.TempDir()
	root := filepath.Join(base, "root")
	mustNoErr(t, os.MkdirAll(filepath.Join(root, "ix"), 0o755))
	mustNoErr(t, os.WriteFile(filepath.Join(base, "secret.seg"), []byte("secret"), 0o644))
	mustNoErr(t, os.WriteFile(filepath.Join(root, "ix", "inside.seg"), []byte("inside"), 0o644))
	mustNoErr(t, os.Symlink(filepath.Join(base, "secret.seg"), filepath.Join(root, "ix", "out.seg")))
	mustNoErr(t, os.Symlink("inside.seg", filepath.Join(root, "ix", "in.seg")))
	mustNoErr(t, os.Symlink("inside.seg", filepath.Join(root, "ix", "index.json")))
	whole, err := storagefs.New(nil)
	mustNoErr(t, err)
	for name, st := range map[string]struct {
		s    *storagefs.LocalFileStorage
		path func(string) string
	}{
		"whole":  {whole, func(p string) string { return filepath.Join(root, p) }},
		"rooted": {rooted(t, root), func(p string) string { return p }},
	} {
		for _, link := range []string{"ix/out.seg", "ix/in.seg"} {
			p := st.path(link)
			_, readErr := st.s.ReadFile(ctx, p)
			_, _, openErr := st.s.OpenFile(ctx, p)
			_, mapErr := st.s.MapFile(ctx, p)
			_, rangeErr := st.s.OpenFileRange(ctx, p)
			for op, err := range map[string]error{"ReadFile": readErr, "OpenFile": openErr, "MapFile": mapErr, "OpenFileRange": rangeErr} {
				if !errors.Is(err, storagefs.ErrNotRegular) && !(name == "rooted" && link == "ix/out.seg" && errors.Is(err, storagefs.ErrOutsideRoot)) {
					t.Errorf("%s: %s of the link %s = %v, want storagefs.ErrNotRegular", name, op, link, err)
				}
			}
		}
		if b, err := st.s.ReadFile(ctx, st.path("ix/index.json")); err != nil || string(b) != "inside" {
			t.Errorf("%s: a link that is no segment: %q, %v, want it read", name, b, err)
		}
		if b, err := st.s.ReadFile(ctx, st.path("ix/inside.seg")); err != nil || string(b) != "inside" {
			t.Errorf("%s: a segment that is a file: %q, %v", name, b, err)
		}
	}
}
