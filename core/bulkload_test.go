package core

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

// bulkItems are n items with Gaussian vectors of d values and a category.
func bulkItems(n, d int) []IndexItem {
	vecs := gaussianUnitVectors(17, n, d)
	items := make([]IndexItem, n)
	for i, v := range vecs {
		items[i] = IndexItem{ID: fmt.Sprintf("b%05d", i), Vector: v, Metadata: Metadata{"category": fmt.Sprint("c", i%3)}}
	}
	return items
}

// BulkLoad gives the index that inserting the same items gives: the same
// answers, items and stats, then and after a reopen; with 4-bit codes
// the segment carries them. Every item is checked before anything is
// written.
func TestBulkLoadEqualsInserting(t *testing.T) {
	ctx := context.Background()
	const n, d = 2500, 32
	items := bulkItems(n, d)
	for _, codes := range []ScanCodes{"", CodesInt4} {
		t.Run(cmp.Or(string(codes), "exact"), func(t *testing.T) {
			st := &mappingTestStorage{memTestStorage: newMemTestStorage()}
			opts := IndexOptions{Storage: st, Codec: jsonTestCodec{}, ScanCodes: codes}
			ix, err := NewLocalIndex(idxTestFolder, opts)
			if err != nil {
				t.Fatal(err)
			}
			if err := ix.CreateIndex(ctx, CreateIndexConfig{Layout: LayoutSegmented, MetadataConfig: MetadataConfig{Indexed: []string{"category"}}}); err != nil {
				t.Fatal(err)
			}
			calls := 0
			got, err := ix.BulkLoad(ctx, IndexSource{Len: n, Item: func(i int) IndexItem { calls++; return items[i] }})
			if err != nil || got != n {
				t.Fatalf("BulkLoad = %d, %v", got, err)
			}
			t.Logf("%d calls of Item for %d items", calls, n)
			ref, err := NewLocalIndex("/ref", IndexOptions{Storage: newMemTestStorage(), Codec: jsonTestCodec{}})
			if err != nil {
				t.Fatal(err)
			}
			if err := ref.CreateIndex(ctx, CreateIndexConfig{MetadataConfig: MetadataConfig{Indexed: []string{"category"}}}); err != nil {
				t.Fatal(err)
			}
			if _, err := ref.BatchInsertItems(ctx, items); err != nil {
				t.Fatal(err)
			}
			reopened, err := NewLocalIndex(idxTestFolder, opts)
			if err != nil {
				t.Fatal(err)
			}
			for _, lx := range []*LocalIndex{ix, reopened} {
				for qi, q := range append(gaussianUnitVectors(18, 5, d), items[42].Vector) {
					for _, f := range []Filter{nil, {"category": "c1"}} {
						a, err := lx.QueryItems(ctx, q, "", 10, f, false)
						if err != nil {
							t.Fatal(err)
						}
						b, err := ref.QueryItems(ctx, q, "", 10, f, false)
						if err != nil {
							t.Fatal(err)
						}
						sameResults(t, fmt.Sprintf("query %d filter %v", qi, f), a, b)
					}
				}
				it, ok, err := lx.GetItem(ctx, "b00042")
				if err != nil || !ok || !slices.Equal(it.Vector, items[42].Vector) || it.Metadata["category"] != "c0" || math.Abs(it.Norm-1) > 1e-6 {
					t.Fatalf("GetItem = %+v %v %v", it, ok, err)
				}
			}
			if st.maps.Load() == 0 {
				t.Fatal("the loaded segment was not mapped")
			}
			if codes == CodesInt4 {
				if runs := reopened.cur.Load().quantCodes().int4.Runs(); len(runs) != 1 || !runs[0].Sealed {
					t.Fatal("the reopened index did not read its codes from the segment")
				}
			}
		})
	}
}

// A bad item, or an index that is not empty and segmented, fails the
// load with a clear error, and nothing is written.
func TestBulkLoadRefuses(t *testing.T) {
	ctx := context.Background()
	items := bulkItems(100, 8)
	nan := slices.Clone(items[7].Vector)
	nan[2] = float32(math.NaN())
	for _, c := range []struct {
		name string
		bad  func(i int, it IndexItem) IndexItem
		want error
	}{
		{"a duplicate id", func(i int, it IndexItem) IndexItem {
			if i == 60 {
				it.ID = items[3].ID
			}
			return it
		}, ErrItemExists},
		{"no id", func(i int, it IndexItem) IndexItem {
			if i == 5 {
				it.ID = ""
			}
			return it
		}, ErrInvalidArgument},
		{"a NaN", func(i int, it IndexItem) IndexItem {
			if i == 7 {
				it.Vector = nan
			}
			return it
		}, ErrInvalidArgument},
		{"another length", func(i int, it IndexItem) IndexItem {
			if i == 9 {
				it.Vector = it.Vector[:4]
			}
			return it
		}, ErrDimensionMismatch},
		{"a side-car", func(i int, it IndexItem) IndexItem {
			if i == 11 {
				it.Metadata = Metadata{"category": "c", "text": "not indexed"}
			}
			return it
		}, ErrInvalidArgument},
	} {
		t.Run(c.name, func(t *testing.T) {
			st := newMemTestStorage()
			ix := newSegmentedIndex(t, IndexOptions{Storage: st, Codec: jsonTestCodec{}})
			if err := ix.CreateIndex(ctx, CreateIndexConfig{Layout: LayoutSegmented, DeleteIfExists: true, MetadataConfig: MetadataConfig{Indexed: []string{"category"}}}); err != nil {
				t.Fatal(err)
			}
			before := st.fileNames(idxTestFolder)
			_, err := ix.BulkLoad(ctx, IndexSource{Len: len(items), Item: func(i int) IndexItem { return c.bad(i, items[i]) }})
			if !errors.Is(err, c.want) {
				t.Fatalf("BulkLoad: %v, want %v", err, c.want)
			}
			if after := st.fileNames(idxTestFolder); !slices.Equal(after, before) {
				t.Fatalf("files %v after a refused load, %v before", after, before)
			}
			if n, _ := ix.ListItems(ctx); len(n) != 0 {
				t.Fatalf("%d items after a refused load", len(n))
			}
		})
	}
	st := newMemTestStorage()
	ix := newSegmentedIndex(t, IndexOptions{Storage: st, Codec: jsonTestCodec{}})
	if n, err := ix.BulkLoad(ctx, IndexSource{}); n != 0 || err != nil {
		t.Fatalf("BulkLoad of no items = %d, %v", n, err)
	}
	if _, err := ix.BatchInsertItems(ctx, items[:1]); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.BulkLoad(ctx, IndexSource{Len: 1, Item: func(int) IndexItem { return items[1] }}); !errors.Is(err, ErrInvalidArgument) || !strings.Contains(err.Error(), "holds items") {
		t.Fatalf("BulkLoad into a non-empty index: %v", err)
	}
	file, err := NewLocalIndex("/file", IndexOptions{Storage: st, Codec: jsonTestCodec{}})
	if err != nil {
		t.Fatal(err)
	}
	if err := file.CreateIndex(ctx, CreateIndexConfig{}); err != nil {
		t.Fatal(err)
	}
	if _, err := file.BulkLoad(ctx, IndexSource{Len: 1, Item: func(int) IndexItem { return items[1] }}); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("BulkLoad into the file layout: %v", err)
	}
	docs := newCreatedDocEnv(t, nil).ix
	if _, err := docs.BulkLoad(ctx, IndexSource{Len: 1, Item: func(int) IndexItem { return items[1] }}); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("BulkLoad into a document index: %v", err)
	}
}
