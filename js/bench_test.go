//go:build !(js && wasm)

package main

import (
	"os"
	"slices"
	"testing"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// BenchmarkPageQuery10kx384 times a top-10 queryItems over 10,000 × 384
// vectors in headless Chromium, on Vectra 0.15's browser build and on
// Folio's module, in one Chromium: the same page module, only the import
// differing. Each iteration is a batch of 10 queries timed in the page;
// ms/query is that in-page time (ns/op adds the DevTools round trip).
// Both libraries' top 10 for the first query must agree. folio-quantized
// is Folio's int8 scan (quantizedScan), which re-ranks its candidates
// exactly.
func BenchmarkPageQuery10kx384(b *testing.B) {
	if os.Getenv("FOLIO_VECTRA_BROWSER_BUNDLE") == "" {
		b.Skip("FOLIO_VECTRA_BROWSER_BUNDLE is not set (make bench builds Vectra's browser bundle and sets it)")
	}
	s := newSite(b, nil)
	ctx := newBrowser(b)
	tops := map[string][]string{}
	for _, lib := range []string{"vectra", "folio", "folio-quantized"} {
		b.Run("lib="+lib, func(b *testing.B) {
			params := map[string]string{"test": "bench", "lib": lib}
			if lib == "folio-quantized" {
				params["lib"], params["quantized"] = "folio", "1"
			}
			var setup struct {
				InsertMs float64
				Top      []string
			}
			s.runPage(b, ctx, params, &setup)
			tops[lib] = setup.Top
			var total float64
			var batches int
			for b.Loop() {
				ms, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`window.__bench.query(10)`, chromedp.EvalAwaitPromise))
				if err != nil {
					b.Fatal(err)
				}
				total += ms
				batches++
			}
			b.ReportMetric(total/float64(batches), "ms/query")
			b.ReportMetric(setup.InsertMs, "insert-ms")
		})
	}
	for _, lib := range []string{"folio", "folio-quantized"} {
		if len(tops[lib]) != 10 || !slices.Equal(tops[lib], tops["vectra"]) {
			b.Errorf("top 10 of the first query: %s %v, Vectra %v", lib, tops[lib], tops["vectra"])
		}
	}
}

// BenchmarkPageStartup times, in headless Chromium, a page from navigation
// to its first answered query (testdata/startup.js: the library loaded, a
// 100-item index built in memory, one query), on Vectra 0.15's browser
// build and on Folio's module in the same run. ms-to-answer is the page's
// own performance.now() at the answer, whose origin is the navigation;
// the files come from 127.0.0.1, uncompressed, and the browser's cache is
// off, so each load fetches and compiles folio.wasm afresh.
func BenchmarkPageStartup(b *testing.B) {
	if os.Getenv("FOLIO_VECTRA_BROWSER_BUNDLE") == "" {
		b.Skip("FOLIO_VECTRA_BROWSER_BUNDLE is not set (make bench builds Vectra's browser bundle and sets it)")
	}
	s := newSite(b, nil)
	for _, lib := range []string{"vectra", "folio"} {
		b.Run("lib="+lib, func(b *testing.B) {
			ctx := newBrowser(b)
			if _, err := chromedp.Call(ctx, network.SetCacheDisabled, network.SetCacheDisabledParams{CacheDisabled: true}); err != nil {
				b.Fatal(err)
			}
			var times []float64
			for b.Loop() {
				var r struct {
					Ms   float64
					Hits int
				}
				s.runPage(b, ctx, map[string]string{"test": "startup", "lib": lib}, &r)
				if r.Hits != 10 {
					b.Fatalf("%s: %d hits, want 10", lib, r.Hits)
				}
				times = append(times, r.Ms)
			}
			slices.Sort(times)
			b.ReportMetric(times[len(times)/2], "ms-to-answer")
		})
	}
}
