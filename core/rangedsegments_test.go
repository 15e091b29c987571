package core

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
)

// rangingTestStorage is a memTestStorage that reads parts of files
// (FileRangeReader) as they were when opened, counting the bytes so read;
// readErr, when set, is what those reads fail with.
type rangingTestStorage struct {
	*memTestStorage
	ranged  atomic.Int64 // bytes read through OpenFileRange's files
	readErr atomic.Pointer[error]
}

var _ FileRangeReader = (*rangingTestStorage)(nil)

func (r *rangingTestStorage) OpenFileRange(ctx context.Context, p string) (RangeFile, error) {
	b, err := r.mem.ReadFile(ctx, p)
	if err != nil {
		return nil, err
	}
	return &testRangeFile{st: r, b: b}, nil
}

type testRangeFile struct {
	st *rangingTestStorage
	b  []byte
}

func (f *testRangeFile) Size() int64 { return int64(len(f.b)) }

func (f *testRangeFile) ReadRange(ctx context.Context, p []byte, off int64) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := f.st.readErr.Load(); err != nil {
		return *err
	}
	if off < 0 || off+int64(len(p)) > int64(len(f.b)) {
		return io.ErrUnexpectedEOF
	}
	f.st.ranged.Add(int64(copy(p, f.b[off:])))
	return nil
}

func (f *testRangeFile) Close() error { return nil }

// On storage that reads parts of files and does not map them, an index
// that keeps 4-bit codes reads of its large segments the codes, ids and
// metadata, not the vectors, and then only the rows it re-ranks or hands
// out; it answers as an index holding every vector does, through writes
// that keep its rows, a rebuild of its columns, a compaction and a
// conversion to the file layout, each of which reads what it rewrites.
// A row that cannot be read fails what needed it, and loses nothing.
func TestSegmentsReadInParts(t *testing.T) {
	ctx := context.Background()
	st := &rangingTestStorage{memTestStorage: newMemTestStorage()}
	int4 := IndexOptions{Storage: st, Codec: jsonTestCodec{}, ScanCodes: CodesInt4, RetainDropped: -1}
	const n, d = 1500, 24
	w, items := threeSegments(t, int4, 31, n, d)
	open := func(opts IndexOptions) *LocalIndex { return openTestIndex(t, opts) }
	both := int4
	both.ScanCodes = CodesInt4Int8
	coded, narrowed := open(int4), open(both)
	exact := func() *LocalIndex { return open(IndexOptions{Storage: st.memTestStorage, Codec: jsonTestCodec{}}) }
	queries := append([][]float32{items[7].Vector, items[n+7].Vector}, gaussianUnitVectors(34, 10, d)...)
	same := func(what string, ixs map[string]*LocalIndex) {
		t.Helper()
		want := exact()
		for _, q := range queries {
			wantRes, err := want.QueryItems(ctx, q, "", 10, nil, false)
			if err != nil {
				t.Fatal(err)
			}
			for name, ix := range ixs {
				got, err := ix.QueryItems(ctx, q, "", 10, nil, false)
				if err != nil {
					t.Fatalf("%s, %s: %v", what, name, err)
				}
				sameResults(t, what+", "+name, got, wantRes)
			}
		}
	}
	// Opening and a top-10 query read the segments but for their vectors,
	// then the 400 rows the query re-ranks and the 10 it hands out.
	var rest int64
	for _, e := range w.lay.(*segLayout).man.Segments[:2] {
		raw, err := st.mem.ReadFile(ctx, idxTestFolder+"/"+e.Name)
		if err != nil {
			t.Fatal(err)
		}
		rest += int64(len(raw) - e.Rows*d*4)
	}
	if _, err := coded.QueryItems(ctx, queries[0], "", 10, nil, false); err != nil {
		t.Fatal(err)
	}
	if got, want := st.ranged.Load()-rest, int64(10*DefaultRerankFactorInt4*d*4); got < want || got > want+10*d*4 {
		t.Fatalf("opening and one query read %d bytes of vectors, want the %d of the rows re-ranked and at most 10 more rows", got, want)
	}
	for _, name := range []string{coded.lay.(*segLayout).man.Segments[0].Name, coded.lay.(*segLayout).man.Segments[1].Name} {
		if got := st.readCount(idxTestFolder + "/" + name); got != 0 {
			t.Fatalf("segment %s read whole %d times", name, got)
		}
	}
	s := coded.cur.Load()
	if !s.FetchOnly() || len(s.Head) != 2 || s.HeadRows() != 2*n {
		t.Fatalf("%d parts of %d rows left in their files, want 2 of %d", len(s.Head), s.HeadRows(), 2*n)
	}
	same("opened", map[string]*LocalIndex{"4-bit": coded, "4-bit and int8": narrowed})
	for _, id := range []string{"a3", "b1499", "c3"} {
		it, ok, err := coded.GetItem(ctx, id)
		want := items[slices.IndexFunc(items, func(it IndexItem) bool { return it.ID == id })]
		if err != nil || !ok || !slices.Equal(it.Vector, want.Vector) {
			t.Fatalf("GetItem(%s) = %v, %v", id, ok, err)
		}
	}
	all, err := coded.ListItems(ctx)
	if err != nil || len(all) != len(items) || !slices.Equal(all[n+5].Vector, items[n+5].Vector) {
		t.Fatalf("ListItems: %d items, %v", len(all), err)
	}

	// A row that cannot be read fails the query, GetItem and a
	// compaction, and the index is as it was.
	failed := errors.New("the bucket is gone")
	st.readErr.Store(&failed)
	if _, err := coded.QueryItems(ctx, queries[2], "", 10, nil, false); !errors.Is(err, failed) {
		t.Fatalf("a query whose rows cannot be read: %v", err)
	}
	if _, _, err := coded.GetItem(ctx, "a9"); !errors.Is(err, failed) {
		t.Fatalf("GetItem of a row that cannot be read: %v", err)
	}
	if _, err := coded.Compact(ctx); !errors.Is(err, failed) {
		t.Fatalf("Compact with rows that cannot be read: %v", err)
	}
	st.readErr.Store(nil)
	same("after failed reads", map[string]*LocalIndex{"4-bit": coded, "reopened": open(int4)})

	// Writes that keep the rows, then one that rebuilds the columns.
	added := insertRandom(t, coded, rand.New(rand.NewPCG(35, 35)), "d", 5, d)
	queries = append(queries, added[2].Vector)
	same("after an insert", map[string]*LocalIndex{"4-bit": coded, "reopened": open(int4)})
	var gone []string
	for i := 0; i < 2*n; i += 10 {
		gone = append(gone, items[i].ID)
	}
	if err := coded.BeginUpdate(ctx); err != nil {
		t.Fatal(err)
	}
	for _, id := range gone {
		if err := coded.DeleteItem(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	if err := coded.EndUpdate(ctx); err != nil {
		t.Fatal(err)
	}
	if coded.cur.Load().FetchOnly() {
		t.Fatal("the columns were not rebuilt: no rows were moved into memory")
	}
	same("after deleting a row in 10", map[string]*LocalIndex{"4-bit": coded, "reopened": open(int4), "4-bit and int8": open(both)})

	// A compaction reads the rows it rewrites; the index reopened reads
	// its one segment in parts again.
	if rep, err := open(int4).Compact(ctx); err != nil || rep.Segments < 2 {
		t.Fatalf("Compact = %+v, %v", rep, err)
	}
	reopened := open(int4)
	same("after a compaction", map[string]*LocalIndex{"4-bit": reopened})
	if s := reopened.cur.Load(); !s.FetchOnly() || len(s.Head) != 1 {
		t.Fatal("the compacted segment is not read in parts")
	}
	if err := reopened.ConvertLayout(ctx, LayoutFile); err != nil {
		t.Fatal(err)
	}
	same("converted to the file layout", map[string]*LocalIndex{"4-bit": open(int4)})
	if ok, err := st.PathExists(ctx, idxTestFolder+"/index.json"); err != nil || !ok {
		t.Fatalf("no index file after the conversion: %v %v", ok, err)
	}
	if _, err := st.ReadFile(ctx, idxTestFolder+"/missing"); !errors.Is(err, fs.ErrNotExist) || strings.Contains(err.Error(), "segment") {
		t.Fatalf("a missing file: %v", err)
	}
}
