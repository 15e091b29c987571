package storageblob_test

import (
	"testing"

	storageblob "github.com/foliovec/folio/adapters/storage-blob"
)

func TestIsURL(t *testing.T) {
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
		if got := storageblob.IsURL(location); got != want {
			t.Errorf("IsURL(%q) = %v, want %v", location, got, want)
		}
	}
}
