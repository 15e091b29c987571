package fetch_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/foliovec/folio/adapters/fetch"
)

// BenchmarkFileFetcher walks 10,000 small markdown files (about 1 KiB
// each) in 100 folders; the figure is per walk.
func BenchmarkFileFetcher(b *testing.B) {
	dir := b.TempDir()
	const files = 10_000
	text := strings.Repeat("Folio reads small markdown files quickly. ", 24)
	for i := range files {
		p := filepath.Join(dir, fmt.Sprintf("d%02d", i%100), fmt.Sprintf("f%05d.md", i))
		if i < 100 {
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				b.Fatal(err)
			}
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	f := fetch.NewFileFetcher(nil)
	b.ResetTimer()
	for b.Loop() {
		n := 0
		if _, err := f.Fetch(context.Background(), dir, func(context.Context, string, string, string) (bool, error) {
			n++
			return true, nil
		}); err != nil || n != files {
			b.Fatalf("%d files, %v", n, err)
		}
	}
	b.ReportMetric(float64(files)*float64(b.N)/b.Elapsed().Seconds(), "files/s")
}

// BenchmarkWebFetcherPage fetches and converts a 60 KiB page from a local
// server.
func BenchmarkWebFetcherPage(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("<html><head><script>x()</script></head><body><h1>Big page</h1>")
	for i := range 200 {
		fmt.Fprintf(&sb, `<p>Paragraph %d with <a href="/p/%d">a link</a> and <b>bold</b> text.</p>`, i, i)
		if i%20 == 0 {
			sb.WriteString(`<table><tr><th>a</th><th align="right">b</th></tr><tr><td>1</td><td>2</td></tr></table>`)
		}
	}
	sb.WriteString("</body></html>")
	srv := serveBench(b, sb.String())
	f := fetch.NewWebFetcher(nil)
	b.SetBytes(int64(sb.Len()))
	for b.Loop() {
		if _, err := f.Fetch(context.Background(), srv, func(context.Context, string, string, string) (bool, error) { return true, nil }); err != nil {
			b.Fatal(err)
		}
	}
}
