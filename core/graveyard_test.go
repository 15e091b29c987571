package core

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/foliovec/folio/core/internal/share"
)

func droppedList(t *testing.T, st *memTestStorage) []share.Dropped {
	t.Helper()
	raw, ok := st.file(idxTestFolder + "/" + share.DroppedListName)
	if !ok {
		return nil
	}
	var list struct {
		Files []share.Dropped `json:"files"`
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		t.Fatalf("%s: %v", share.DroppedListName, err)
	}
	return list.Files
}

func retainingIndex(t *testing.T, retain time.Duration) (*LocalIndex, *memTestStorage) {
	t.Helper()
	st := newMemTestStorage()
	ix, err := NewLocalIndex(idxTestFolder, IndexOptions{Storage: st, Codec: jsonTestCodec{}, RetainDropped: retain})
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.CreateIndex(ctxb, CreateIndexConfig{MetadataConfig: MetadataConfig{Indexed: []string{"a"}}}); err != nil {
		t.Fatal(err)
	}
	return ix, st
}

// A commit keeps the files it stops naming for RetainDropped, listed in
// .folio-dropped.json, so that readers still on the previous state can read
// them; a later commit deletes them once the time is up, and removes the
// list when it is empty.
func TestDroppedFilesOutliveTheirCommit(t *testing.T) {
	ix, st := retainingIndex(t, 200*time.Millisecond)
	old := mustInsert(t, ix, "1", []float32{1}, Metadata{"a": "x", "b": "old"})
	before, err := ix.snapshot(ctxb, "test")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ix.UpsertItem(ctxb, IndexItem{ID: "1", Vector: []float32{1}, Metadata: Metadata{"a": "x", "b": "new"}}); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(st.fileNames(idxTestFolder), old.MetadataFile) {
		t.Fatal("the replaced side-car was deleted at the commit")
	}
	if l := droppedList(t, st); len(l) != 1 || l[0].Name != old.MetadataFile {
		t.Fatalf("dropped list %v, want %s", l, old.MetadataFile)
	}
	// A reader on the previous state still reads its side-car.
	first, err := before.item(ctxb, 0)
	if err != nil {
		t.Fatal(err)
	}
	results := []QueryResult{{Item: first}}
	if err := ix.sides.load(ctxb, results); err != nil || results[0].Item.Metadata["b"] != "old" {
		t.Fatalf("reader on the previous state: %v, %v", results[0].Item.Metadata, err)
	}
	// A commit before the time is up keeps it.
	mustInsert(t, ix, "2", []float32{1}, Metadata{"a": "y"})
	if !slices.Contains(st.fileNames(idxTestFolder), old.MetadataFile) {
		t.Fatal("a commit within RetainDropped deleted the dropped side-car")
	}
	time.Sleep(250 * time.Millisecond)
	mustInsert(t, ix, "3", []float32{1}, Metadata{"a": "z"})
	files := st.fileNames(idxTestFolder)
	if slices.Contains(files, old.MetadataFile) || slices.Contains(files, share.DroppedListName) {
		t.Fatalf("files %v: want the dropped side-car and the empty list gone", files)
	}
}

// Vacuum keeps dropped files whose time is not up and deletes the others.
func TestVacuumKeepsRecentlyDroppedFiles(t *testing.T) {
	ix, st := retainingIndex(t, time.Hour)
	old := mustInsert(t, ix, "1", []float32{1}, Metadata{"a": "x", "b": "old"})
	if err := ix.DeleteItem(ctxb, "1"); err != nil {
		t.Fatal(err)
	}
	rep, err := ix.Vacuum(ctxb)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Sidecars) != 0 || !slices.Contains(st.fileNames(idxTestFolder), old.MetadataFile) {
		t.Fatalf("Vacuum removed %v; want the side-car dropped a moment ago kept", rep.Sidecars)
	}
	ix.graves.retain = time.Nanosecond // its time is up
	if rep, err = ix.Vacuum(ctxb); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rep.Sidecars, []string{old.MetadataFile}) {
		t.Fatalf("Vacuum removed %v, want %s", rep.Sidecars, old.MetadataFile)
	}
	if files := st.fileNames(idxTestFolder); !slices.Equal(files, []string{"index.json"}) {
		t.Fatalf("files after Vacuum: %v", files)
	}
}

// A listed file is deleted only when the newest state does not name it,
// and only when it is named as Folio names its files: a list written by
// another tool, or naming a file an ambiguous write made the index name,
// never deletes the index, the catalog or a named side-car.
func TestDroppedListNeverDeletesNamedOrForeignFiles(t *testing.T) {
	ix, st := retainingIndex(t, time.Nanosecond)
	named := mustInsert(t, ix, "1", []float32{1}, Metadata{"a": "x", "b": "kept"})
	list, _ := json.Marshal(map[string]any{"files": []share.Dropped{
		{Name: named.MetadataFile, At: 1},
		{Name: "index.json", At: 1},
		{Name: "../outside.json", At: 1},
		{Name: "catalog.json", At: 1},
	}})
	for _, f := range []string{"outside.json", idxTestFolder + "/catalog.json"} {
		if err := st.UpsertFile(ctxb, f, []byte("{}")); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.UpsertFile(ctxb, idxTestFolder+"/"+share.DroppedListName, list); err != nil {
		t.Fatal(err)
	}
	ix.graves.listed = true
	mustInsert(t, ix, "2", []float32{1}, Metadata{"a": "y"})
	files := st.fileNames(idxTestFolder)
	for _, f := range []string{named.MetadataFile, "index.json", "catalog.json"} {
		if !slices.Contains(files, f) {
			t.Errorf("%s was deleted through the dropped list", f)
		}
	}
	if _, ok := st.file("outside.json"); !ok {
		t.Error("a file outside the folder was deleted through the dropped list")
	}
	if got := mustList(t, reopen(t, st)); len(got) != 2 {
		t.Fatalf("%d items after the commit, want 2", len(got))
	}
}

// landThenFail writes the index file and then reports a failure while
// armed, as an object store whose reply is lost after the PUT landed.
type landThenFail struct {
	*memTestStorage
	armed bool
}

func (s *landThenFail) UpsertFile(ctx context.Context, p string, content []byte) error {
	if err := s.memTestStorage.UpsertFile(ctx, p, content); err != nil {
		return err
	}
	if s.armed && strings.HasSuffix(p, "/index.json") {
		return errors.New("connection reset after the request was sent")
	}
	return nil
}

// When a write fails after it may have landed, nothing the index on the
// storage may name is deleted: an item whose metadata lives in a side-car
// keeps it, whichever state landed.
func TestAmbiguousWriteKeepsWhatTheIndexMayName(t *testing.T) {
	for _, retain := range []time.Duration{-1, 0} {
		st := &landThenFail{memTestStorage: newMemTestStorage()}
		ix, err := NewLocalIndex(idxTestFolder, IndexOptions{Storage: st, Codec: jsonTestCodec{}, RetainDropped: retain})
		if err != nil {
			t.Fatal(err)
		}
		if err := ix.CreateIndex(ctxb, CreateIndexConfig{MetadataConfig: MetadataConfig{Indexed: []string{"a"}}}); err != nil {
			t.Fatal(err)
		}
		mustInsert(t, ix, "1", []float32{1}, Metadata{"a": "x", "b": "old"})
		st.armed = true
		if _, err := ix.UpsertItem(ctxb, IndexItem{ID: "1", Vector: []float32{1}, Metadata: Metadata{"a": "x", "b": "new"}}); err == nil {
			t.Fatal("the upsert reported success")
		}
		st.armed = false
		// The storage holds the new state: its side-car must be there.
		other := reopen(t, st.memTestStorage)
		res, err := other.QueryItems(ctxb, []float32{1}, "", 1, nil, false)
		if err != nil || len(res) != 1 || res[0].Item.Metadata["b"] != "new" {
			t.Fatalf("retain %v: the landed state reads %v, %v; want its side-car's metadata", retain, res, err)
		}
		// This process's next commit writes its own state (it cannot tell
		// which landed without a FileVersioner): what that names is there.
		mustInsert(t, ix, "2", []float32{1}, Metadata{"a": "y", "b": "two"})
		res, err = reopen(t, st.memTestStorage).QueryItems(ctxb, []float32{1}, "", 2, nil, false)
		if err != nil || len(res) != 2 {
			t.Fatalf("retain %v: after the next commit: %v, %v", retain, res, err)
		}
	}
}

// A dropped list that cannot be written (a folder in its place) does not
// fail the commit and leaks nothing: the failure is logged, and Vacuum
// collects the files the list would have held.
func TestUnwritableDroppedListIsLoggedAndVacuumed(t *testing.T) {
	st := newMemTestStorage()
	var logged strings.Builder
	ix, err := NewLocalIndex(idxTestFolder, IndexOptions{Storage: st, Codec: jsonTestCodec{}, RetainDropped: time.Hour,
		Logger: slog.New(slog.NewTextHandler(&logged, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.CreateIndex(ctxb, CreateIndexConfig{MetadataConfig: MetadataConfig{Indexed: []string{"a"}}}); err != nil {
		t.Fatal(err)
	}
	if err := st.CreateFolder(ctxb, idxTestFolder+"/"+share.DroppedListName); err != nil {
		t.Fatal(err)
	}
	old := mustInsert(t, ix, "1", []float32{1}, Metadata{"a": "x", "b": "old"})
	if _, err := ix.UpsertItem(ctxb, IndexItem{ID: "1", Vector: []float32{1}, Metadata: Metadata{"a": "x", "b": "new"}}); err != nil {
		t.Fatalf("a commit failed on the unwritable list: %v", err)
	}
	if !strings.Contains(logged.String(), "dropped files") {
		t.Errorf("nothing logged of the unwritable list: %q", logged.String())
	}
	rep, err := ix.Vacuum(ctxb)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(rep.Sidecars, old.MetadataFile) || slices.Contains(st.fileNames(idxTestFolder), old.MetadataFile) {
		t.Errorf("Vacuum removed %v; want the unlisted dropped side-car %s collected", rep.Sidecars, old.MetadataFile)
	}
}

// The reproduction of a 1,000,000-entry dropped list making every commit
// slow: a commit that drops nothing, while nothing listed is due, neither
// reads nor rewrites the list; one that drops a file, or once an entry is
// due, does.
func TestCommitsReadTheDroppedListOnlyWhenNeeded(t *testing.T) {
	ix, st := retainingIndex(t, time.Hour)
	listPath := idxTestFolder + "/" + share.DroppedListName
	old := mustInsert(t, ix, "1", []float32{1}, Metadata{"a": "x", "b": "old"})
	if _, err := ix.UpsertItem(ctxb, IndexItem{ID: "1", Vector: []float32{1}, Metadata: Metadata{"a": "x", "b": "new"}}); err != nil {
		t.Fatal(err)
	}
	// A large list, as another process's long retention leaves it.
	big := []share.Dropped{{Name: old.MetadataFile, At: time.Now().Add(-2 * time.Hour).UnixMilli()}}
	for i := range 100_000 {
		big = append(big, share.Dropped{Name: fmt.Sprintf("gone-%d.json", i), At: time.Now().UnixMilli()})
	}
	raw, _ := json.Marshal(map[string]any{"files": big})
	st.put(listPath, raw)
	reads, writes := st.readCount(listPath), st.writeCount(listPath)
	for i := range 5 {
		mustInsert(t, ix, fmt.Sprint("n", i), []float32{1}, nil) // drops nothing
	}
	if r, w := st.readCount(listPath)-reads, st.writeCount(listPath)-writes; r != 0 || w != 0 {
		t.Errorf("5 commits that drop nothing read the list %d times and wrote it %d times, want 0", r, w)
	}
	// Once the first entry this process listed falls due, the next commit
	// reads the list and deletes what is due.
	ix.mu.Lock()
	ix.graves.next = time.Now().Add(-time.Millisecond)
	ix.mu.Unlock()
	mustInsert(t, ix, "late", []float32{1}, nil)
	if st.readCount(listPath) == reads {
		t.Error("a commit after an entry fell due did not read the list")
	}
	if slices.Contains(st.fileNames(idxTestFolder), old.MetadataFile) {
		t.Error("the due side-car was not deleted")
	}
}
