package fetch_test

import (
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/foliovec/folio/adapters/fetch"
	"github.com/foliovec/folio/conformance/fetchtest"
)

// webHarness publishes texts as text/plain pages on a fresh server on
// 127.0.0.1.
func webHarness(t testing.TB) fetchtest.Harness {
	var mu sync.Mutex
	pages := map[string]string{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/missing":
			http.NotFound(w, r)
			return
		case "/image":
			w.Header().Set("Content-Type", "image/png")
			fmt.Fprint(w, "\x89PNG")
			return
		case "/hangup":
			conn, _, _ := w.(http.Hijacker).Hijack()
			conn.Close()
			return
		}
		mu.Lock()
		text, ok := pages[r.URL.Path]
		mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprint(w, text)
	}))
	t.Cleanup(srv.Close)
	return fetchtest.Harness{
		Fetcher: fetch.NewWebFetcher(nil),
		Publish: func(t testing.TB, texts []string) (string, []fetchtest.Document) {
			mu.Lock()
			defer mu.Unlock()
			p := fmt.Sprintf("/page/%d", len(pages))
			pages[p] = texts[0]
			uri := srv.URL + p
			return uri, []fetchtest.Document{{URI: uri, Text: texts[0]}}
		},
		Unreadable: func(testing.TB) []string {
			return []string{srv.URL + "/missing", srv.URL + "/image", srv.URL + "/hangup", "ftp://127.0.0.1/x", "http://[::1"}
		},
	}
}

func TestWebFetcherConforms(t *testing.T) {
	fetchtest.Run(t, webHarness, fetchtest.Capabilities{})
}

// serve starts a server on 127.0.0.1 answering with h.
func serve(t *testing.T, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// page answers with body as contentType.
func page(contentType, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		fmt.Fprint(w, body)
	}
}

// fetchWeb fetches uri with f and returns the one document reported.
func fetchWeb(ctx context.Context, f *fetch.WebFetcher, uri string) (text, docType string, err error) {
	calls := 0
	_, err = f.Fetch(ctx, uri, func(_ context.Context, _, t, d string) (bool, error) {
		calls++
		text, docType = t, d
		return true, nil
	})
	if err == nil && calls != 1 {
		err = fmt.Errorf("%d callbacks", calls)
	}
	return text, docType, err
}

const guidePage = `<!DOCTYPE html>
<html><head><title>Guide</title>
<style>body { color: red }</style>
<script>var tracking = "should vanish";</script>
</head><body>
<script src="/app.js"></script>
<h1>Fruit guide</h1>
<p>Read <a href="/docs/intro.html">the intro</a>, <a href="next.html">the next page</a>
and <a href="https://example.org/about">about</a>.</p>
<hr>
<table>
<thead><tr><th align="left">Fruit</th><th align="right">Count</th><th align="center">Colour</th></tr></thead>
<tbody>
<tr><td>apple</td><td>3</td><td>  deep
   red </td></tr>
<tr><td>pear</td><td>10</td><td>green</td></tr>
</tbody></table>
<ul><li>trees<ul><li>apple</li><li>pear</li></ul></li><li>bushes</li></ul>
<ol><li>pick</li><li>eat</li></ol>
<img src="img/apple.png" alt="an apple">
<style>.late { display: none }</style>
</body></html>`

const guideMarkdown = `# Fruit guide

Read [the intro](%[1]s/docs/intro.html), [the next page](%[1]s/guide/next.html) and [about](https://example.org/about).

---

| Fruit | Count | Colour |
|:--|--:|:-:|
| apple | 3 | deep red |
| pear | 10 | green |

- trees
  
  - apple
  - pear
- bushes

1. pick
2. eat

![an apple](%[1]s/guide/img/apple.png)`

func TestWebFetcherConvertsHTMLToMarkdown(t *testing.T) {
	srv := serve(t, page("text/html; charset=utf-8", guidePage))
	text, docType, err := fetchWeb(t.Context(), fetch.NewWebFetcher(nil), srv.URL+"/guide/index.html")
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf(guideMarkdown, srv.URL); text != want || docType != "md" {
		t.Fatalf("docType %q, markdown:\n%s\nwant:\n%s", docType, text, want)
	}
	if strings.Contains(text, "tracking") || strings.Contains(text, "color") || strings.Contains(text, "display") {
		t.Errorf("script or style text kept: %s", text)
	}
}

func TestWebFetcherKeepHTML(t *testing.T) {
	srv := serve(t, page("text/html", guidePage))
	text, docType, err := fetchWeb(t.Context(), fetch.NewWebFetcher(&fetch.WebOptions{KeepHTML: true}), srv.URL)
	if err != nil || text != guidePage || docType != "html" {
		t.Fatalf("KeepHTML: docType %q, err %v, text changed %v", docType, err, text != guidePage)
	}
}

func TestWebFetcherDropsLeadingRun(t *testing.T) {
	run := strings.Repeat("x", 65)
	for _, tc := range []struct{ body, want string }{
		{"<p>" + run + " kept text</p>", " kept text"},
		{"<p>" + run[:64] + " kept text</p>", run[:64] + " kept text"},
		{"<p>" + strings.Repeat("é", 65) + "</p><p>next line</p>", "\n\nnext line"},
		{"<p>" + run + "</p>", run},
	} {
		srv := serve(t, page("text/html", "<html><body>"+tc.body+"</body></html>"))
		text, _, err := fetchWeb(t.Context(), fetch.NewWebFetcher(nil), srv.URL)
		if err != nil || text != tc.want {
			t.Errorf("%.20q…: got %q, %v; want %q", tc.body, text, err, tc.want)
		}
	}
}

// KeepLeadingText turns Vectra's leading-run rule off.
func TestWebFetcherKeepLeadingText(t *testing.T) {
	run := strings.Repeat("x", 65)
	srv := serve(t, page("text/html", "<html><body><p>"+run+" kept text</p></body></html>"))
	text, _, err := fetchWeb(t.Context(), fetch.NewWebFetcher(&fetch.WebOptions{KeepLeadingText: true}), srv.URL)
	if err != nil || text != run+" kept text" {
		t.Errorf("KeepLeadingText: got %q, %v; want the whole text", text, err)
	}
}

func TestWebFetcherContentTypes(t *testing.T) {
	for _, tc := range []struct {
		header, docType string
	}{
		{"application/json", "json"},
		{"application/xml; charset=utf-8", "xml"},
		{"application/javascript", "javascript"},
		{"text/plain", ""},
		{"  Text/Plain ; charset=UTF-8", ""}, // Vectra refused this
		{"APPLICATION/JSON", "json"},
	} {
		srv := serve(t, page(tc.header, `{"a": 1}`))
		text, docType, err := fetchWeb(t.Context(), fetch.NewWebFetcher(nil), srv.URL)
		if err != nil || text != `{"a": 1}` || docType != tc.docType {
			t.Errorf("%q: got %q, %q, %v; want docType %q", tc.header, text, docType, err, tc.docType)
		}
	}
	for _, header := range []string{"image/png", "text/css", "application/octet-stream", "text/htmlx"} {
		srv := serve(t, page(header, "body"))
		_, _, err := fetchWeb(t.Context(), fetch.NewWebFetcher(nil), srv.URL)
		if !errors.Is(err, fetch.ErrContentType) || !strings.Contains(err.Error(), header) {
			t.Errorf("%q: %v, want ErrContentType naming it", header, err)
		}
	}
}

func TestWebFetcherStatusIsAnError(t *testing.T) {
	for _, status := range []int{400, 404, 500, 503} {
		srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(status)
			fmt.Fprint(w, "<p>error page</p>")
		})
		_, _, err := fetchWeb(t.Context(), fetch.NewWebFetcher(nil), srv.URL)
		var se *fetch.HTTPStatusError
		if !errors.As(err, &se) || se.StatusCode != status || !errors.Is(err, fetch.ErrHTTPStatus) ||
			!strings.Contains(err.Error(), fmt.Sprintf("site returned an HTTP status of %d", status)) {
			t.Errorf("status %d: %v", status, err)
		}
	}
}

func TestWebFetcherDecodesCharsets(t *testing.T) {
	latin1 := "<html><body><p>Caf\xe9 cr\xe8me br\xfbl\xe9e \xa9 2024</p></body></html>"
	want := "Café crème brûlée © 2024"
	for _, tc := range []struct {
		name   string
		header string
		body   string
	}{
		{"header charset", "text/html; charset=ISO-8859-1", latin1},
		{"meta charset", "text/html", strings.Replace(latin1, "<html>", `<html><head><meta charset="iso-8859-1"></head>`, 1)},
		{"meta http-equiv", "text/html", strings.Replace(latin1, "<html>", `<html><head><meta http-equiv="Content-Type" content="text/html; charset=latin1"></head>`, 1)},
		{"utf-8 byte order mark", "text/html", "\xef\xbb\xbf<p>Café crème brûlée © 2024</p>"},
		{"shift_jis", "text/plain; charset=shift_jis", "\x93\xfa\x96\x7b\x8c\xea"},
	} {
		srv := serve(t, page(tc.header, tc.body))
		text, _, err := fetchWeb(t.Context(), fetch.NewWebFetcher(nil), srv.URL)
		w := want
		if tc.name == "shift_jis" {
			w = "日本語"
		}
		if err != nil || text != w {
			t.Errorf("%s: got %q, %v; want %q", tc.name, text, err, w)
		}
	}
}

func TestWebFetcherCapsTheBody(t *testing.T) {
	const size = 100 << 20
	var sent atomic.Int64
	chunk := []byte(strings.Repeat("a", 64<<10))
	handler := func(withLength bool) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain")
			if withLength {
				w.Header().Set("Content-Length", fmt.Sprint(size))
			}
			for n := 0; n < size; n += len(chunk) {
				if _, err := w.Write(chunk); err != nil {
					return
				}
				sent.Add(int64(len(chunk)))
			}
		}
	}
	for _, withLength := range []bool{false, true} {
		sent.Store(0)
		srv := serve(t, handler(withLength))
		_, _, err := fetchWeb(t.Context(), fetch.NewWebFetcher(nil), srv.URL)
		if !errors.Is(err, fetch.ErrBodyTooLarge) {
			t.Errorf("Content-Length %v: %v, want ErrBodyTooLarge", withLength, err)
		}
		srv.Close() // waits for the handler, which stops when the client hangs up
		if n := sent.Load(); n >= size {
			t.Errorf("Content-Length %v: the server sent all %d bytes; the fetcher should hang up at the cap", withLength, n)
		}
	}
	// A smaller cap, and a gzip body over it once decompressed.
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("Content-Encoding", "gzip")
		zw := gzip.NewWriter(w)
		zw.Write([]byte(strings.Repeat("z", 2<<20)))
		zw.Close()
	})
	_, _, err := fetchWeb(t.Context(), fetch.NewWebFetcher(&fetch.WebOptions{MaxBodyBytes: 1 << 20}), srv.URL)
	if !errors.Is(err, fetch.ErrBodyTooLarge) {
		t.Errorf("gzip bomb: %v, want ErrBodyTooLarge", err)
	}
}

func TestWebFetcherDecompressesGzip(t *testing.T) {
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if !strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			t.Errorf("Accept-Encoding %q", r.Header.Get("Accept-Encoding"))
		}
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("Content-Encoding", "gzip")
		zw := gzip.NewWriter(w)
		fmt.Fprint(zw, "compressed text")
		zw.Close()
	})
	text, _, err := fetchWeb(t.Context(), fetch.NewWebFetcher(nil), srv.URL)
	if err != nil || text != "compressed text" {
		t.Fatalf("got %q, %v", text, err)
	}
}

func TestWebFetcherContextEndsASlowServer(t *testing.T) {
	release := make(chan struct{})
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		select { // never answers until the client gives up or the test ends
		case <-r.Context().Done():
		case <-release:
		}
	})
	defer close(release)
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	_, _, err := fetchWeb(ctx, fetch.NewWebFetcher(nil), srv.URL)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v, want context.DeadlineExceeded", err)
	}
}

func TestWebFetcherCapsRedirects(t *testing.T) {
	var hops atomic.Int64
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		hops.Add(1)
		http.Redirect(w, r, "/loop", http.StatusFound)
	})
	_, _, err := fetchWeb(t.Context(), fetch.NewWebFetcher(&fetch.WebOptions{MaxRedirects: 3}), srv.URL+"/loop")
	if !errors.Is(err, fetch.ErrTooManyRedirects) {
		t.Fatalf("redirect loop: %v, want ErrTooManyRedirects", err)
	}
	if n := hops.Load(); n != 4 {
		t.Errorf("%d requests, want 4 (the first and 3 redirects)", n)
	}
	// A redirect within the cap is followed, and links resolve against the
	// final URL.
	target := serve(t, page("text/html", `<p>see <a href="b.html">b</a></p>`))
	hop := serve(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.URL+"/dir/a.html", http.StatusMovedPermanently)
	})
	text, _, err := fetchWeb(t.Context(), fetch.NewWebFetcher(nil), hop.URL)
	if want := "see [b](" + target.URL + "/dir/b.html)"; err != nil || text != want {
		t.Errorf("after a redirect: %q, %v; want %q", text, err, want)
	}
}

func TestWebFetcherHeaders(t *testing.T) {
	var got http.Header
	var host string
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		got, host = r.Header.Clone(), r.Host
		page("text/plain", "ok")(w, r)
	})
	caller := map[string]string{"User-Agent": "folio-test", "X-Extra": "1"}
	before := maps.Clone(caller)
	f := fetch.NewWebFetcher(&fetch.WebOptions{Headers: caller})
	if _, _, err := fetchWeb(t.Context(), f, srv.URL); err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(caller, before) {
		t.Errorf("the caller's headers changed: %v", caller)
	}
	for k, v := range fetch.DefaultHeaders() {
		if k == "User-Agent" {
			v = "folio-test"
		}
		if got.Get(k) != v {
			t.Errorf("header %s = %q, want %q", k, got.Get(k), v)
		}
	}
	if got.Get("X-Extra") != "1" || got.Get("Alt-Used") != "127.0.0.1" || host != "127.0.0.1" {
		t.Errorf("X-Extra %q, Alt-Used %q, Host %q", got.Get("X-Extra"), got.Get("Alt-Used"), host)
	}
}

// serveBench serves body as HTML on 127.0.0.1 for a benchmark and returns
// its URL.
func serveBench(b *testing.B, body string) string {
	srv := httptest.NewServer(page("text/html; charset=utf-8", body))
	b.Cleanup(srv.Close)
	return srv.URL
}

// A server that never answers, or trickles its headers or body a byte at a
// time, cannot stall a Fetch past WebOptions.Timeout, even when the caller's
// ctx has no deadline; the error matches ErrTimeout and
// context.DeadlineExceeded.
func TestWebFetcherTimeout(t *testing.T) {
	stop := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		flusher := w.(http.Flusher)
		switch r.URL.Path {
		case "/silent":
			select {
			case <-stop:
			case <-r.Context().Done():
			}
		case "/slow-headers":
			conn, buf, _ := w.(http.Hijacker).Hijack()
			defer conn.Close()
			for _, b := range []byte("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n") {
				buf.WriteByte(b)
				buf.Flush()
				select {
				case <-stop:
					return
				case <-time.After(100 * time.Millisecond):
				}
			}
		case "/slow-body":
			w.Header().Set("Content-Type", "text/plain")
			for range 1000 {
				fmt.Fprint(w, "a")
				flusher.Flush()
				select {
				case <-stop:
					return
				case <-r.Context().Done():
					return
				case <-time.After(100 * time.Millisecond):
				}
			}
		}
	}))
	defer srv.Close()
	defer close(stop)
	f := fetch.NewWebFetcher(&fetch.WebOptions{Timeout: 300 * time.Millisecond})
	for _, path := range []string{"/silent", "/slow-headers", "/slow-body"} {
		start := time.Now()
		_, err := f.Fetch(context.Background(), srv.URL+path, func(context.Context, string, string, string) (bool, error) {
			t.Errorf("%s: reported a document", path)
			return true, nil
		})
		took := time.Since(start)
		if !errors.Is(err, fetch.ErrTimeout) || !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s: %v, want ErrTimeout and DeadlineExceeded", path, err)
		}
		if took > 5*time.Second {
			t.Errorf("%s: Fetch returned after %v, want about the 300 ms timeout", path, took)
		}
	}
}

// A binary body is not indexed as text, whatever content type it is served
// with; files get the same check (core.LooksBinary).
func TestWebFetcherRefusesBinaryBodies(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("\x7fELF\x02\x01\x01\x00\x00\x00<html>garbage"))
	}))
	defer srv.Close()
	_, err := fetch.NewWebFetcher(nil).Fetch(t.Context(), srv.URL, func(context.Context, string, string, string) (bool, error) {
		t.Error("a binary body was reported as a document")
		return true, nil
	})
	if !errors.Is(err, fetch.ErrBinaryBody) {
		t.Fatalf("binary body: %v, want ErrBinaryBody", err)
	}
}
