package acceptance_test

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/foliovec/folio"
	embedhash "github.com/foliovec/folio/adapters/embed-hash"
	storageblob "github.com/foliovec/folio/adapters/storage-blob"
	"github.com/foliovec/folio/adapters/storage-blob/s3test"
	"github.com/foliovec/folio/core"
)

// Indexes on object storage: an S3-protocol server on 127.0.0.1 (gofakes3),
// reached through storageblob.Open with an s3:// URL, as a user would.

// openS3 opens the bucket URL through the facade and closes it at the end.
func openS3(t testing.TB, url string) *storageblob.Storage {
	t.Helper()
	s, err := storageblob.Open(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// copyToDisk copies folder (and everything below it) from s into dir, as
// `aws s3 cp --recursive` would.
func copyToDisk(t *testing.T, s core.FileStorage, folder, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	list, err := s.ListFiles(t.Context(), folder, core.ListAll)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range list {
		if e.IsFolder {
			copyToDisk(t, s, e.Path, filepath.Join(dir, e.Name))
			continue
		}
		b, err := s.ReadFile(t.Context(), e.Path)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// s3Vector is a vector that identifies n.
func s3Vector(n int) []float32 {
	v := make([]float32, 8)
	v[n%8] = 1
	v[(n/8)%8] += 0.5
	v[7] += float32(n%97) / 97
	return v
}

// s3DocText is a document of several chunks, with words of its own.
func s3DocText(w, d int) string {
	var b strings.Builder
	for i := range 40 {
		fmt.Fprintf(&b, "Writer %d wrote document %d, sentence %d, about topic%d and word%d. ", w, d, i, d%7, i%11)
	}
	return b.String()
}

// s3Items are items with inline and side-car metadata.
func s3Items(n int) []core.IndexItem {
	items := make([]core.IndexItem, n)
	for i := range items {
		items[i] = core.IndexItem{
			ID:       fmt.Sprintf("item-%03d", i),
			Vector:   s3Vector(i),
			Metadata: core.Metadata{"k": float64(i), "note": fmt.Sprintf("side-car text %d", i)},
		}
	}
	return items
}

// sortedItems lists an index's items sorted by id, for comparison.
func sortedItems(t *testing.T, ix *core.LocalIndex) []core.IndexItem {
	t.Helper()
	items, err := ix.ListItems(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(items, func(a, b core.IndexItem) int { return strings.Compare(a.ID, b.ID) })
	return items
}

func TestObjectStorageIndexRoundTrip(t *testing.T) {
	srv := s3test.NewServer(t, "folio")
	for _, format := range []string{"json", "protobuf"} {
		t.Run(format, func(t *testing.T) {
			url := srv.BucketURL("folio", "prefix="+format+"/")
			codec := killCodec(format)
			ix, err := folio.NewLocalIndex("ix", &folio.IndexOptions{Storage: openS3(t, url), Codec: codec})
			if err != nil {
				t.Fatal(err)
			}
			if err := ix.CreateIndex(t.Context(), core.CreateIndexConfig{MetadataConfig: core.MetadataConfig{Indexed: []string{"k"}}}); err != nil {
				t.Fatal(err)
			}
			if _, err := ix.BatchInsertItems(t.Context(), s3Items(50)); err != nil {
				t.Fatal(err)
			}
			want := sortedItems(t, ix)

			// Another storage value (another server) reads the same.
			s2 := openS3(t, url)
			reopened, err := folio.NewLocalIndex("ix", &folio.IndexOptions{Storage: s2, Codec: codec})
			if err != nil {
				t.Fatal(err)
			}
			if got := sortedItems(t, reopened); !reflect.DeepEqual(got, want) {
				t.Fatalf("reopened from the bucket: %d items differ from the %d written", len(got), len(want))
			}
			res, err := reopened.QueryItems(t.Context(), s3Vector(7), "", 1, core.Filter{"k": float64(7)}, false)
			if err != nil || len(res) != 1 || res[0].Item.Metadata["note"] != "side-car text 7" {
				t.Fatalf("filtered query with a side-car: %v, %v", res, err)
			}

			// Copied to disk, the folder opens in Folio with identical content.
			dir := filepath.Join(t.TempDir(), "ix")
			copyToDisk(t, s2, "ix", dir)
			local, err := folio.NewLocalIndex(dir, &folio.IndexOptions{Codec: codec})
			if err != nil {
				t.Fatal(err)
			}
			if got := sortedItems(t, local); !reflect.DeepEqual(got, want) {
				t.Fatalf("copied to disk: items differ")
			}
		})
	}
}

func TestObjectStorageDocumentIndexRoundTrip(t *testing.T) {
	srv := s3test.NewServer(t, "folio")
	for _, format := range []string{"json", "protobuf"} {
		t.Run(format, func(t *testing.T) {
			url := srv.BucketURL("folio", "prefix=docs-"+format+"/")
			cfg := func(s core.FileStorage, folder string) folio.DocumentIndexConfig {
				return folio.DocumentIndexConfig{FolderPath: folder, Embeddings: embedhash.New(&embedhash.Options{Dimensions: 64}), IndexOptions: core.IndexOptions{Storage: s, Codec: killCodec(format)}}
			}
			docs, err := folio.NewLocalDocumentIndex(cfg(openS3(t, url), "kb"))
			if err != nil {
				t.Fatal(err)
			}
			if err := docs.CreateIndex(t.Context(), core.CreateIndexConfig{}); err != nil {
				t.Fatal(err)
			}
			inputs := map[string]string{}
			var batch []core.DocumentInput
			for i := range 12 {
				uri := fmt.Sprintf("notes/%02d.md", i)
				inputs[uri] = s3DocText(i%3, i)
				batch = append(batch, core.DocumentInput{URI: uri, Text: inputs[uri], Metadata: core.Metadata{"n": float64(i)}})
			}
			if _, err := docs.UpsertDocuments(t.Context(), batch, nil); err != nil {
				t.Fatal(err)
			}

			check := func(where string, ix *core.LocalDocumentIndex) {
				t.Helper()
				list, err := ix.ListDocuments(t.Context())
				if err != nil || len(list) != len(inputs) {
					t.Fatalf("%s: %d documents, %v; want %d", where, len(list), err, len(inputs))
				}
				for _, d := range list {
					text, err := d.LoadText(t.Context())
					if err != nil || text != inputs[d.URI()] {
						t.Fatalf("%s: %s: text differs (%v)", where, d.URI(), err)
					}
				}
				res, err := ix.QueryDocuments(t.Context(), inputs["notes/05.md"], &core.DocumentQueryOptions{MaxDocuments: 1})
				if err != nil || len(res) != 1 || res[0].URI() != "notes/05.md" {
					t.Fatalf("%s: query: %v, %v", where, res, err)
				}
			}
			s2 := openS3(t, url)
			reopened, err := folio.NewLocalDocumentIndex(cfg(s2, "kb"))
			if err != nil {
				t.Fatal(err)
			}
			check("reopened from the bucket", reopened)
			dir := filepath.Join(t.TempDir(), "kb")
			copyToDisk(t, s2, "kb", dir)
			local, err := folio.NewLocalDocumentIndex(cfg(nil, dir))
			if err != nil {
				t.Fatal(err)
			}
			check("copied to disk", local)
		})
	}
}

// One writer commits batches of 10 while two readers, each with a storage
// value of its own (as two servers would have), query: every answer is a
// whole commit, never fewer items than before, and both readers see the
// last commit.
func TestObjectStorageReadersSeeEachCommitWhole(t *testing.T) {
	srv := s3test.NewServer(t, "folio")
	url := srv.BucketURL("folio")
	writer, err := folio.NewLocalIndex("ix", &folio.IndexOptions{Storage: openS3(t, url)})
	if err != nil {
		t.Fatal(err)
	}
	if err := writer.CreateIndex(t.Context(), core.CreateIndexConfig{MetadataConfig: core.MetadataConfig{Indexed: []string{"k"}}}); err != nil {
		t.Fatal(err)
	}
	const batches, perBatch = 30, 10
	const total = batches * perBatch

	var wg sync.WaitGroup
	errs := make(chan error, 3)
	for r := range 2 {
		reader, err := folio.NewLocalIndex("ix", &folio.IndexOptions{Storage: openS3(t, url), FreshnessInterval: 2 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		wg.Go(func() {
			last, queries, seen := 0, 0, map[int]bool{}
			deadline := time.Now().Add(time.Minute)
			for last < total {
				if time.Now().After(deadline) {
					errs <- fmt.Errorf("reader %d saw %d items after %d queries, want %d", r, last, queries, total)
					return
				}
				res, err := reader.QueryItems(t.Context(), s3Vector(1), "", total+10, nil, false)
				if err != nil {
					errs <- fmt.Errorf("reader %d: %w", r, err)
					return
				}
				queries++
				if len(res) < last || len(res)%perBatch != 0 {
					errs <- fmt.Errorf("reader %d: %d items after %d: not a whole commit", r, len(res), last)
					return
				}
				for _, hit := range res {
					k, _ := hit.Item.Metadata["k"].(float64)
					if !reflect.DeepEqual(hit.Item.Vector, s3Vector(int(k))) || hit.Item.Metadata["note"] != fmt.Sprintf("side-car text %d", int(k)) {
						errs <- fmt.Errorf("reader %d: item %s is torn: %v", r, hit.Item.ID, hit.Item.Metadata)
						return
					}
				}
				last = len(res)
				seen[last] = true
			}
			t.Logf("reader %d: %d queries, %d distinct commits seen", r, queries, len(seen))
		})
	}
	items := s3Items(total)
	for b := range batches {
		if _, err := writer.BatchInsertItems(t.Context(), items[b*perBatch:(b+1)*perBatch]); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// The requests one commit makes on S3, once the index is open: a PUT of
// the index file and of the side-car if any; two HEADs of the index file
// (has another process committed since? and the version just written, for
// change detection); and, for a side-car, a one-key listing that makes
// sure no folder is at its new key. Nothing lists the index folder.
func TestObjectStorageCommitRequests(t *testing.T) {
	srv := s3test.NewServer(t, "folio")
	s := openS3(t, srv.BucketURL("folio"))
	ix, err := folio.NewLocalIndex("ix", &folio.IndexOptions{Storage: s})
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.CreateIndex(t.Context(), core.CreateIndexConfig{MetadataConfig: core.MetadataConfig{Indexed: []string{"k"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.BatchInsertItems(t.Context(), s3Items(5)); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		item core.IndexItem
		want map[string]int
	}{
		{"inline metadata only", core.IndexItem{ID: "a", Vector: s3Vector(1), Metadata: core.Metadata{"k": 1.0}}, map[string]int{"PUT": 1, "HEAD": 2}},
		{"with a side-car", core.IndexItem{ID: "b", Vector: s3Vector(2), Metadata: core.Metadata{"k": 2.0, "note": "x"}}, map[string]int{"PUT": 2, "HEAD": 2, "LIST": 1}},
	} {
		srv.Reset()
		if _, err := ix.InsertItem(t.Context(), tc.item); err != nil {
			t.Fatal(err)
		}
		got := srv.Requests()
		t.Logf("%s: %v", tc.name, got)
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: requests %v, want %v", tc.name, got, tc.want)
		}
	}
}
