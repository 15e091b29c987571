// Command webbench measures an index read from a static web host, as a
// published folder is (folio publish): the index folder is served by Go's
// file server on 127.0.0.1 behind a reverse proxy that adds a round-trip
// latency to every request (-latency, 50 ms), and queried through
// storagehttp, beside the same queries on the local folder. It reports, for
// each size, the requests and bytes of the open and first query, of each
// later query, the time to the first answer and per later query, and
// whether the answers equal the local index's.
//
// The indexes are those of clusterbench (vectors that behave like
// embeddings, 384 dimensions), built once into -dir with 4-bit codes and
// partitions (from 50,000 rows), and kept:
//
//	go run ./webbench -n 10000,100000
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	codecpb "github.com/foliovec/folio/adapters/codec-pb"
	storagefs "github.com/foliovec/folio/adapters/storage-fs"
	storagehttp "github.com/foliovec/folio/adapters/storage-http"
	"github.com/foliovec/folio/conformance/testkit/clustered"
	"github.com/foliovec/folio/core"
)

const topK = 10

type config struct {
	sizes   []int
	d       int
	centres int
	queries int
	latency time.Duration
	seed    uint64
	dir     string
	browser bool   // also ask from headless Chromium
	page    string // the page's folder, once built
}

func main() {
	var c config
	sizes := flag.String("n", "10000,100000", "index sizes (rows), comma-separated")
	flag.IntVar(&c.d, "d", 384, "dimensions")
	flag.IntVar(&c.centres, "centres", clustered.DefaultCentres, "clusters")
	flag.IntVar(&c.queries, "queries", 20, "queries per size (held-out vectors)")
	flag.DurationVar(&c.latency, "latency", 50*time.Millisecond, "round trip the proxy adds to every request")
	seed := flag.Uint64("seed", 1, "the data set's seed")
	flag.StringVar(&c.dir, "dir", filepath.Join(os.TempDir(), "folio-clustered"), "folder of the indexes (kept for the next run)")
	flag.BoolVar(&c.browser, "browser", false, "also ask the queries from headless Chromium through Folio's JavaScript package")
	flag.Parse()
	c.seed = *seed
	for _, s := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n <= 0 {
			log.Fatalf("-n %q: want sizes such as 10000,100000", *sizes)
		}
		c.sizes = append(c.sizes, n)
	}
	fmt.Printf("%d×%d clustered, %d queries of the top %d, %v added round trip per request\n", c.sizes, c.d, c.queries, topK, c.latency)
	if c.browser {
		set := clustered.New(c.d, c.centres, 0, c.seed)
		qs := make([][]float32, c.queries)
		for j := range qs {
			qs[j] = make([]float32, c.d)
			set.Query(j, qs[j])
		}
		dir, err := page(qs)
		if err != nil {
			log.Fatal(err)
		}
		defer os.RemoveAll(dir)
		c.page = dir
	}
	for _, n := range c.sizes {
		r, err := c.measure(n)
		if err != nil {
			log.Fatal(err)
		}
		r.print(n)
	}
}

// folder is the index folder of n rows (clusterbench's name for it).
func (c config) folder(n int) string {
	return filepath.Join(c.dir, fmt.Sprintf("ix-%d-%d-%d-%d", n, c.d, c.centres, c.seed))
}

// options are the index options of a published index on storage.
func options(storage core.FileStorage) core.IndexOptions {
	return core.IndexOptions{Storage: storage, Codec: codecpb.New(), ScanCodes: core.CodesInt4, Partitions: true}
}

// local opens the index of n rows from its folder, building it first
// when it is missing.
func (c config) local(ctx context.Context, n int) (*core.LocalIndex, error) {
	fs, err := storagefs.New(nil)
	if err != nil {
		return nil, err
	}
	ix, err := core.NewLocalIndex(c.folder(n), options(fs))
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(c.folder(n), "built")); err == nil {
		return ix, nil
	}
	start := time.Now()
	if err := os.RemoveAll(c.folder(n)); err != nil {
		return nil, err
	}
	if err := ix.CreateIndex(ctx, core.CreateIndexConfig{Layout: core.LayoutSegmented}); err != nil {
		return nil, err
	}
	set := clustered.New(c.d, c.centres, 0, c.seed)
	src := core.IndexSource{Len: n, Item: func(i int) core.IndexItem {
		v := make([]float32, c.d)
		set.Vector(i, v)
		return core.IndexItem{ID: "c" + strconv.Itoa(i), Vector: v}
	}}
	if _, err := ix.BulkLoad(ctx, src); err != nil {
		return nil, err
	}
	fmt.Printf("built %d rows in %v\n", n, time.Since(start).Round(time.Millisecond))
	return ix, os.WriteFile(filepath.Join(c.folder(n), "built"), nil, 0o644)
}

// counts are what went over the wire.
type counts struct{ requests, bytes int64 }

func (a counts) minus(b counts) counts { return counts{a.requests - b.requests, a.bytes - b.bytes} }

// result is one size's figures.
type result struct {
	localOpen, webOpen   time.Duration // open and first answer
	open                 counts
	localLater, webLater []time.Duration
	later                []counts
	equal, asked         int // answers equal to the local index's, of asked
	rows, partitions     int
	probes               float64

	// In headless Chromium, when asked: the package's load, the open and
	// first answer, each later query; answers with the local index's
	// items (scores may differ in the last bits: the page's kernels are
	// not the native ones).
	pageLoad, pageOpen time.Duration
	pageLater          []time.Duration
	pageOpenWire       counts
	pageLaterWire      []counts
	pageEqual          int
}

// measure builds (once) and serves the index of n rows, and asks it the
// queries locally and over HTTP.
func (c config) measure(n int) (result, error) {
	ctx := context.Background()
	var r result
	if _, err := c.local(ctx, n); err != nil { // built once, then kept
		return r, err
	}
	start := time.Now()
	local, err := c.local(ctx, n)
	if err != nil {
		return r, err
	}
	set := clustered.New(c.d, c.centres, 0, c.seed)
	q := make([]float32, c.d)
	set.Query(0, q)
	want := make([][]core.QueryResult, c.queries)
	if want[0], err = local.QueryItems(ctx, q, "", topK, nil, false); err != nil {
		return r, err
	}
	r.localOpen = time.Since(start)
	for j := 1; j < c.queries; j++ {
		set.Query(j, q)
		t := time.Now()
		if want[j], err = local.QueryItems(ctx, q, "", topK, nil, false); err != nil {
			return r, err
		}
		r.localLater = append(r.localLater, time.Since(t))
	}
	st, err := local.GetIndexStats(ctx)
	if err != nil {
		return r, err
	}
	r.rows, r.partitions, r.probes = st.Items, st.Partitions, st.Probes

	// The host: Go's file server, with an ETag as static hosts send, behind
	// a proxy that holds every request for the added round trip.
	files := http.FileServer(http.Dir(c.dir))
	host := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if fi, err := os.Stat(filepath.Join(c.dir, filepath.FromSlash(req.URL.Path))); err == nil && fi.Mode().IsRegular() {
			w.Header().Set("ETag", fmt.Sprintf(`"%x-%x"`, fi.ModTime().UnixNano(), fi.Size()))
		}
		files.ServeHTTP(w, req)
	}))
	defer host.Close()
	target, _ := url.Parse(host.URL)
	proxy := httputil.NewSingleHostReverseProxy(target)
	var requests, sent atomic.Int64
	var site http.Handler = http.NotFoundHandler()
	if c.page != "" {
		site = pageHandler(c.page)
	}
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if strings.HasPrefix(req.URL.Path, sitePrefix) {
			time.Sleep(c.latency)
			site.ServeHTTP(w, req)
			return
		}
		requests.Add(1)
		if os.Getenv("WEBBENCH_TRACE") != "" {
			fmt.Fprintln(os.Stderr, req.Method, req.URL.Path, req.Header.Get("Range"))
		}
		time.Sleep(c.latency)
		proxy.ServeHTTP(&countingWriter{ResponseWriter: w, n: &sent}, req)
	}))
	defer front.Close()
	wire := func() counts { return counts{requests.Load(), sent.Load()} }

	web, err := storagehttp.New(front.URL+"/", nil)
	if err != nil {
		return r, err
	}
	before := wire()
	start = time.Now()
	ix, err := core.NewLocalIndex(filepath.Base(c.folder(n)), options(web))
	if err != nil {
		return r, err
	}
	set.Query(0, q)
	got, err := ix.QueryItems(ctx, q, "", topK, nil, false)
	if err != nil {
		return r, err
	}
	r.webOpen = time.Since(start)
	r.open = wire().minus(before)
	r.asked, r.equal = 1, boolInt(same(got, want[0]))
	for j := 1; j < c.queries; j++ {
		set.Query(j, q)
		before := wire()
		t := time.Now()
		got, err := ix.QueryItems(ctx, q, "", topK, nil, false)
		if err != nil {
			return r, err
		}
		r.webLater = append(r.webLater, time.Since(t))
		r.later = append(r.later, wire().minus(before))
		r.asked++
		r.equal += boolInt(same(got, want[j]))
	}
	if c.page == "" {
		return r, nil
	}
	loaded, first, firstWire, later, laterWire, err := inBrowser(ctx, front.URL+sitePrefix+"web.html", filepath.Base(c.folder(n)), c.queries, wire)
	if err != nil {
		return r, fmt.Errorf("in the browser: %w", err)
	}
	r.pageLoad, r.pageOpen, r.pageOpenWire, r.pageLaterWire = loaded, msDuration(first.Ms), firstWire, laterWire
	r.pageEqual = boolInt(slices.Equal(first.IDs, ids(want[0])))
	for j, a := range later {
		r.pageLater = append(r.pageLater, msDuration(a.Ms))
		r.pageEqual += boolInt(slices.Equal(a.IDs, ids(want[j+1])))
	}
	return r, nil
}

// ids are the items' ids of an answer.
func ids(res []core.QueryResult) []string {
	out := make([]string, len(res))
	for i, r := range res {
		out[i] = r.Item.ID
	}
	return out
}

func msDuration(ms float64) time.Duration { return time.Duration(ms * float64(time.Millisecond)) }

// countingWriter counts the body bytes written through it.
type countingWriter struct {
	http.ResponseWriter
	n *atomic.Int64
}

func (w *countingWriter) Write(b []byte) (int, error) {
	w.n.Add(int64(len(b)))
	return w.ResponseWriter.Write(b)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// same reports whether two answers hold the same items, scores and order.
func same(a, b []core.QueryResult) bool {
	return slices.EqualFunc(a, b, func(x, y core.QueryResult) bool { return x.Item.ID == y.Item.ID && x.Score == y.Score })
}

func median[T int64 | time.Duration](xs []T) T {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

func (r result) print(n int) {
	reqs, bytes := make([]int64, len(r.later)), make([]int64, len(r.later))
	for i, c := range r.later {
		reqs[i], bytes[i] = c.requests, c.bytes
	}
	fmt.Printf("%d rows (%d partitions, %.1f probed a query)\n", n, r.partitions, r.probes)
	fmt.Printf("  local folder: open + first answer %v; later queries p50 %.2f ms\n", r.localOpen.Round(time.Millisecond), ms(median(r.localLater)))
	fmt.Printf("  over HTTP:    open + first answer %v, %d requests, %s; later queries p50 %.0f ms (max %.0f ms), %d requests, %s (max %s); answers equal to the local index's: %d of %d\n",
		r.webOpen.Round(time.Millisecond), r.open.requests, size(r.open.bytes), ms(median(r.webLater)), ms(slices.Max(r.webLater)),
		median(reqs), size(median(bytes)), size(slices.Max(bytes)), r.equal, r.asked)
	if r.pageLater == nil {
		return
	}
	for i, c := range r.pageLaterWire {
		reqs[i], bytes[i] = c.requests, c.bytes
	}
	fmt.Printf("  in Chromium:  package loaded in %v; open + first answer %v, %d requests, %s; later queries p50 %.0f ms (max %.0f ms), %d requests, %s (max %s); answers with the local index's items: %d of %d\n",
		r.pageLoad.Round(time.Millisecond), r.pageOpen.Round(time.Millisecond), r.pageOpenWire.requests, size(r.pageOpenWire.bytes),
		ms(median(r.pageLater)), ms(slices.Max(r.pageLater)), median(reqs), size(median(bytes)), size(slices.Max(bytes)), r.pageEqual, r.asked)
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

func size(b int64) string {
	switch {
	case b >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(b)/(1<<20))
	default:
		return fmt.Sprintf("%.0f KB", float64(b)/(1<<10))
	}
}
