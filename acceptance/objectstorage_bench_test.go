package acceptance_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/foliovec/folio"
	codecpb "github.com/foliovec/folio/adapters/codec-pb"
	storageblob "github.com/foliovec/folio/adapters/storage-blob"
	"github.com/foliovec/folio/adapters/storage-blob/s3test"
	"github.com/foliovec/folio/core"
)

// BenchmarkOpenFromS3 is open + first query of a 100k×384 protobuf index
// from an S3-protocol server on 127.0.0.1 (gofakes3 over memory), beside
// the same from disk, in one run. Every iteration opens a new storage
// value, as a server starting would.
func BenchmarkOpenFromS3(b *testing.B) {
	ctx := context.Background()
	dir := filepath.Join(b.TempDir(), "idx")
	writeBenchIndex(b, dir, codecpb.New(), 100_000, 384)
	raw, err := os.ReadFile(filepath.Join(dir, "index.pb"))
	if err != nil {
		b.Fatal(err)
	}
	srv := s3test.NewServer(b, "folio")
	url := srv.BucketURL("folio")
	s, err := storageblob.Open(ctx, url)
	if err != nil {
		b.Fatal(err)
	}
	if err := s.CreateFolder(ctx, "idx"); err != nil {
		b.Fatal(err)
	}
	if err := s.UpsertFile(ctx, "idx/index.pb", raw); err != nil {
		b.Fatal(err)
	}
	s.Close()
	b.Logf("index.pb: %.1f MB", float64(len(raw))/1e6)
	q := make([]float32, 384)
	q[0] = 1
	openAndQuery := func(b *testing.B, storage core.FileStorage, folder string) {
		ix, err := folio.NewLocalIndex(folder, &folio.IndexOptions{Codec: codecpb.New(), Storage: storage})
		if err != nil {
			b.Fatal(err)
		}
		if res, err := ix.QueryItems(ctx, q, "", 10, nil, false); err != nil || len(res) != 10 {
			b.Fatal(len(res), err)
		}
	}
	b.Run("disk", func(b *testing.B) {
		runtime.GC()
		for b.Loop() {
			openAndQuery(b, nil, dir)
		}
	})
	b.Run("s3", func(b *testing.B) {
		runtime.GC()
		srv.Reset()
		n := 0
		for b.Loop() {
			s, err := storageblob.Open(ctx, url)
			if err != nil {
				b.Fatal(err)
			}
			openAndQuery(b, s, "idx")
			s.Close()
			n++
		}
		reqs := 0
		for _, c := range srv.Requests() {
			reqs += c
		}
		b.ReportMetric(float64(reqs)/float64(n), "requests/op")
	})
}
