package main

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkAdd1000Files is `folio add` of 1,000 markdown files into a new
// index: through a keys file against an OpenAI-compatible server on
// 127.0.0.1 that takes 50 ms per embeddings call, with --concurrency 1
// and 4, and with the offline --hash-dims 384 model. Each iteration is
// the whole command, process start included.
func BenchmarkAdd1000Files(b *testing.B) {
	dir := b.TempDir()
	writeManyDocs(b, dir, 1000)
	srv := embeddingsServer(b, 50*time.Millisecond)
	keys := writeKeys(b, dir, srv.URL, 0)
	runs := []struct {
		name string
		args []string
	}{
		{"hosted-concurrency-1", []string{"--keys", keys, "--concurrency", "1"}},
		{"hosted-concurrency-4", []string{"--keys", keys, "--concurrency", "4"}},
		{"hash-dims-384", []string{"--hash-dims", "384"}},
	}
	for _, run := range runs {
		b.Run(run.name, func(b *testing.B) {
			srv.Calls.Store(0)
			n := 0
			for i := 0; b.Loop(); i++ {
				b.StopTimer()
				ix := filepath.Join(dir, fmt.Sprintf("%s-%d", run.name, i))
				if out, err := exec.Command(folioBin, "create", ix).CombinedOutput(); err != nil {
					b.Fatalf("create: %v: %s", err, out)
				}
				b.StartTimer()
				cmd := exec.Command(folioBin, append([]string{"add", ix, "--uri", filepath.Join(dir, "many")}, run.args...)...)
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("add: %v: %s", err, out)
				}
				n++
			}
			b.ReportMetric(float64(srv.Calls.Load())/float64(n), "calls/op")
		})
	}
}
