package codecpb_test

import (
	"bytes"
	"context"
	"io"
	"path"
	"sync"
	"testing"

	codecpb "github.com/foliovec/folio/adapters/codec-pb"
	"github.com/foliovec/folio/core"
)

// hintRecorder is a memory storage that writes streams, recording which
// files were written as cold (core.ColdFileHint).
type hintRecorder struct {
	*core.MemoryStorage
	mu   sync.Mutex
	cold map[string]bool // by file name, the last write's hint
}

type hintedBuffer struct {
	bytes.Buffer
	cold bool
}

func (b *hintedBuffer) ColdFile() { b.cold = true }

func (s *hintRecorder) UpsertFileFrom(ctx context.Context, p string, write func(w io.Writer) error) error {
	var buf hintedBuffer
	if err := write(&buf); err != nil {
		return err
	}
	s.mu.Lock()
	s.cold[path.Base(p)] = buf.cold
	s.mu.Unlock()
	return s.UpsertFile(ctx, p, buf.Bytes())
}

// A commit of Vectra's layout says its index file is cold (the index keeps
// its items in memory); the segmented layout's segments, mapped once
// written, are not.
func TestOnlyTheIndexFileOfVectrasLayoutIsCold(t *testing.T) {
	ctx := context.Background()
	for _, layout := range []core.Layout{core.LayoutFile, core.LayoutSegmented} {
		s := &hintRecorder{MemoryStorage: core.NewMemoryStorage(), cold: map[string]bool{}}
		ix, err := core.NewLocalIndex(string(layout), core.IndexOptions{Storage: s, Codec: codecpb.New()})
		if err != nil {
			t.Fatal(err)
		}
		if err := ix.CreateIndex(ctx, core.CreateIndexConfig{Layout: layout}); err != nil {
			t.Fatal(err)
		}
		if _, err := ix.UpsertItem(ctx, core.IndexItem{ID: "a", Vector: []float32{1, 2}}); err != nil {
			t.Fatal(err)
		}
		if len(s.cold) == 0 {
			t.Fatalf("%s layout: no file was written as a stream", layout)
		}
		for name, cold := range s.cold {
			if want := layout == core.LayoutFile && name == "index.pb"; cold != want {
				t.Errorf("%s layout: %s written cold %v, want %v", layout, name, cold, want)
			}
		}
	}
}
