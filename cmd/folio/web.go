package main

import (
	"net/url"
	"strings"

	storagehttp "github.com/foliovec/folio/adapters/storage-http"
	"github.com/foliovec/folio/core"
)

// isWebURL reports whether location is an http:// or https:// URL: an
// index folder served by a web host, read through storagehttp.
func isWebURL(location string) bool {
	u, err := url.Parse(location)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// webStorage is a read-only storage of the files below a web folder.
type webStorage struct{ *storagehttp.Storage }

func (webStorage) Close() error { return nil }

// openWeb opens the storage of a web folder's URL.
func openWeb(location string) (webStorage, error) {
	s, err := storagehttp.New(location, nil)
	return webStorage{s}, err
}

// splitWebIndex splits the URL of an index folder on a web host into the
// URL of the folder above it and the index's name there:
// https://host/docs/search → https://host/docs/ and "search".
func splitWebIndex(index string) (parent, name string, err error) {
	u, err := url.Parse(index)
	if err != nil {
		return "", "", usagef("index URL: %v", err)
	}
	p := strings.TrimRight(u.Path, "/")
	cut := strings.LastIndex(p, "/")
	if cut < 0 || p[cut+1:] == "" {
		return "", "", usagef("index URL %s://%s%s names no folder: want https://host/path/to/index", u.Scheme, u.Host, u.Path)
	}
	name = p[cut+1:]
	u.Path, u.RawPath = p[:cut+1], ""
	return u.String(), name, nil
}

// webIndexOptions are the index options of an index read from a web host:
// its segments' 4-bit codes, so that a query fetches the codes and the rows
// it re-ranks, not every vector, unless the flags choose other codes.
func webIndexOptions(o core.IndexOptions) core.IndexOptions {
	if o.ScanCodes == "" && !o.QuantizedScan {
		o.ScanCodes = core.CodesInt4
	}
	return o
}
