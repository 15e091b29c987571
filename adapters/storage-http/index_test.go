package storagehttp_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	storagehttp "github.com/foliovec/folio/adapters/storage-http"
	"github.com/foliovec/folio/conformance/reference"
	"github.com/foliovec/folio/core"
)

const dims = 64

// vec is item i's vector in version v of the test index.
func vec(v, i int) []float32 {
	x := make([]float32, dims)
	for j := range x {
		x[j] = float32(math.Sin(float64(i*dims+j)*0.37 + float64(v)*1.3))
	}
	return x
}

// writeIndex writes version v of a segmented index with 4-bit codes of n
// items into folder of the host's disk, and returns the same index opened
// from the disk: the answers the index over HTTP must give.
func writeIndex(t testing.TB, h *host, folder string, v, n int) *core.LocalIndex {
	t.Helper()
	ctx := t.Context()
	opts := core.IndexOptions{Storage: h.local(t), Codec: reference.Codec{}, ScanCodes: core.CodesInt4}
	w, err := core.NewLocalIndex(folder, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.CreateIndex(ctx, core.CreateIndexConfig{Layout: core.LayoutSegmented, DeleteIfExists: true}); err != nil {
		t.Fatal(err)
	}
	items := make([]core.IndexItem, n)
	for i := range items {
		items[i] = core.IndexItem{ID: fmt.Sprint("item-", i), Vector: vec(v, i), Metadata: core.Metadata{"v": float64(v)}}
	}
	if _, err := w.BatchInsertItems(ctx, items); err != nil {
		t.Fatal(err)
	}
	local, err := core.NewLocalIndex(folder, opts)
	if err != nil {
		t.Fatal(err)
	}
	return local
}

// webIndex opens folder over HTTP, read-only, with 4-bit codes.
func webIndex(t testing.TB, s *storagehttp.Storage, folder string) *core.LocalIndex {
	t.Helper()
	ix, err := core.NewLocalIndex(folder, core.IndexOptions{Storage: s, Codec: reference.Codec{}, ScanCodes: core.CodesInt4, FreshnessInterval: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

// answersAsLocal checks that ix answers each query of version v as local
// does.
func answersAsLocal(t *testing.T, ix, local *core.LocalIndex, v int, queries ...int) {
	t.Helper()
	for _, q := range queries {
		got, err := ix.QueryItems(t.Context(), vec(v, q), "", 10, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		want, err := local.QueryItems(t.Context(), vec(v, q), "", 10, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		if d := sameAnswers(got, want); d != "" {
			t.Errorf("query %d over HTTP: %s", q, d)
		}
	}
}

// sameAnswers reports how got differs from want, "" when it does not.
func sameAnswers(got, want []core.QueryResult) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d results, want %d", len(got), len(want))
	}
	for r := range want {
		if got[r].Item.ID != want[r].Item.ID || got[r].Score != want[r].Score || !slices.Equal(got[r].Item.Vector, want[r].Item.Vector) {
			return fmt.Sprintf("rank %d: %s %v, want %s %v", r, got[r].Item.ID, got[r].Score, want[r].Item.ID, want[r].Score)
		}
	}
	return ""
}

func TestIndexOverHTTP(t *testing.T) {
	h := newHost(t)
	local := writeIndex(t, h, "ix", 1, 20_000)
	s := h.storage(t, &storagehttp.Options{FirstRead: 4096})
	ix := webIndex(t, s, "ix")
	ctx := t.Context()
	answersAsLocal(t, ix, local, 1, 0, 17, 2999)
	st := s.Stats()
	seg := segmentFile(t, h, "ix")
	fi, err := os.Stat(seg)
	if err != nil {
		t.Fatal(err)
	}
	if st.Bytes >= fi.Size()/2 {
		t.Errorf("the index over HTTP read %d bytes, its segment is %d: the vectors should stay on the host", st.Bytes, fi.Size())
	}
	t.Logf("open and 3 queries: %d requests, %d bytes (segment %d bytes)", st.Requests, st.Bytes, fi.Size())
	if _, err := ix.UpsertItem(ctx, core.IndexItem{ID: "new", Vector: vec(1, 5)}); !errors.Is(err, storagehttp.ErrReadOnly) {
		t.Errorf("a write to the index over HTTP: %v, want ErrReadOnly", err)
	}
}

// segmentFile is the path of the one segment file of the host's folder.
func segmentFile(t testing.TB, h *host, folder string) string {
	t.Helper()
	segs, err := filepath.Glob(filepath.Join(h.dir, folder, "*.seg"))
	if err != nil || len(segs) != 1 {
		t.Fatalf("segments of %s: %v, %v", folder, segs, err)
	}
	return segs[0]
}

// TestIndexSwappedMidQuery replaces the whole index on the host while a
// query re-ranks its candidates: the query answers from the new version
// alone.
func TestIndexSwappedMidQuery(t *testing.T) {
	h := newHost(t)
	writeIndex(t, h, "ix", 1, 3000)
	want, err := writeIndex(t, h, "next", 2, 2500).QueryItems(t.Context(), vec(2, 40), "", 10, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	s := h.storage(t, &storagehttp.Options{FirstRead: 1024, CacheBytes: -1})
	ix := webIndex(t, s, "ix")
	ctx := t.Context()
	if _, err := ix.QueryItems(ctx, vec(1, 3), "", 10, nil, false); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	swapped := false
	h.setHook(func(w http.ResponseWriter, r *http.Request) bool {
		if r.Header.Get("If-Match") != "" && strings.HasSuffix(r.URL.Path, ".seg") {
			once.Do(func() {
				if err := os.Rename(filepath.Join(h.dir, "ix"), filepath.Join(h.dir, "old")); err != nil {
					t.Error(err)
				}
				if err := os.Rename(filepath.Join(h.dir, "next"), filepath.Join(h.dir, "ix")); err != nil {
					t.Error(err)
				}
				swapped = true
			})
		}
		return false
	})
	got, err := ix.QueryItems(ctx, vec(2, 40), "", 10, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if !swapped {
		t.Fatal("the query read no rows from the host: nothing was swapped under it")
	}
	if d := sameAnswers(got, want); d != "" {
		t.Errorf("a query during the swap: %s (want the new version's answers)", d)
	}
	for _, r := range got {
		if r.Item.Metadata["v"] != float64(2) {
			t.Errorf("result %s is of version %v, want 2", r.Item.ID, r.Item.Metadata["v"])
		}
	}
}

// TestMissingSegment: a host that lost a segment fails a query that needs
// it with fs.ErrNotExist, and the open with core.ErrCorrupt (the manifest
// names a file the folder lacks); neither answers wrongly.
func TestMissingSegment(t *testing.T) {
	h := newHost(t)
	writeIndex(t, h, "ix", 1, 3000)
	seg := segmentFile(t, h, "ix")
	s := h.storage(t, &storagehttp.Options{FirstRead: 1024, CacheBytes: -1})
	ix := webIndex(t, s, "ix")
	ctx := t.Context()
	if _, err := ix.QueryItems(ctx, vec(1, 3), "", 10, nil, false); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(seg); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.QueryItems(ctx, vec(1, 2000), "", 10, nil, false); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a query whose segment the host lost: %v, want fs.ErrNotExist", err)
	}
	fresh := webIndex(t, h.storage(t, nil), "ix")
	_, err := fresh.QueryItems(ctx, vec(1, 3), "", 10, nil, false)
	if !errors.Is(err, core.ErrCorrupt) || !strings.Contains(err.Error(), filepath.Base(seg)) || !strings.Contains(err.Error(), "404") {
		t.Errorf("opening an index whose segment the host lost: %v, want core.ErrCorrupt naming the segment and the 404", err)
	}
}

// TestStalledIndexQuery: a query of an index on a host that stops
// answering ends at its deadline.
func TestStalledIndexQuery(t *testing.T) {
	h := newHost(t)
	writeIndex(t, h, "ix", 1, 3000)
	s := h.storage(t, &storagehttp.Options{FirstRead: 1024})
	ix := webIndex(t, s, "ix")
	if _, err := ix.QueryItems(t.Context(), vec(1, 3), "", 10, nil, false); err != nil {
		t.Fatal(err)
	}
	h.stall(t)
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	if _, err := ix.QueryItems(ctx, vec(1, 2000), "", 10, nil, false); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a query of a host that stalls: %v, want the deadline", err)
	}
}
