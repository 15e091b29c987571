package folio

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	codecpb "github.com/foliovec/folio/adapters/codec-pb"
	storagemem "github.com/foliovec/folio/adapters/storage-mem"
	"github.com/foliovec/folio/core"
)

func TestNewLocalIndexDefaults(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name     string
		opts     *IndexOptions
		wantFile string
	}{
		{"nil options mean JSON on the local file system", nil, "index.json"},
		{"empty options mean the same", &IndexOptions{}, "index.json"},
		{"a protobuf codec writes index.pb", &IndexOptions{Codec: codecpb.New()}, "index.pb"},
		{"an index name is used verbatim", &IndexOptions{IndexName: "vectors.data"}, "vectors.data"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "idx")
			ix, err := NewLocalIndex(dir, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if err := ix.CreateIndex(ctx, core.CreateIndexConfig{}); err != nil {
				t.Fatal(err)
			}
			if _, err := ix.InsertItem(ctx, core.IndexItem{ID: "1", Vector: []float32{1, 2}}); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(filepath.Join(dir, tt.wantFile)); err != nil {
				t.Fatalf("%s not written: %v", tt.wantFile, err)
			}
			if ix.IndexName() != tt.wantFile || ix.FolderPath() != dir {
				t.Fatalf("IndexName %q, FolderPath %q", ix.IndexName(), ix.FolderPath())
			}
		})
	}
	t.Run("a given storage is used", func(t *testing.T) {
		st := storagemem.New()
		ix, err := NewLocalIndex("mem", &IndexOptions{Storage: st})
		if err != nil {
			t.Fatal(err)
		}
		if err := ix.CreateIndex(ctx, core.CreateIndexConfig{}); err != nil {
			t.Fatal(err)
		}
		if ok, _ := st.PathExists(ctx, "mem/index.json"); !ok {
			t.Fatal("index.json not in the given storage")
		}
	})
	t.Run("the document reader hook reaches core", func(t *testing.T) {
		called := false
		ix, err := NewLocalIndex(filepath.Join(t.TempDir(), "idx"), &IndexOptions{DocReader: func(ctx context.Context, id string) (string, error) {
			called = true
			return "hello world", nil
		}})
		if err != nil {
			t.Fatal(err)
		}
		if err := ix.CreateIndex(ctx, core.CreateIndexConfig{}); err != nil {
			t.Fatal(err)
		}
		if _, err := ix.InsertItem(ctx, core.IndexItem{ID: "c", Vector: []float32{0, 1}, Metadata: core.Metadata{"documentId": "d", "startPos": 0, "endPos": 10}}); err != nil {
			t.Fatal(err)
		}
		if _, err := ix.InsertItem(ctx, core.IndexItem{ID: "top", Vector: []float32{1, 0}}); err != nil {
			t.Fatal(err)
		}
		res, err := ix.QueryItems(ctx, []float32{1, 0}, "hello", 1, nil, true)
		if err != nil || !called || len(res) != 2 || res[1].Item.ID != "c" {
			t.Fatalf("results %v, err %v, reader called %v", res, err, called)
		}
	})
	t.Run("an index name leaving the folder is ErrInvalidArgument", func(t *testing.T) {
		if _, err := NewLocalIndex("x", &IndexOptions{IndexName: "../index.json"}); !errors.Is(err, core.ErrInvalidArgument) {
			t.Fatalf("err = %v", err)
		}
	})
}

// The quantized-scan options reach core: a negative factor is refused, and
// a quantized protobuf index on disk answers with exact scores.
func TestNewLocalIndexQuantizedScan(t *testing.T) {
	ctx := context.Background()
	if _, err := NewLocalIndex(t.TempDir(), &IndexOptions{QuantizedScan: true, RerankFactor: -1}); !errors.Is(err, core.ErrInvalidArgument) {
		t.Fatalf("negative factor: %v", err)
	}
	dir := filepath.Join(t.TempDir(), "idx")
	w, err := NewLocalIndex(dir, &IndexOptions{Codec: codecpb.New()})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.CreateIndex(ctx, core.CreateIndexConfig{}); err != nil {
		t.Fatal(err)
	}
	items := make([]core.IndexItem, 300)
	for i := range items {
		items[i] = core.IndexItem{ID: fmt.Sprint(i), Vector: []float32{float32(i), 1, float32(i % 7)}}
	}
	if _, err := w.BatchInsertItems(ctx, items); err != nil {
		t.Fatal(err)
	}
	q, err := NewLocalIndex(dir, &IndexOptions{Codec: codecpb.New(), QuantizedScan: true, RerankFactor: 2})
	if err != nil {
		t.Fatal(err)
	}
	got, err := q.QueryItems(ctx, []float32{0, 1, 6}, "", 3, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	want, err := w.QueryItems(ctx, []float32{0, 1, 6}, "", 3, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if got[i].Item.ID != want[i].Item.ID || got[i].Score != want[i].Score {
			t.Fatalf("result %d: %s %v, exact %s %v", i, got[i].Item.ID, got[i].Score, want[i].Item.ID, want[i].Score)
		}
	}
}
