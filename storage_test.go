package folio_test

import (
	"testing"

	"github.com/foliovec/folio"
)

func TestIsStorageURL(t *testing.T) {
	for location, want := range map[string]bool{
		"s3://bucket?region=eu-west-1": true,
		"s3://":                        true,
		"gs://b":                       true,
		"azblob://container":           true,
		"file:///srv/indexes":          true,
		"mem://":                       true,
		"indexes":                      false,
		"/srv/indexes":                 false,
		`C:\indexes`:                   false,
		"C:/indexes":                   false,
		"./s3:/x":                      false,
		"":                             false,
	} {
		if got := folio.IsStorageURL(location); got != want {
			t.Errorf("IsStorageURL(%q) = %v, want %v", location, got, want)
		}
	}
}

func TestOpenStorage(t *testing.T) {
	dir := t.TempDir()
	local, err := folio.OpenStorage(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()
	if err := local.CreateFolder(t.Context(), "ix"); err != nil {
		t.Fatal(err)
	}
	if err := local.CreateFile(t.Context(), "ix/seed.txt", nil); err != nil {
		t.Fatal(err)
	}
	// The same folder through a file:// bucket URL sees it (through its
	// file: an object store knows no empty folders).
	bucket, err := folio.OpenStorage(t.Context(), "file://"+dir)
	if err != nil {
		t.Fatal(err)
	}
	defer bucket.Close()
	if err := bucket.UpsertFile(t.Context(), "ix/a.txt", []byte("a")); err != nil {
		t.Fatal(err)
	}
	if got, err := local.ReadFile(t.Context(), "ix/a.txt"); err != nil || string(got) != "a" {
		t.Fatalf("local read of a bucket write: %q, %v", got, err)
	}
	if _, err := folio.OpenStorage(t.Context(), "nosuch://x"); err == nil {
		t.Error("an unknown scheme opened")
	}
}
