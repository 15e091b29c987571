package main

import (
	"strings"
	"testing"
)

// openStorage takes a folder or a bucket URL; both reach the same files.
func TestOpenStorage(t *testing.T) {
	dir := t.TempDir()
	local, err := openStorage(t.Context(), dir)
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
	// file: an object store knows no empty folders), in a build with
	// object storage; the default build refuses bucket URLs.
	bucket, err := openStorage(t.Context(), "file://"+dir)
	if !objectStorageBuilt {
		if err == nil || !strings.Contains(err.Error(), "-tags objectstorage") {
			t.Fatalf("a bucket URL in the default build: %v, want the way to a build with object storage", err)
		}
		return
	}
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
	if _, err := openStorage(t.Context(), "nosuch://x"); err == nil {
		t.Error("an unknown scheme opened")
	}
}
