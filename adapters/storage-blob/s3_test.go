package storageblob_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

// s3Server is an S3-protocol server on 127.0.0.1 (gofakes3 over memory)
// that counts the requests it answers.
type s3Server struct {
	URL string

	mu       sync.Mutex
	requests map[string]int // "GET list", "PUT object", "HEAD object", …
}

func newS3Server(t testing.TB, buckets ...string) *s3Server {
	t.Helper()
	backend := s3mem.New()
	for _, b := range buckets {
		if err := backend.CreateBucket(b); err != nil {
			t.Fatal(err)
		}
	}
	faker := gofakes3.New(backend)
	s := &s3Server{requests: map[string]int{}}
	handler := faker.Server()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.count(r)
		handler.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	// The AWS SDK reads credentials from the environment; these are the
	// test server's, and no other source is consulted.
	t.Setenv("AWS_ACCESS_KEY_ID", "test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
	t.Setenv("AWS_SESSION_TOKEN", "")
	t.Setenv("AWS_PROFILE", "")
	t.Setenv("AWS_CONFIG_FILE", "/nonexistent")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	return s
}

func (s *s3Server) count(r *http.Request) {
	kind := "object"
	if strings.Count(strings.Trim(r.URL.Path, "/"), "/") == 0 {
		kind = "bucket" // a request on the bucket: a listing
		if r.Method == http.MethodGet {
			kind = "list"
		}
	}
	s.mu.Lock()
	s.requests[r.Method+" "+kind]++
	s.mu.Unlock()
}

// reset forgets the counts and returns them.
func (s *s3Server) reset() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	got := s.requests
	s.requests = map[string]int{}
	return got
}

// bucketURL is the s3:// URL of bucket on this server.
func (s *s3Server) bucketURL(bucket string, query ...string) string {
	u := fmt.Sprintf("s3://%s?region=us-east-1&endpoint=%s&use_path_style=true&disable_https=true", bucket, s.URL)
	for _, q := range query {
		u += "&" + q
	}
	return u
}

var _ = context.Background
