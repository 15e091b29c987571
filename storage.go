package folio

import (
	"context"
	"net/url"
	"strings"

	storageblob "github.com/foliovec/folio/adapters/storage-blob"
	storagefs "github.com/foliovec/folio/adapters/storage-fs"
	"github.com/foliovec/folio/core"
)

// Storage is a FileStorage that holds resources (an open folder, a bucket
// client) until Close.
type Storage interface {
	core.FileStorage
	Close() error
}

// IsStorageURL reports whether location is a bucket URL ("s3://…",
// "gs://…", "azblob://…", "file://…", "mem://") rather than a folder path.
// A Windows drive path ("C:\indexes") is a folder path.
func IsStorageURL(location string) bool {
	u, err := url.Parse(location)
	return err == nil && len(u.Scheme) > 1 && strings.HasPrefix(location[len(u.Scheme):], "://")
}

// OpenStorage opens the storage a location names, for IndexOptions.Storage
// and DocumentIndexConfig.Storage: a bucket URL gives object storage
// (storageblob.Open: S3, Google Cloud Storage, Azure Blob, file://, mem://,
// with an optional "prefix" parameter; credentials from the environment),
// anything else is an existing local folder (storagefs.New with Options.Root). Index
// paths given with the result are relative to the location. Close it when
// done.
//
//	s, err := folio.OpenStorage(ctx, "s3://my-bucket?region=eu-west-1")
//	ix, err := folio.NewLocalIndex("products", &folio.IndexOptions{Storage: s})
func OpenStorage(ctx context.Context, location string) (Storage, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if IsStorageURL(location) {
		return storageblob.Open(ctx, location)
	}
	return storagefs.New(&storagefs.Options{Root: location})
}
