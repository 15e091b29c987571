package main

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/foliovec/folio/adapters/grpc/vectrapb"
	"github.com/foliovec/folio/adapters/storage-blob/s3test"
	"github.com/foliovec/folio/core/manager"
)

// severalServersRounds is how many documents the writer adds, one commit
// each, in TestSeveralServersOverABucket: a few in make test, more with
// FOLIO_SEVERAL_SERVERS_ROUNDS (make several-servers-test).
func severalServersRounds(t *testing.T) int {
	if v := os.Getenv("FOLIO_SEVERAL_SERVERS_ROUNDS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 2 {
			t.Fatalf("FOLIO_SEVERAL_SERVERS_ROUNDS=%q: want a number of at least 2", v)
		}
		return n
	}
	return 6
}

// Many stateless servers over one bucket, one writer: three `folio serve
// --root s3://…` processes answer clients spread over them while another
// process adds documents, one commit each. Every server answers each commit
// within its freshness interval plus the rescan interval (the lags are
// logged), no answer is ever a torn index (every
// document returned is one the writer committed, whole), and killing one
// server with SIGKILL leaves the others answering.
//
// It runs on Vectra's JSON file and on the segmented layout, where each
// commit uploads one segment and the manifest and the servers download only
// the new segment.
func TestSeveralServersOverABucket(t *testing.T) {
	for _, format := range []string{"json", "segmented"} {
		t.Run(format, func(t *testing.T) { severalServers(t, format) })
	}
}

// severalServersBucket is the bucket URL the servers share: on the
// S3-compatible server FOLIO_S3_ENDPOINT names (make several-servers-test
// runs SeaweedFS there, with a bucket "folio"), under a prefix of the
// test's own; else on the in-process fake.
func severalServersBucket(t *testing.T, format string) string {
	endpoint := os.Getenv("FOLIO_S3_ENDPOINT")
	if endpoint == "" {
		return s3test.NewServer(t, "folio").BucketURL("folio", "prefix=indexes/")
	}
	createBucket(t, endpoint, "folio")
	// The server checks no credentials; the client signs with these.
	for k, v := range map[string]string{"AWS_ACCESS_KEY_ID": "folio", "AWS_SECRET_ACCESS_KEY": "folio", "AWS_CONFIG_FILE": "/nonexistent", "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent", "AWS_EC2_METADATA_DISABLED": "true"} {
		t.Setenv(k, v)
	}
	prefix := fmt.Sprintf("several-servers-%s-%d/", format, time.Now().UnixNano())
	return fmt.Sprintf("s3://folio?region=us-east-1&endpoint=%s&use_path_style=true&disable_https=true&response_checksum_validation=when_required&prefix=%s", endpoint, prefix)
}

// createBucket makes bucket on the S3 server at endpoint, which may still
// be starting: it tries for a minute. One that exists already will do.
func createBucket(t *testing.T, endpoint, bucket string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPut, endpoint+"/"+bucket, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK || resp.StatusCode == http.StatusConflict {
				return
			}
			err = fmt.Errorf("HTTP %s", resp.Status)
		}
		if time.Now().After(deadline) {
			t.Fatalf("create bucket %s at %s: %v", bucket, endpoint, err)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

func severalServers(t *testing.T, format string) {
	rounds := severalServersRounds(t)
	bucket := severalServersBucket(t, format)
	if testing.Verbose() {
		t.Logf("bucket %s", bucket)
	}
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "docs"), 0o755)
	must(t, dir, 0, "create", "ix", "--storage-root", bucket, "--hash-dims", "256", "--format", format)
	writeRound := func(r int) string {
		p := filepath.Join("docs", fmt.Sprintf("d%03d.md", r))
		text := fmt.Sprintf("# Round %d\n\nThis document carries the marker word round%03dmarker and some shared words about servers and buckets.", r, r)
		if err := os.WriteFile(filepath.Join(dir, p), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	must(t, dir, 0, "add", "ix", "--storage-root", bucket, "--uri", writeRound(0), "-q")

	const servers = 3
	const freshness = 200 * time.Millisecond
	ports := make([]int, servers)
	pidFiles := make([]string, servers)
	clients := make([]vectrapb.VectraServiceClient, servers)
	for i := range servers {
		ports[i] = freePort(t)
		pidFiles[i] = filepath.Join(dir, fmt.Sprintf("s%d.pid", i))
		must(t, dir, 0, "serve", "--root", bucket, "--port", fmt.Sprint(ports[i]), "--daemon", "--pid-file", pidFiles[i],
			"--freshness-interval", freshness.String())
		pf := pidFiles[i]
		t.Cleanup(func() { _ = exec.Command(folioBin, "stop", "--pid-file", pf).Run() })
		clients[i], _ = dialServer(t, ports[i])
	}

	// Clients: query every live server in turn until the test ends; every
	// answer must name only committed documents, each with its marker.
	var committed sync.Map // URI suffix "dNNN.md" → true
	committed.Store("d000.md", true)
	var dead atomic.Int32 // 1 + the index of the killed server, 0: none
	var answers, failures atomic.Int64
	var firstFailure atomic.Value
	stop := make(chan struct{})
	var wg sync.WaitGroup
	ctx := t.Context()
	for c := range 4 {
		wg.Go(func() {
			for k := c; ; k++ {
				select {
				case <-stop:
					return
				default:
				}
				s := k % servers
				if int(dead.Load()) == s+1 {
					continue
				}
				res, err := clients[s].QueryDocuments(ctx, &vectrapb.QueryDocumentsRequest{IndexName: "ix", Query: "servers and buckets", MaxDocuments: 50})
				if err != nil {
					if int(dead.Load()) == s+1 {
						continue // killed while the call was in flight
					}
					failures.Add(1)
					firstFailure.CompareAndSwap(nil, fmt.Sprintf("server %d: %v", s, err))
					continue
				}
				answers.Add(1)
				for _, d := range res.GetResults() {
					name := filepath.Base(d.GetUri())
					_, ok := committed.Load(name)
					marker := "round" + strings.TrimSuffix(strings.TrimPrefix(name, "d"), ".md") + "marker"
					whole := slices.ContainsFunc(d.GetChunks(), func(ch *vectrapb.DocumentChunk) bool { return strings.Contains(ch.GetText(), marker) })
					if !ok || !whole {
						failures.Add(1)
						firstFailure.CompareAndSwap(nil, fmt.Sprintf("server %d answered %s (committed %v, whole %v)", s, name, ok, whole))
					}
				}
			}
		})
	}

	// The writer: one document per round, each its own `folio add`; after
	// each, every live server must find it.
	var lags []time.Duration
	killAt := rounds / 2
	for r := 1; r <= rounds; r++ {
		if r == killAt {
			raw, err := os.ReadFile(pidFiles[0])
			if err != nil {
				t.Fatal(err)
			}
			pid, _ := strconv.Atoi(strings.TrimSpace(string(raw)))
			dead.Store(1)
			if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
		}
		name := writeRound(r)
		committed.Store(filepath.Base(name), true) // before the commit: a reader may see it as soon as it lands
		must(t, dir, 0, "add", "ix", "--storage-root", bucket, "--uri", name, "-q")
		done := time.Now()
		marker := fmt.Sprintf("round%03dmarker", r)
		for s := range servers {
			if int(dead.Load()) == s+1 {
				continue
			}
			for {
				// Every document the vector search or the keyword search
				// finds: the marker's document is among them once the
				// server has its commit (a keyword match if no vector one).
				res, err := clients[s].QueryDocuments(ctx, &vectrapb.QueryDocumentsRequest{IndexName: "ix", Query: marker, MaxDocuments: 1000, UseBm25: true})
				if err == nil && slices.ContainsFunc(res.GetResults(), func(d *vectrapb.DocumentResult) bool { return strings.HasSuffix(d.GetUri(), filepath.Base(name)) }) {
					lags = append(lags, time.Since(done))
					if testing.Verbose() {
						t.Logf("round %d: server %d after %v", r, s, time.Since(done))
					}
					break
				}
				// A server looks for commits once per freshness interval and
				// rescans the root once per scan interval; the bound gives a
				// loaded machine four times that for the reload itself (one
				// run beside other work took more than 3.2 s). The lags are
				// logged.
				if bound := 4 * (freshness + manager.DefaultScanInterval); time.Since(done) > bound {
					log, _ := os.ReadFile(pidFiles[s] + ".log")
					t.Fatalf("server %d has not seen round %d after %v, four times its freshness interval plus the rescan interval (%v)\nlog:\n%s", s, r, bound, err, log)
				}
				time.Sleep(20 * time.Millisecond)
			}
		}
	}
	close(stop)
	wg.Wait()
	if n := failures.Load(); n > 0 {
		t.Fatalf("%d failed or torn answers of %d; the first: %v", n, answers.Load()+n, firstFailure.Load())
	}
	if answers.Load() == 0 {
		t.Fatal("the clients got no answer")
	}
	slices.Sort(lags)
	t.Logf("%s: %d commits seen by every live server: lag median %v, max %v (freshness %v); %d client answers, 0 failed; server 0 killed at round %d",
		format, rounds, lags[len(lags)/2], lags[len(lags)-1], freshness, answers.Load(), killAt)
}
