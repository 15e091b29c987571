//go:build !objectstorage

package main

import (
	"context"
	"fmt"
	"net/url"
)

// objectStorageBuilt says this folio was built without the objectstorage
// tag: it links no cloud SDK, and bucket URLs are refused with the way to
// a build that opens them.
const objectStorageBuilt = false

// openBucket refuses a bucket URL, naming its scheme and host only (its
// query may hold credentials).
func openBucket(_ context.Context, bucketURL string) (openedStorage, error) {
	where := "a bucket URL"
	if u, err := url.Parse(bucketURL); err == nil {
		where = u.Scheme + "://" + u.Host
	}
	return nil, fmt.Errorf("%s: this folio is built without object storage, which needs the cloud SDKs: "+
		"install one that has it with `go install -tags objectstorage ./cmd/folio` (or `make install TAGS=objectstorage`)", where)
}
