package acceptance_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/foliovec/folio"
	storageblob "github.com/foliovec/folio/adapters/storage-blob"
	"github.com/foliovec/folio/adapters/storage-blob/s3test"
	"github.com/foliovec/folio/core"
)

// An index in a bucket behind a flaky network: a share of the requests is
// refused (503) and another share reaches the store but loses its reply,
// so some writes fail although they landed. Whatever the writer was told,
// nothing the bucket's index names may be lost: after the run every item
// the index holds reads back with its side-car's metadata.
func TestAmbiguousWritesOnAFlakyBucket(t *testing.T) {
	for run := range 3 {
		srv := s3test.NewServer(t, "folio")
		// The SDK's retries, without its seconds of back-off: a write
		// fails when all three tries fail, landed or not.
		s := storageblob.New(srv.OpenBucket(t, "folio", 3), "")
		ctx := t.Context()
		ix, err := folio.NewLocalIndex("ix", &folio.IndexOptions{Storage: s})
		if err != nil {
			t.Fatal(err)
		}
		if err := ix.CreateIndex(ctx, core.CreateIndexConfig{MetadataConfig: core.MetadataConfig{Indexed: []string{"k"}}}); err != nil {
			t.Fatal(err)
		}
		srv.InjectFaults(0.5, uint64(run+1), "PUT", "DELETE")
		failed := 0
		start := time.Now()
		for i := range 200 {
			id := fmt.Sprintf("item-%d", i%15)
			_, err := ix.UpsertItem(ctx, core.IndexItem{ID: id, Vector: s3Vector(i), Metadata: core.Metadata{"k": float64(i % 15), "round": float64(i), "note": "side-car"}})
			if err != nil {
				failed++
			}
		}
		srv.InjectFaults(0, 0)
		fresh, err := folio.NewLocalIndex("ix", &folio.IndexOptions{Storage: s})
		if err != nil {
			t.Fatal(err)
		}
		items, err := fresh.ListItems(ctx)
		if err != nil {
			t.Fatal(err)
		}
		res, err := fresh.QueryItems(ctx, s3Vector(0), "", len(items), nil, false)
		if err != nil {
			t.Fatalf("run %d: %d of 200 writes failed; the bucket's index names a lost side-car: %v", run, failed, err)
		}
		for _, r := range res {
			if r.Item.Metadata["note"] != "side-car" {
				t.Fatalf("run %d: item %s lost its metadata: %v", run, r.Item.ID, r.Item.Metadata)
			}
		}
		t.Logf("run %d: %d of 200 writes failed, %d items read back whole, %v", run, failed, len(res), time.Since(start).Round(time.Millisecond))
	}
}
