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
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"gocloud.dev/blob"
	"gocloud.dev/blob/s3blob"
)

// Server is a running S3-protocol test server.
type Server struct {
	// URL is the server's base URL, http://127.0.0.1:port.
	URL string

	mu       sync.Mutex
	requests map[string]int
	faults   *faults // nil: none
}

// faults is what InjectFaults set.
type faults struct {
	rate  float64
	rng   *rand.Rand
	kinds map[string]bool
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
		switch s.fault(r) {
		case faultReject:
			w.Header().Set("Content-Type", "application/xml")
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprint(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code><Message>injected fault</Message></Error>`)
			return
		case faultDrop:
			// The request reaches the store; its reply is lost.
			handler.ServeHTTP(httptest.NewRecorder(), r)
			if hj, ok := w.(http.Hijacker); ok {
				if conn, _, err := hj.Hijack(); err == nil {
					conn.Close()
					return
				}
			}
			w.WriteHeader(http.StatusBadGateway)
			return
		}
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
	s.mu.Lock()
	s.requests[kindOf(r)]++
	s.mu.Unlock()
}

// kindOf is r's kind as Requests counts it.
func kindOf(r *http.Request) string {
	if r.Method == http.MethodGet && !strings.Contains(strings.Trim(r.URL.Path, "/"), "/") {
		return "LIST"
	}
	return r.Method
}

// Fault kinds of InjectFaults.
const (
	faultNone = iota
	faultReject
	faultDrop
)

// InjectFaults makes the server fail a share rate (0 to 1) of the requests
// of the given kinds (as Requests counts them: "PUT", "GET", …; none: all),
// as a flaky network or proxy would: half of those are answered 503
// SlowDown without reaching the store, half reach the store and then lose
// their reply (the connection is closed), so the client cannot tell
// whether they took effect. The choice is random from seed. A rate of 0
// turns faults off.
func (s *Server) InjectFaults(rate float64, seed uint64, kinds ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if rate <= 0 {
		s.faults = nil
		return
	}
	f := &faults{rate: rate, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), kinds: map[string]bool{}}
	for _, k := range kinds {
		f.kinds[k] = true
	}
	s.faults = f
}

// fault picks what happens to r.
func (s *Server) fault(r *http.Request) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.faults
	if f == nil || len(f.kinds) > 0 && !f.kinds[kindOf(r)] {
		return faultNone
	}
	x := f.rng.Float64()
	switch {
	case x < f.rate/2:
		return faultReject
	case x < f.rate:
		return faultDrop
	}
	return faultNone
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

// OpenBucket opens bucket on this server the way storageblob.Open opens
// an s3:// URL, but with a retryer that waits a millisecond between its
// maxAttempts tries instead of backing off for seconds, for tests that
// inject faults (InjectFaults). The bucket is closed when the test ends.
func (s *Server) OpenBucket(t testing.TB, bucket string, maxAttempts int) *blob.Bucket {
	t.Helper()
	client := s3.New(s3.Options{
		Region:                     "us-east-1",
		BaseEndpoint:               aws.String(s.URL),
		UsePathStyle:               true,
		Credentials:                credentials.NewStaticCredentialsProvider("s3test", "s3test", ""),
		RequestChecksumCalculation: aws.RequestChecksumCalculationWhenRequired,
		ResponseChecksumValidation: aws.ResponseChecksumValidationWhenRequired,
		Retryer: retry.NewStandard(func(o *retry.StandardOptions) {
			o.MaxAttempts = maxAttempts
			o.RateLimiter = ratelimit.None
			o.Backoff = retry.BackoffDelayerFunc(func(int, error) (time.Duration, error) { return time.Millisecond, nil })
		}),
	})
	b, err := s3blob.OpenBucket(t.Context(), client, bucket, nil)
	if err != nil {
		t.Fatalf("s3test: open bucket %q: %v", bucket, err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}
