package core

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/foliovec/folio/core/internal/segfile"
)

// segmentedWithSegments returns a segmented index in idxTestFolder on st
// holding segments commits of perCommit random rows each, one segment a
// commit, with the items.
func segmentedWithSegments(t *testing.T, st *memTestStorage, segments, perCommit int) (*LocalIndex, []IndexItem) {
	t.Helper()
	w := newSegmentedIndex(t, IndexOptions{Storage: st, Codec: jsonTestCodec{}, RetainDropped: -1})
	var items []IndexItem
	for c := range segments {
		items = append(items, insertRandom(t, w, rand.New(rand.NewPCG(uint64(c), 9)), fmt.Sprint("s", c, "-"), perCommit, 16)...)
	}
	if got := len(w.lay.(*segLayout).man.Segments); got != segments {
		t.Fatalf("%d segments, want %d", got, segments)
	}
	return w, items
}

// editManifest rewrites the manifest in place through edit, as a person
// with an editor would.
func editManifest(t *testing.T, st *memTestStorage, edit func(m map[string]any)) {
	t.Helper()
	p := idxTestFolder + "/index.json" + segfile.ManifestExt
	raw, err := st.ReadFile(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	edit(m)
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	st.put(p, out)
}

// segmentFiles lists the segment files in the index folder.
func segmentFiles(st *memTestStorage) []string {
	var out []string
	for _, name := range st.fileNames(idxTestFolder) {
		if strings.HasSuffix(name, segfile.Ext) {
			out = append(out, name)
		}
	}
	return out
}

// A manifest whose counts no file holds fails the open with ErrCorrupt
// naming the segment, before anything is allocated on its word: rows of
// 2^40 and 3·10^8 (which ran the process out of memory), 0 rows (which
// made the tombstones negative), too many tombstones. The open allocates
// little, and an intact copy of the folder still opens.
func TestManifestCountsAreCheckedBeforeAllocating(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		edit func(segs []any)
	}{
		{"rows 2^40", func(segs []any) { segs[1].(map[string]any)["rows"] = float64(1 << 40) }},
		{"rows 300,000,000 in the first", func(segs []any) { segs[0].(map[string]any)["rows"] = 3e8 }},
		{"rows 0", func(segs []any) { segs[2].(map[string]any)["rows"] = 0 }},
		{"rows 1 fewer", func(segs []any) { segs[2].(map[string]any)["rows"] = 499 }},
		{"tombstones 2^40", func(segs []any) { segs[2].(map[string]any)["tombstones"] = float64(1 << 40) }},
		{"tombstones 1 more", func(segs []any) { segs[2].(map[string]any)["tombstones"] = 1 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := newMemTestStorage()
			segmentedWithSegments(t, st, 3, 500)
			editManifest(t, st, func(m map[string]any) { tc.edit(m["segments"].([]any)) })
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err := reopen(t, st).GetIndexStats(ctx)
			runtime.ReadMemStats(&after)
			if !errors.Is(err, ErrCorrupt) || errors.Is(err, ErrIndexNotFound) {
				t.Fatalf("open: %v, want ErrCorrupt", err)
			}
			if !strings.Contains(err.Error(), "segment") {
				t.Fatalf("the error names no segment: %v", err)
			}
			if got := after.TotalAlloc - before.TotalAlloc; got > 64<<20 {
				t.Fatalf("the open allocated %d MB", got>>20)
			}
		})
	}
	st := newMemTestStorage()
	_, items := segmentedWithSegments(t, st, 3, 500)
	if got, err := reopen(t, st).GetIndexStats(ctx); err != nil || got.Items != len(items) || got.Storage.Tombstones != 0 {
		t.Fatalf("an intact folder: %+v, %v", got, err)
	}
}

// A manifest that names no segment while the folder holds the index's
// segment files is corrupt: the open fails, and Vacuum deletes nothing
// (it deleted all six files, 3,000 items, as unnamed). A missing segment
// is ErrCorrupt naming it, not "index not found". An index whose every
// item was deleted, compacted or merged away, still opens, and its
// manifest names a segment.
func TestManifestThatLostItsSegments(t *testing.T) {
	ctx := context.Background()
	st := newMemTestStorage()
	segmentedWithSegments(t, st, 6, 500)
	files := segmentFiles(st)
	editManifest(t, st, func(m map[string]any) { m["segments"] = []any{} })
	ix := reopen(t, st)
	if _, err := ix.GetIndexStats(ctx); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("open: %v, want ErrCorrupt", err)
	}
	if _, err := ix.Vacuum(ctx); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Vacuum: %v, want ErrCorrupt", err)
	}
	if got := segmentFiles(st); !slices.Equal(got, files) {
		t.Fatalf("after Vacuum the folder holds %v, want %v", got, files)
	}

	st = newMemTestStorage()
	segmentedWithSegments(t, st, 3, 500)
	gone := segmentFiles(st)[1]
	if err := st.DeleteFile(ctx, idxTestFolder+"/"+gone); err != nil {
		t.Fatal(err)
	}
	_, err := reopen(t, st).GetIndexStats(ctx)
	if !errors.Is(err, ErrCorrupt) || errors.Is(err, ErrIndexNotFound) || !strings.Contains(err.Error(), gone) {
		t.Fatalf("a missing segment: %v, want ErrCorrupt naming %s", err, gone)
	}

	for _, how := range []string{"deleted", "compacted", "merged"} {
		st := newMemTestStorage()
		w, items := segmentedWithSegments(t, st, 2, 3)
		switch how {
		case "deleted", "compacted":
			if err := w.DeleteItems(ctx, itemIDs(items)); err != nil {
				t.Fatal(err)
			}
			if how == "compacted" {
				if _, err := w.Compact(ctx); err != nil {
					t.Fatal(err)
				}
			}
		case "merged":
			// Single commits of one insert and one delete: the merges of
			// their size class leave no row.
			for i := range mergeFanIn * 2 {
				id := fmt.Sprint("m", i)
				mustInsert(t, w, id, randomVector(rand.New(rand.NewPCG(uint64(i), 1)), 16), nil)
				if err := w.DeleteItem(ctx, id); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.DeleteItems(ctx, itemIDs(items)); err != nil {
				t.Fatal(err)
			}
		}
		if len(w.lay.(*segLayout).man.Segments) == 0 {
			t.Fatalf("%s: the manifest names no segment", how)
		}
		if _, err := w.Vacuum(ctx); err != nil {
			t.Fatalf("%s: Vacuum: %v", how, err)
		}
		if got, err := reopen(t, st).GetIndexStats(ctx); err != nil || got.Items != 0 {
			t.Fatalf("%s: reopened: %+v %v", how, got, err)
		}
	}
}

// Vacuum removes unnamed files before it compacts, so that it frees space
// on a full disk: with every write failing, the segment files a crashed
// commit left are removed, and the compaction's failure is reported.
func TestVacuumFreesSpaceOnAFullDisk(t *testing.T) {
	ctx := context.Background()
	st := newMemTestStorage()
	w, items := segmentedWithSegments(t, st, 3, 200)
	for _, name := range []string{w.names.newSegmentName(), w.names.newSegmentName()} {
		st.put(idxTestFolder+"/"+name, []byte("left by a crashed commit"))
	}
	full := errors.New("no space left on device")
	st.failWrite = func(string) error { return full }
	rep, err := reopen(t, st).Vacuum(ctx)
	if !errors.Is(err, full) {
		t.Fatalf("Vacuum: %v, want the compaction's write error", err)
	}
	if len(rep.Segments) != 2 || len(segmentFiles(st)) != 3 {
		t.Fatalf("Vacuum removed %v, the folder holds %v", rep.Segments, segmentFiles(st))
	}
	st.failWrite = nil
	if got, err := reopen(t, st).GetIndexStats(ctx); err != nil || got.Items != len(items) {
		t.Fatalf("after Vacuum: %+v, %v", got, err)
	}
}
