package core

import (
	"context"
	"strings"
	"sync"
	"testing"
)

// gatedSidecarStorage holds the first side-car read until released, so a
// test can commit while a query is reading side-cars.
type gatedSidecarStorage struct {
	*memTestStorage
	once    sync.Once
	entered chan struct{}
	release chan struct{}
}

func (s *gatedSidecarStorage) ReadFile(ctx context.Context, p string) ([]byte, error) {
	if strings.HasSuffix(p, ".json") && !strings.HasSuffix(p, "/index.json") && !strings.Contains(p, "/.folio") {
		s.once.Do(func() {
			close(s.entered)
			<-s.release
		})
	}
	return s.memTestStorage.ReadFile(ctx, p)
}

func TestQueryRacingACommitThatRemovesItsSidecars(t *testing.T) {
	tests := []struct {
		name   string
		commit func(ix *LocalIndex) error
		want   []string // ids of the query's results
		wantB  any      // metadata "b" of the first result
	}{
		{
			name: "an upsert that replaces a result's side-car does not fail the query",
			commit: func(ix *LocalIndex) error {
				_, err := ix.UpsertItem(ctxb, IndexItem{ID: "1", Vector: []float32{1, 0}, Metadata: Metadata{"a": "x", "b": "new"}})
				return err
			},
			want: []string{"1"}, wantB: "new",
		},
		{
			name:   "a delete that removes a result's side-car does not fail the query",
			commit: func(ix *LocalIndex) error { return ix.DeleteItem(ctxb, "1") },
			want:   []string{"2"}, wantB: "two",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st := &gatedSidecarStorage{memTestStorage: newMemTestStorage(), entered: make(chan struct{}), release: make(chan struct{})}
			// Side-cars deleted at the commit (not kept for readers), so
			// the query meets a vanished file and must ask again.
			ix, err := NewLocalIndex(idxTestFolder, IndexOptions{Storage: st, Codec: jsonTestCodec{}, RetainDropped: -1})
			if err != nil {
				t.Fatal(err)
			}
			if err := ix.CreateIndex(ctxb, CreateIndexConfig{MetadataConfig: MetadataConfig{Indexed: []string{"a"}}}); err != nil {
				t.Fatal(err)
			}
			mustInsert(t, ix, "1", []float32{1, 0}, Metadata{"a": "x", "b": "old"})
			mustInsert(t, ix, "2", []float32{0, 1}, Metadata{"a": "x", "b": "two"})
			type answer struct {
				res []QueryResult
				err error
			}
			done := make(chan answer)
			go func() {
				res, err := ix.QueryItems(ctxb, []float32{1, 0}, "", 1, nil, false)
				done <- answer{res, err}
			}()
			<-st.entered // the query has its snapshot and is reading a side-car
			if err := tc.commit(ix); err != nil {
				t.Fatal(err)
			}
			close(st.release)
			a := <-done
			if a.err != nil {
				t.Fatalf("QueryItems = %v; want the results of the state before or after the commit", a.err)
			}
			if got := resultIDs(a.res); len(got) != 1 || got[0] != tc.want[0] || a.res[0].Item.Metadata["b"] != tc.wantB {
				t.Fatalf("results = %v %v; want %v with b=%v", got, a.res, tc.want, tc.wantB)
			}
		})
	}
}
