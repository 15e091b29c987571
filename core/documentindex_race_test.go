package core

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/foliovec/folio/core/internal/meta"
)

// Readers run while documents are upserted and deleted: every result they
// see is a catalogued document whose text loads, and -race finds no data
// race.
func TestDocumentIndexReadersDuringWrites(t *testing.T) {
	ctx := context.Background()
	// Dropped files kept for readers, as by default.
	env := newCreatedDocEnv(t, func(c *LocalDocumentIndexConfig) { c.RetainDropped = 0 })
	for i := range 5 {
		mustUpsertDoc(t, env.ix, fmt.Sprintf("doc%d", i), fmt.Sprintf("document %d about apples and pears", i), "", nil)
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	errs := make(chan error, 16)
	for w := range 3 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				docs, err := env.ix.QueryDocuments(ctx, "apples", &DocumentQueryOptions{IsBm25: w == 0})
				if err != nil {
					errs <- err
					return
				}
				for _, d := range docs {
					if d.URI() == "" {
						errs <- fmt.Errorf("result %s without uri", d.ID())
						return
					}
					// A result renders from the version it was found
					// in, even when a commit replaced it meanwhile.
					if _, err := d.RenderSections(ctx, 20, 2, true); err != nil {
						errs <- err
						return
					}
				}
				if _, err := env.ix.ListDocuments(ctx); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	for i := range 40 {
		uri := fmt.Sprintf("doc%d", i%7)
		if i%5 == 4 {
			if err := env.ix.DeleteDocument(ctx, uri); err != nil {
				t.Fatal(err)
			}
			continue
		}
		mustUpsertDoc(t, env.ix, uri, fmt.Sprintf("version %d of apples and pears and more", i), "", nil)
	}
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	checkFinalCatalogMatchesChunks(t, env.ix)
}

// checkFinalCatalogMatchesChunks asserts that every chunk belongs to a
// catalogued document and every catalogued non-empty document has chunks.
func checkFinalCatalogMatchesChunks(t *testing.T, ix *LocalDocumentIndex) {
	t.Helper()
	ctx := context.Background()
	cat, err := ix.catalog(ctx, "check", "")
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]int{}
	items, _ := ix.ListItems(ctx)
	for _, it := range items {
		id, _ := meta.DocumentID(it.Metadata)
		if _, ok := cat.IDToURI[id]; !ok {
			t.Fatalf("chunk of unknown document %q", id)
		}
		have[id]++
	}
	for uri, id := range cat.URIToID {
		if have[id] == 0 {
			t.Fatalf("%q has no chunks", uri)
		}
	}
	if cat.Count != len(cat.URIToID) {
		t.Fatalf("count %d for %d documents", cat.Count, len(cat.URIToID))
	}
}
