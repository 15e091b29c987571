package core

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
)

// groupTestStorage is the test storage with the GroupWriter capability,
// recording each WriteFiles call and failing them on demand.
type groupTestStorage struct {
	*memTestStorage
	mu     sync.Mutex
	groups [][]string // paths of each WriteFiles call
	fail   error
}

func (g *groupTestStorage) WriteFiles(ctx context.Context, files []FileWrite) error {
	g.mu.Lock()
	var paths []string
	for _, f := range files {
		paths = append(paths, f.Path)
	}
	g.groups = append(g.groups, paths)
	fail := g.fail
	g.mu.Unlock()
	for i, f := range files {
		if fail != nil && i == len(files)/2 {
			return fail // half written, as a crash or a full disk leaves it
		}
		if err := g.UpsertFile(ctx, f.Path, f.Content); err != nil {
			return err
		}
	}
	return nil
}

// A batch writes all its side-cars in one group at its commit, before the
// index file that names them; nothing is written while the batch is built.
func TestBatchWritesSidecarsAsOneGroup(t *testing.T) {
	ctx := context.Background()
	g := &groupTestStorage{memTestStorage: newMemTestStorage()}
	ix, err := NewLocalIndex(idxTestFolder, IndexOptions{Storage: g, Codec: jsonTestCodec{}})
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.CreateIndex(ctx, CreateIndexConfig{MetadataConfig: MetadataConfig{Indexed: []string{"k"}}}); err != nil {
		t.Fatal(err)
	}
	items := make([]IndexItem, 50)
	for i := range items {
		items[i] = IndexItem{Vector: []float32{float32(i), 1}, Metadata: Metadata{"k": i, "other": "x"}}
	}
	if err := ix.BeginUpdate(ctx); err != nil {
		t.Fatal(err)
	}
	for _, it := range items[:10] {
		if _, err := ix.InsertItem(ctx, it); err != nil {
			t.Fatal(err)
		}
	}
	writesBefore := len(g.writes)
	if len(g.groups) != 0 || writesBefore != 1 { // only CreateIndex's index file
		t.Fatalf("while the batch is built: %d groups, %d writes", len(g.groups), writesBefore)
	}
	if err := ix.EndUpdate(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.BatchInsertItems(ctx, items[10:]); err != nil {
		t.Fatal(err)
	}
	if len(g.groups) != 2 || len(g.groups[0]) != 10 || len(g.groups[1]) != 40 {
		t.Fatalf("groups %d, want 2 of 10 and 40 side-cars", len(g.groups))
	}
	// Each group lands before the index file that refers to it.
	indexWrites := 0
	for _, w := range g.writes {
		if strings.HasSuffix(w, "/index.json") {
			indexWrites++
			continue
		}
		if indexWrites == 1 && !slices.Contains(g.groups[0], w) || indexWrites == 2 && !slices.Contains(g.groups[1], w) {
			t.Fatalf("side-car %s written after the index file of its batch", w)
		}
	}
	res, err := ix.QueryItems(ctx, []float32{3, 1}, "", 50, nil, false)
	if err != nil || len(res) != 50 || res[0].Item.Metadata["other"] != "x" {
		t.Fatalf("query after the commits: %d results, %v", len(res), err)
	}
}

// A failed group write fails the commit, leaves the index file as it was
// (no reference to a side-car that may be missing) and, once cancelled,
// leaves no side-car behind.
func TestFailedGroupWriteLeavesTheIndexAsItWas(t *testing.T) {
	ctx := context.Background()
	g := &groupTestStorage{memTestStorage: newMemTestStorage()}
	ix, err := NewLocalIndex(idxTestFolder, IndexOptions{Storage: g, Codec: jsonTestCodec{}})
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.CreateIndex(ctx, CreateIndexConfig{MetadataConfig: MetadataConfig{Indexed: []string{"k"}}}); err != nil {
		t.Fatal(err)
	}
	before, _ := g.file(idxTestFolder + "/index.json")
	g.fail = errors.New("disk full")
	items := []IndexItem{{Vector: []float32{1}, Metadata: Metadata{"o": 1}}, {Vector: []float32{2}, Metadata: Metadata{"o": 2}}, {Vector: []float32{3}, Metadata: Metadata{"o": 3}}}
	if _, err := ix.BatchInsertItems(ctx, items); !errors.Is(err, g.fail) {
		t.Fatalf("err = %v, want the group write's", err)
	}
	after, _ := g.file(idxTestFolder + "/index.json")
	if string(before) != string(after) {
		t.Fatal("the index file changed after a failed group write")
	}
	if names := g.fileNames(idxTestFolder); !slices.Equal(names, []string{"index.json"}) {
		t.Fatalf("files left: %v", names)
	}
}
