package main

import (
	"context"

	storageblob "github.com/foliovec/folio/adapters/storage-blob"
	storagefs "github.com/foliovec/folio/adapters/storage-fs"
	"github.com/foliovec/folio/core"
)

// openedStorage is storage that holds resources (an open folder, a bucket
// client) until Close.
type openedStorage interface {
	core.FileStorage
	Close() error
}

// openStorage opens the storage a location names: a bucket URL
// (storageblob.IsURL: S3, Google Cloud Storage, Azure Blob, file://, mem://,
// with an optional "prefix" parameter; credentials from the environment)
// gives object storage, anything else is an existing local folder. Index
// paths are relative to the location.
func openStorage(ctx context.Context, location string) (openedStorage, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if storageblob.IsURL(location) {
		return storageblob.Open(ctx, location)
	}
	return storagefs.New(&storagefs.Options{Root: location})
}
