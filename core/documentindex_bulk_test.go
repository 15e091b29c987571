package core

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func bulkInputs(n int) []DocumentInput {
	docs := make([]DocumentInput, n)
	for i := range docs {
		docs[i] = DocumentInput{
			URI:      fmt.Sprintf("docs/%03d.md", i),
			Text:     fmt.Sprintf("Document %d talks about topic%d and keyword%d at some length.", i, i%7, i),
			Metadata: Metadata{"n": i},
		}
	}
	return docs
}

// UpsertDocuments stores what UpsertDocument would, one by one: the same
// catalog, chunks and texts, with chunks of several documents per
// embeddings call and one commit per batch.
func TestUpsertDocumentsStoresWhatUpsertDocumentWould(t *testing.T) {
	ctx := context.Background()
	docs := bulkInputs(30)
	one := newCreatedDocEnv(t, nil)
	for _, d := range docs {
		mustUpsertDoc(t, one.ix, d.URI, d.Text, d.DocType, d.Metadata)
	}
	bulk := newCreatedDocEnv(t, nil)
	var progress []UpsertProgress
	out, err := bulk.ix.UpsertDocuments(ctx, docs, &UpsertDocumentsOptions{
		Concurrency: 3, BatchSize: 7, Progress: func(p UpsertProgress) { progress = append(progress, p) },
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range out {
		if d == nil || d.URI() != docs[i].URI {
			t.Fatalf("result %d: %v", i, d)
		}
		text, err := d.LoadText(ctx)
		if err != nil || text != docs[i].Text {
			t.Fatalf("result %d text %q, %v", i, text, err)
		}
	}
	a, _ := one.ix.GetCatalogStats(ctx)
	b, _ := bulk.ix.GetCatalogStats(ctx)
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("catalog stats one by one %+v, bulk %+v", a, b)
	}
	if got, max := bulk.emb.callCount(), one.emb.callCount(); got >= max {
		t.Errorf("%d embeddings calls in bulk, %d one by one: chunks were not packed", got, max)
	}
	last := progress[len(progress)-1]
	if last.Total != 30 || last.Documents != 30 || last.Skipped != 0 || last.Chunks != a.Chunks || last.EmbeddingsCalls != bulk.emb.callCount() {
		t.Errorf("final progress %+v", last)
	}
	for i := 1; i < len(progress); i++ {
		p, q := progress[i-1], progress[i]
		if q.Documents < p.Documents || q.Chunks < p.Chunks || q.EmbeddingsCalls < p.EmbeddingsCalls {
			t.Fatalf("progress went back: %+v then %+v", p, q)
		}
	}
	commits := bulk.st.writeCount(bulk.path("index.json")) - 1 // CreateIndex wrote it once
	if commits != 5 {
		t.Errorf("%d commits of 30 documents in batches of 7, want 5", commits)
	}
	// Same answers to a query that takes every chunk (so that no tie at
	// the MaxChunks cut, which storage order breaks, changes a mean).
	all := &DocumentQueryOptions{MaxChunks: 1000, MaxDocuments: 100}
	ra, err := one.ix.QueryDocuments(ctx, "topic3 keyword10", all)
	if err != nil {
		t.Fatal(err)
	}
	rb, err := bulk.ix.QueryDocuments(ctx, "topic3 keyword10", all)
	if err != nil {
		t.Fatal(err)
	}
	uris := func(rs []*LocalDocumentResult) (out []string) {
		for _, r := range rs {
			if r.Score > 0.01 { // past that, ties in storage order
				out = append(out, fmt.Sprintf("%s %.6f", r.URI(), r.Score))
			}
		}
		slices.Sort(out) // documents of equal score come in storage order
		return out
	}
	if !slices.Equal(uris(ra), uris(rb)) {
		t.Errorf("query results differ:\none by one %v\nbulk       %v", uris(ra), uris(rb))
	}
}

// Unchanged documents are skipped without an embeddings call; a changed
// one is re-embedded; the last of two inputs with one URI wins.
func TestUpsertDocumentsSkipsUnchanged(t *testing.T) {
	ctx := context.Background()
	env := newCreatedDocEnv(t, nil)
	docs := bulkInputs(10)
	if _, err := env.ix.UpsertDocuments(ctx, docs, nil); err != nil {
		t.Fatal(err)
	}
	calls := env.emb.callCount()
	var last UpsertProgress
	out, err := env.ix.UpsertDocuments(ctx, docs, &UpsertDocumentsOptions{Progress: func(p UpsertProgress) { last = p }})
	if err != nil || env.emb.callCount() != calls {
		t.Fatalf("unchanged: %v, %d new calls", err, env.emb.callCount()-calls)
	}
	if last.Skipped != 10 || last.Documents != 10 || out[3] == nil {
		t.Fatalf("unchanged: progress %+v", last)
	}
	docs[3].Text = "changed"
	docs = append(docs, DocumentInput{URI: docs[5].URI, Text: "second version of five"})
	out, err = env.ix.UpsertDocuments(ctx, docs, nil)
	if err != nil || env.emb.callCount() != calls+1 {
		t.Fatalf("one changed and one replaced: %v, %d new calls, want 1", err, env.emb.callCount()-calls)
	}
	if out[5] != nil && out[5].ID() != out[10].ID() {
		t.Errorf("superseded input: result %v, want the later input's document %v", out[5].ID(), out[10].ID())
	}
	text, _ := out[10].LoadText(ctx)
	if text != "second version of five" {
		t.Errorf("URI given twice stores %q", text)
	}
	if st, _ := env.ix.GetCatalogStats(ctx); st.Documents != 10 {
		t.Errorf("%d documents, want 10", st.Documents)
	}
}

// At most Concurrency embeddings requests are in flight at once, and with
// several allowed they do overlap.
func TestUpsertDocumentsConcurrency(t *testing.T) {
	for _, want := range []int{1, 4} {
		t.Run(fmt.Sprint(want), func(t *testing.T) {
			env := newCreatedDocEnv(t, func(c *LocalDocumentIndexConfig) { c.Embeddings.(*docTestEmbeddings).maxTokens = 16 })
			var inFlight, peak atomic.Int32
			env.emb.override = func(inputs []string) (EmbeddingsResponse, error) {
				n := inFlight.Add(1)
				for {
					p := peak.Load()
					if n <= p || peak.CompareAndSwap(p, n) {
						break
					}
				}
				// Hold the call until want calls are in flight (or a
				// generous while has passed), so a busy machine cannot
				// hide the overlap.
				for deadline := time.Now().Add(2 * time.Second); inFlight.Load() < int32(want) && time.Now().Before(deadline); {
					time.Sleep(time.Millisecond)
				}
				time.Sleep(time.Millisecond)
				inFlight.Add(-1)
				out := make([][]float32, len(inputs))
				for i, in := range inputs {
					out[i] = docTestVector(in)
				}
				return EmbeddingsResponse{Status: EmbeddingsSuccess, Output: out}, nil
			}
			if _, err := env.ix.UpsertDocuments(context.Background(), bulkInputs(24), &UpsertDocumentsOptions{Concurrency: want}); err != nil {
				t.Fatal(err)
			}
			if got := int(peak.Load()); got != want {
				t.Errorf("peak in flight %d, want %d", got, want)
			}
		})
	}
}

// A cancelled ctx or a failing model stops the call: the documents of the
// commits made before are kept and returned, the rest are not stored, and
// the index stays consistent.
func TestUpsertDocumentsStopsKeepingCommittedBatches(t *testing.T) {
	for _, mode := range []string{"cancel", "embeddings error"} {
		t.Run(mode, func(t *testing.T) {
			env := newCreatedDocEnv(t, func(c *LocalDocumentIndexConfig) { c.Embeddings.(*docTestEmbeddings).maxTokens = 16 })
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var calls atomic.Int32
			var once sync.Once
			env.emb.override = func(inputs []string) (EmbeddingsResponse, error) {
				if calls.Add(1) > 40 {
					if mode == "cancel" {
						once.Do(cancel)
						return EmbeddingsResponse{Status: EmbeddingsCancelled}, &EmbeddingsError{Status: EmbeddingsCancelled, Err: context.Canceled}
					}
					return EmbeddingsResponse{Status: EmbeddingsFailed, Message: "boom"}, &EmbeddingsError{Status: EmbeddingsFailed, Message: "boom"}
				}
				out := make([][]float32, len(inputs))
				for i, in := range inputs {
					out[i] = docTestVector(in)
				}
				return EmbeddingsResponse{Status: EmbeddingsSuccess, Output: out}, nil
			}
			docs := bulkInputs(40)
			out, err := env.ix.UpsertDocuments(ctx, docs, &UpsertDocumentsOptions{Concurrency: 1, BatchSize: 4})
			switch mode {
			case "cancel":
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("err = %v, want context.Canceled", err)
				}
			default:
				var ee *EmbeddingsError
				if !errors.As(err, &ee) {
					t.Fatalf("err = %v, want an *EmbeddingsError", err)
				}
			}
			stored := 0
			for i, d := range out {
				id, ok, _ := env.ix.GetDocumentID(context.Background(), docs[i].URI)
				if (d != nil) != ok || d != nil && d.ID() != id {
					t.Fatalf("doc %d: result %v, catalog %q %v", i, d, id, ok)
				}
				if d != nil {
					stored++
				}
			}
			if stored == 0 || stored == len(docs) || stored%4 != 0 {
				t.Errorf("%d documents stored, want whole batches of 4, some but not all", stored)
			}
			st, _ := env.ix.GetCatalogStats(context.Background())
			if st.Documents != stored {
				t.Errorf("catalog has %d documents, %d returned", st.Documents, stored)
			}
			reopened := env.open(t)
			listed, err := reopened.ListDocuments(context.Background())
			if err != nil || len(listed) != stored {
				t.Errorf("reopened: %d documents listed, %v", len(listed), err)
			}
		})
	}
}

// Invalid documents are refused before any work; inside an open batch the
// documents join it, committed by EndUpdate, discarded by CancelUpdate.
func TestUpsertDocumentsRefusals(t *testing.T) {
	ctx := context.Background()
	env := newCreatedDocEnv(t, nil)
	docs := bulkInputs(3)
	docs[2].Metadata = Metadata{"startPos": 1}
	if _, err := env.ix.UpsertDocuments(ctx, docs, nil); !errors.Is(err, ErrInvalidArgument) || !strings.Contains(err.Error(), docs[2].URI) {
		t.Fatalf("reserved key: %v", err)
	}
	if env.emb.callCount() != 0 {
		t.Fatalf("%d embeddings calls before refusing", env.emb.callCount())
	}
	if err := env.ix.BeginUpdate(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := env.ix.UpsertDocuments(ctx, bulkInputs(2), nil); err != nil {
		t.Fatalf("open batch: %v", err)
	}
	if st, _ := env.ix.GetCatalogStats(ctx); st.Documents != 0 {
		t.Fatalf("%d documents visible before EndUpdate", st.Documents)
	}
	env.ix.CancelUpdate()
	if st, _ := env.ix.GetCatalogStats(ctx); st.Documents != 0 {
		t.Fatalf("%d documents after CancelUpdate", st.Documents)
	}
	if err := env.ix.BeginUpdate(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := env.ix.UpsertDocuments(ctx, bulkInputs(2), nil); err != nil {
		t.Fatal(err)
	}
	if err := env.ix.EndUpdate(ctx); err != nil {
		t.Fatal(err)
	}
	if st, _ := env.ix.GetCatalogStats(ctx); st.Documents != 2 {
		t.Fatalf("%d documents after EndUpdate, want 2", st.Documents)
	}
	if _, err := env.ix.UpsertDocuments(ctx, nil, &UpsertDocumentsOptions{Concurrency: -1}); !errors.Is(err, ErrInvalidArgument) {
		t.Fatalf("negative concurrency: %v", err)
	}
}

// A bulk load commits by size: past BatchSize documents, a commit waits
// until its chunks are a quarter of the index, so many small documents
// rewrite the index a few times, not once per BatchSize documents; a
// negative CommitInterval commits every BatchSize documents as before.
func TestUpsertDocumentsCommitsBySize(t *testing.T) {
	ctx := context.Background()
	docs := make([]DocumentInput, 1000)
	for i := range docs {
		docs[i] = DocumentInput{URI: fmt.Sprintf("doc-%04d", i), Text: fmt.Sprintf("note %d", i)}
	}
	for _, tc := range []struct {
		interval   time.Duration
		minC, maxC int
	}{
		{0, 5, 30},         // geometric: about log(1000/10)/log(1.25) at most
		{-1, 100, 100},     // every 10 documents
		{time.Hour, 5, 30}, // a long interval changes nothing here
	} {
		env := newCreatedDocEnv(t, nil)
		if _, err := env.ix.UpsertDocuments(ctx, docs, &UpsertDocumentsOptions{BatchSize: 10, Concurrency: 1, CommitInterval: tc.interval}); err != nil {
			t.Fatal(err)
		}
		commits := env.st.writeCount(env.path("index.json")) - 1
		if commits < tc.minC || commits > tc.maxC {
			t.Errorf("CommitInterval %v: %d commits of 1000 one-chunk documents, want %d to %d", tc.interval, commits, tc.minC, tc.maxC)
		}
		if st, _ := env.ix.GetCatalogStats(ctx); st.Documents != 1000 {
			t.Errorf("CommitInterval %v: %d documents stored", tc.interval, st.Documents)
		}
	}
}

// The reproduction of 100,000 empty files taking five times as long as
// one-line files: documents without chunks count toward the commit rule
// too, so they commit as rarely as documents with one chunk each.
func TestUpsertDocumentsCommitsEmptyDocumentsBySize(t *testing.T) {
	ctx := context.Background()
	docs := make([]DocumentInput, 1000)
	for i := range docs {
		docs[i] = DocumentInput{URI: fmt.Sprintf("empty-%04d", i)}
	}
	env := newCreatedDocEnv(t, nil)
	if _, err := env.ix.UpsertDocuments(ctx, docs, &UpsertDocumentsOptions{BatchSize: 10, Concurrency: 1}); err != nil {
		t.Fatal(err)
	}
	commits := env.st.writeCount(env.path("catalog.json")) - 1
	if commits < 5 || commits > 30 {
		t.Errorf("%d commits of 1000 empty documents, want 5 to 30 (as for one-chunk documents)", commits)
	}
	if st, _ := env.ix.GetCatalogStats(ctx); st.Documents != 1000 {
		t.Errorf("%d documents stored", st.Documents)
	}
}

// DeleteDocuments removes many documents in one commit and says which it
// removed; unknown URIs are skipped.
func TestDeleteDocumentsIsOneCommit(t *testing.T) {
	ctx := context.Background()
	env := newCreatedDocEnv(t, nil)
	docs := bulkInputs(20)
	if _, err := env.ix.UpsertDocuments(ctx, docs, nil); err != nil {
		t.Fatal(err)
	}
	before := env.st.writeCount(env.path("index.json"))
	if err := env.ix.DeleteDocument(ctx, docs[0].URI); err != nil {
		t.Fatal(err)
	}
	perCommit := env.st.writeCount(env.path("index.json")) - before // a deleting commit writes the index twice
	before += perCommit
	uris := []string{docs[3].URI, "nowhere", docs[7].URI, docs[11].URI}
	removed, err := env.ix.DeleteDocuments(ctx, uris)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{docs[3].URI, docs[7].URI, docs[11].URI}; !slices.Equal(removed, want) {
		t.Fatalf("removed %q, want %q", removed, want)
	}
	if n := env.st.writeCount(env.path("index.json")) - before; n != perCommit {
		t.Errorf("%d index writes for one DeleteDocuments of 3, want %d as for one DeleteDocument", n, perCommit)
	}
	if st, _ := env.ix.GetCatalogStats(ctx); st.Documents != 16 {
		t.Errorf("%d documents left, want 16", st.Documents)
	}
	checkFinalCatalogMatchesChunks(t, env.ix)
	if removed, err := env.ix.DeleteDocuments(ctx, []string{"nowhere"}); err != nil || len(removed) != 0 {
		t.Errorf("unknown URIs: %q, %v", removed, err)
	}
}
