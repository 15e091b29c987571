//go:build js && wasm

package fetchbrowser_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/foliovec/folio/adapters/fetch-browser"
	"github.com/foliovec/folio/conformance/fetchtest"
	"github.com/foliovec/folio/core"
)

// server is the fixture server's URL; TestInBrowser starts it.
func server(t testing.TB) string {
	t.Helper()
	u := os.Getenv("FOLIO_FETCH_SERVER")
	if u == "" {
		t.Fatal("FOLIO_FETCH_SERVER is not set: run these tests through TestInBrowser")
	}
	return u
}

// publish stores body on the fixture server as a page of contentType and
// returns its URL.
func publish(t testing.TB, contentType, body string) string {
	t.Helper()
	base := server(t)
	resp, err := http.Post(base+"/publish?type="+url.QueryEscape(contentType), "text/plain", strings.NewReader(body))
	if err != nil {
		t.Fatalf("publish: %v", err)
	}
	defer resp.Body.Close()
	p, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("publish: %s %q %v", resp.Status, p, err)
	}
	return base + string(p)
}

func TestConformance(t *testing.T) {
	fetchtest.Run(t, func(t testing.TB) fetchtest.Harness {
		base := server(t)
		return fetchtest.Harness{
			Fetcher: fetchbrowser.New(nil),
			Publish: func(t testing.TB, texts []string) (string, []fetchtest.Document) {
				uri := publish(t, "text/plain; charset=utf-8", texts[0])
				return uri, []fetchtest.Document{{URI: uri, Text: texts[0]}}
			},
			Unreadable: func(testing.TB) []string {
				return []string{base + "/missing", base + "/image", base + "/hangup", "ftp://127.0.0.1/x", "http://[::1"}
			},
		}
	}, fetchtest.Capabilities{})
}

// fetchOne fetches uri with f and returns what it reported.
func fetchOne(ctx context.Context, f *fetchbrowser.BrowserWebFetcher, uri string) (text, docType string, err error) {
	_, err = f.Fetch(ctx, uri, func(_ context.Context, _, tx, dt string) (bool, error) {
		text, docType = tx, dt
		return true, nil
	})
	return text, docType, err
}

func TestContentTypes(t *testing.T) {
	ctx := t.Context()
	f := fetchbrowser.New(nil)
	tests := []struct {
		name, contentType, body, wantText, wantDocType string
	}{
		{"text/plain has no docType", "text/plain", "plain", "plain", ""},
		{"markdown is md", "text/markdown; charset=utf-8", "# md", "# md", "md"},
		{"text/xml is xml", "text/xml", "<a/>", "<a/>", "xml"},
		{"application/xml is xml", "application/xml", "<b/>", "<b/>", "xml"},
		{"json is json", "application/json", `{"a":1}`, `{"a":1}`, "json"},
		{"javascript is js", "application/javascript", "x()", "x()", "js"},
		{"the media type is trimmed and lowercased", " Text/HTML ; charset=utf-8", "<h1>T</h1>", "# T", "md"},
		{"a media type containing an accepted one is accepted, as in Vectra", "application/json-seq", "[]", "[]", "json"},
		{"html becomes markdown with links made absolute", "text/html", `<p>see <a href="other.html">other</a></p>`, "see\n[other](" + server(t) + "/page/other.html)", "md"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			uri := publish(t, tt.contentType, tt.body)
			text, docType, err := fetchOne(ctx, f, uri)
			if err != nil || text != tt.wantText || docType != tt.wantDocType {
				t.Errorf("Fetch = %q, %q, %v; want %q, %q", text, docType, err, tt.wantText, tt.wantDocType)
			}
		})
	}
	t.Run("KeepHTML reports html as it is", func(t *testing.T) {
		uri := publish(t, "text/html", "<h1>T</h1>")
		text, docType, err := fetchOne(ctx, fetchbrowser.New(&fetchbrowser.Options{KeepHTML: true}), uri)
		if err != nil || text != "<h1>T</h1>" || docType != "html" {
			t.Errorf("Fetch = %q, %q, %v; want the html with docType html", text, docType, err)
		}
	})
	t.Run("a missing Content-Type is text/plain", func(t *testing.T) {
		text, docType, err := fetchOne(ctx, f, server(t)+"/untyped")
		if err != nil || text != "no type" || docType != "" {
			t.Errorf("Fetch = %q, %q, %v", text, docType, err)
		}
	})
	t.Run("the declared charset decodes the body", func(t *testing.T) {
		text, _, err := fetchOne(ctx, f, server(t)+"/latin1")
		if err != nil || text != "café" {
			t.Errorf("Fetch = %q, %v; want café", text, err)
		}
	})
	t.Run("an unsupported type is ErrContentType", func(t *testing.T) {
		_, _, err := fetchOne(ctx, f, server(t)+"/image")
		if !errors.Is(err, fetchbrowser.ErrContentType) || !strings.Contains(err.Error(), "image/png") {
			t.Errorf("Fetch of an image = %v, want ErrContentType naming image/png", err)
		}
	})
}

func TestHTTPStatus(t *testing.T) {
	_, _, err := fetchOne(t.Context(), fetchbrowser.New(nil), server(t)+"/missing")
	var se *fetchbrowser.HTTPStatusError
	if !errors.As(err, &se) || se.StatusCode != 404 || !errors.Is(err, fetchbrowser.ErrHTTPStatus) ||
		!strings.Contains(err.Error(), "HTTP 404: Not Found") {
		t.Errorf("Fetch of a missing page = %v, want an *HTTPStatusError saying HTTP 404: Not Found", err)
	}
}

func TestHeadersAreSent(t *testing.T) {
	headers := map[string]string{"X-Folio-Test": "sent"}
	f := fetchbrowser.New(&fetchbrowser.Options{Headers: headers})
	headers["X-Folio-Test"] = "changed after New"
	text, _, err := fetchOne(t.Context(), f, server(t)+"/headers")
	if err != nil || text != "sent" {
		t.Errorf("server saw X-Folio-Test %q (err %v), want the header given to New", text, err)
	}
}

func TestRequestMode(t *testing.T) {
	// same-origin mode refuses a cross-origin page, as the browser does.
	f := fetchbrowser.New(&fetchbrowser.Options{Mode: "same-origin"})
	if _, _, err := fetchOne(t.Context(), f, publish(t, "text/plain", "x")); err == nil {
		t.Error("Fetch of a cross-origin page in same-origin mode succeeded, want the browser's refusal")
	}
}

func TestBodyCap(t *testing.T) {
	f := fetchbrowser.New(&fetchbrowser.Options{MaxBodyBytes: 1 << 20})
	if _, _, err := fetchOne(t.Context(), f, server(t)+"/big"); !errors.Is(err, fetchbrowser.ErrBodyTooLarge) {
		t.Errorf("Fetch of 3 MiB with a 1 MiB cap = %v, want ErrBodyTooLarge", err)
	}
}

func TestContextAbortsTheRequest(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, _, err := fetchOne(ctx, fetchbrowser.New(nil), server(t)+"/slow")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Fetch of a page that never answers = %v, want context.DeadlineExceeded", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("Fetch returned after %s, long after its deadline", d)
	}
}

func TestSchemes(t *testing.T) {
	_, _, err := fetchOne(t.Context(), fetchbrowser.New(nil), "file:///etc/passwd")
	if !errors.Is(err, core.ErrInvalidArgument) {
		t.Errorf("Fetch of a file: uri = %v, want core.ErrInvalidArgument", err)
	}
}
