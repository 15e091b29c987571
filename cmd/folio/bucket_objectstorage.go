//go:build objectstorage

package main

import (
	"context"

	storageblob "github.com/foliovec/folio/adapters/storage-blob"
)

// objectStorageBuilt says this folio was built with the objectstorage tag:
// bucket URLs open through storageblob and its cloud drivers.
const objectStorageBuilt = true

// openBucket opens the bucket a URL names.
func openBucket(ctx context.Context, bucketURL string) (openedStorage, error) {
	return storageblob.Open(ctx, bucketURL)
}
