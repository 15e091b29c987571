package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foliovec/folio/adapters/grpc/vectrapb"
	"github.com/foliovec/folio/adapters/storage-blob/s3test"
)

// --storage-root and serve's --root take a bucket URL: the index lives on
// an S3-protocol server on 127.0.0.1, and the server answers from it.
func TestIndexInABucket(t *testing.T) {
	srv := s3test.NewServer(t, "folio")
	bucket := srv.BucketURL("folio", "prefix=indexes/")
	dir := t.TempDir()
	docs := writeDocs(t, dir)

	must(t, dir, 0, "create", "ix", "--storage-root", bucket, "--hash-dims", "64")
	must(t, dir, 1, "create", "ix", "--storage-root", bucket)
	added := decode[map[string]any](t, must(t, dir, 0, "add", "ix", "--storage-root", bucket, "--uri", "docs", "--json"))
	if added["documents"] != float64(len(docs)) {
		t.Fatalf("add: %v", added)
	}
	q := decode[queryOutput](t, must(t, dir, 0, "query", "ix", "yeast dough", "--storage-root", bucket, "--json", "--dc", "1"))
	if len(q.Results) != 1 || !strings.HasSuffix(q.Results[0].URI, "bread.md") {
		t.Fatalf("query: %+v", q)
	}
	if st := decode[map[string]any](t, must(t, dir, 0, "stats", "ix", "--storage-root", bucket, "--json")); st["documents"] != float64(len(docs)) {
		t.Errorf("stats: %v", st)
	}

	port := freePort(t)
	pidFile := filepath.Join(dir, "folio.pid")
	// With --root the server serves every index below it; the model is named.
	must(t, dir, 0, "serve", "--root", bucket, "--hash-dims", "64", "--port", fmt.Sprint(port), "--daemon", "--pid-file", pidFile)
	t.Cleanup(func() { _ = exec.Command(folioBin, "stop", "--pid-file", pidFile).Run() })
	client, ctx := dialServer(t, port)
	list, err := client.ListIndexes(ctx, &vectrapb.ListIndexesRequest{})
	if err != nil || len(list.GetIndexes()) != 1 || list.GetIndexes()[0].GetName() != "ix" {
		log, _ := os.ReadFile(pidFile + ".log")
		t.Fatalf("ListIndexes from the bucket: %v, %v\nserver log:\n%s", list, err, log)
	}
	res, err := client.QueryDocuments(ctx, &vectrapb.QueryDocumentsRequest{IndexName: "ix", Query: "rocket thrust fuel", MaxDocuments: 1})
	if err != nil || len(res.GetResults()) != 1 || !strings.HasSuffix(res.GetResults()[0].GetUri(), "rockets.md") {
		t.Fatalf("QueryDocuments from the bucket: %v, %v", res, err)
	}
	must(t, dir, 0, "stop", "--pid-file", pidFile)
}
