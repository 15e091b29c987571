package grpcserver_test

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/foliovec/folio/adapters/grpc/vectrapb"
)

// loadDuration is how long TestLoadMixedClients runs: FOLIO_LOAD_SECONDS,
// or 2 seconds (make load-test runs it for 30).
func loadDuration(t *testing.T) time.Duration {
	if s := os.Getenv("FOLIO_LOAD_SECONDS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 {
			t.Fatalf("FOLIO_LOAD_SECONDS=%q is not a positive number of seconds", s)
		}
		return time.Duration(n) * time.Second
	}
	return 2 * time.Second
}

// 32 clients mix queries, inserts, upserts and document upserts on one
// index: no call fails, no write is lost, and the server's goroutines and
// heap come back down.
func TestLoadMixedClients(t *testing.T) {
	ctx := t.Context()
	ts := startServer(t, nil)
	c := ts.client
	must[*vectrapb.CreateIndexResponse](t, "CreateIndex")(c.CreateIndex(ctx, &vectrapb.CreateIndexRequest{IndexName: "load", IsDocumentIndex: true}))
	const clients, upsertIDs, uris = 32, 50, 20
	var (
		inserted atomic.Int64
		calls    atomic.Int64
		mu       sync.Mutex
		upserted = map[string]bool{}
		docs     = map[string]bool{}
	)
	baseGoroutines := runtime.NumGoroutine()
	deadline := time.Now().Add(loadDuration(t))
	var heapMid uint64
	var wg sync.WaitGroup
	for w := range clients {
		wg.Go(func() {
			for i := 0; time.Now().Before(deadline); i++ {
				var err error
				switch (w + i) % 4 {
				case 0:
					_, err = c.QueryItems(ctx, &vectrapb.QueryItemsRequest{IndexName: "load", Text: "document text", TopK: 5, Filter: filter(`{"kind":"insert"}`)})
				case 1:
					_, err = c.InsertItem(ctx, &vectrapb.InsertItemRequest{IndexName: "load", Id: fmt.Sprintf("ins-%d-%d", w, i), Text: "inserted item", Metadata: map[string]*vectrapb.MetadataValue{"kind": str("insert")}})
					if err == nil {
						inserted.Add(1)
					}
				case 2:
					id := fmt.Sprintf("up-%d", (w*7+i/4)%upsertIDs)
					_, err = c.UpsertItem(ctx, &vectrapb.UpsertItemRequest{IndexName: "load", Id: id, Text: fmt.Sprintf("upserted %d", i), Metadata: map[string]*vectrapb.MetadataValue{"kind": str("upsert")}})
					if err == nil {
						mu.Lock()
						upserted[id] = true
						mu.Unlock()
					}
				default:
					uri := fmt.Sprintf("doc://%d", (w+i/4)%uris)
					_, err = c.UpsertDocument(ctx, &vectrapb.UpsertDocumentRequest{IndexName: "load", Uri: uri, Text: fmt.Sprintf("document text version %d with a few more words to make chunks", i)})
					if err == nil {
						mu.Lock()
						docs[uri] = true
						mu.Unlock()
					}
				}
				calls.Add(1)
				if err != nil {
					t.Errorf("client %d call %d: %v (%v)", w, i, err, status.Code(err))
					if status.Code(err) == codes.Internal {
						return
					}
				}
			}
		})
	}
	time.Sleep(time.Until(deadline) / 2)
	heapMid = heapInUse()
	wg.Wait()
	heapEnd := heapInUse()

	all := must[*vectrapb.ListItemsResponse](t, "ListItems")(c.ListItems(ctx, &vectrapb.ListItemsRequest{IndexName: "load"}))
	var plain, chunks int
	for _, it := range all.GetItems() {
		if _, ok := it.GetMetadata()["documentId"]; ok {
			chunks++
		} else {
			plain++
		}
	}
	if want := int(inserted.Load()) + len(upserted); plain != want {
		t.Errorf("%d items besides chunks, want %d (%d inserts, %d upserted ids)", plain, want, inserted.Load(), len(upserted))
	}
	listed := must[*vectrapb.ListDocumentsResponse](t, "ListDocuments")(c.ListDocuments(ctx, &vectrapb.ListDocumentsRequest{IndexName: "load"}))
	if len(listed.GetDocuments()) != len(docs) || chunks < len(docs) {
		t.Errorf("%d documents with %d chunks, want %d documents", len(listed.GetDocuments()), chunks, len(docs))
	}
	t.Logf("%d calls in %v: %d inserts, %d upserted ids, %d documents; heap in use %d MB mid-run, %d MB at the end",
		calls.Load(), loadDuration(t), inserted.Load(), len(upserted), len(docs), heapMid>>20, heapEnd>>20)
	// The index grows with the inserts; everything else must not: the heap
	// may grow by what the second half inserted, not by a multiple.
	if heapEnd > 2*heapMid+64<<20 {
		t.Errorf("heap in use grew from %d MB mid-run to %d MB", heapMid>>20, heapEnd>>20)
	}
	waitFor(t, "the server's goroutines to wind down", func() bool { return runtime.NumGoroutine() <= baseGoroutines+8 })
}

func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}
