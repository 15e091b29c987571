package main

import (
	"context"
	"net/url"
	"strings"

	storagefs "github.com/foliovec/folio/adapters/storage-fs"
	"github.com/foliovec/folio/core"
)

// openedStorage is storage that holds resources (an open folder, a bucket
// client) until Close.
type openedStorage interface {
	core.FileStorage
	Close() error
}

// openStorage opens the storage a location names: an http:// or https://
// URL gives the read-only storage of a web host's folder; a bucket URL (S3,
// Google Cloud Storage, Azure Blob, file://, mem://, with an optional
// "prefix" parameter; credentials from the environment) gives object
// storage, in a folio built with the objectstorage tag (openBucket);
// anything else is an existing local folder. Index paths are relative to
// the location.
func openStorage(ctx context.Context, location string) (openedStorage, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if isWebURL(location) {
		return openWeb(location)
	}
	if isBucketURL(location) {
		return openBucket(ctx, location)
	}
	return storagefs.New(&storagefs.Options{Root: location})
}

// isBucketURL reports whether location is a URL ("scheme://…"), which
// names a bucket, as storageblob.IsURL decides.
func isBucketURL(location string) bool {
	u, err := url.Parse(location)
	return err == nil && len(u.Scheme) > 1 && strings.HasPrefix(location[len(u.Scheme):], "://")
}
