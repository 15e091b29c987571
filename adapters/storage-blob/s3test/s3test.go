// Package s3test starts an S3-protocol server on 127.0.0.1 for tests: the
// gofakes3 server over memory behind net/http/httptest, with a count of the
// requests it answers by kind, so tests exercise storageblob's S3 code path
// over real HTTP without a network.
//
//	srv := s3test.NewServer(t, "folio")
//	s, err := storageblob.Open(ctx, srv.BucketURL("folio"))
//
// NewServer sets the AWS credential variables of the test's environment
// (t.Setenv) to the server's, and turns off every other credential source,
// so it cannot be used in parallel tests.
package s3test

import (
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

// Server is a running S3-protocol test server.
type Server struct {
	// URL is the server's base URL, http://127.0.0.1:port.
	URL string

	mu       sync.Mutex
	requests map[string]int
}

// NewServer starts a server holding the given empty buckets; it stops when
// the test ends.
func NewServer(t testing.TB, buckets ...string) *Server {
	t.Helper()
	backend := s3mem.New()
	for _, b := range buckets {
		if err := backend.CreateBucket(b); err != nil {
			t.Fatalf("s3test: create bucket %q: %v", b, err)
		}
	}
	handler := gofakes3.New(backend).Server()
	s := &Server{requests: map[string]int{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.count(r)
		handler.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	for k, v := range map[string]string{
		"AWS_ACCESS_KEY_ID":           "s3test",
		"AWS_SECRET_ACCESS_KEY":       "s3test",
		"AWS_SESSION_TOKEN":           "",
		"AWS_PROFILE":                 "",
		"AWS_CONFIG_FILE":             "/nonexistent",
		"AWS_SHARED_CREDENTIALS_FILE": "/nonexistent",
		"AWS_EC2_METADATA_DISABLED":   "true",
	} {
		t.Setenv(k, v)
	}
	return s
}

// count files a request under its kind: "LIST" (a GET of the bucket),
// "GET", "PUT", "HEAD", "DELETE" or "POST" (of an object or the bucket).
func (s *Server) count(r *http.Request) {
	kind := r.Method
	if r.Method == http.MethodGet && !strings.Contains(strings.Trim(r.URL.Path, "/"), "/") {
		kind = "LIST"
	}
	s.mu.Lock()
	s.requests[kind]++
	s.mu.Unlock()
}

// Requests returns the requests answered since the last Reset, by kind.
func (s *Server) Requests() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.requests)
}

// Reset forgets the requests counted so far.
func (s *Server) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = map[string]int{}
}

// BucketURL is the s3:// URL of bucket on this server for storageblob.Open
// and gocloud's blob.OpenBucket, with more query parameters appended
// ("prefix=ix/"). gofakes3 returns no checksums, so the URL asks the AWS
// SDK to validate them only where required (otherwise the SDK logs a
// warning to stderr for every read).
func (s *Server) BucketURL(bucket string, params ...string) string {
	u := fmt.Sprintf("s3://%s?region=us-east-1&endpoint=%s&use_path_style=true&disable_https=true&response_checksum_validation=when_required", bucket, s.URL)
	for _, p := range params {
		u += "&" + p
	}
	return u
}
