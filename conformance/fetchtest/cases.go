package fetchtest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

// cases are the suite's rules, in the order they run.
func cases() []testCase {
	return []testCase{
		rule("every document is reported once with its uri, text and docType", reportsEachOnce),
		rule("reported text is valid UTF-8", validUTF8),
		rule("false from the callback stops the walk and Fetch returns false", falseStops),
		rule("the callback's error stops the walk and is returned", callbackError),
		rule("a cancelled context fails Fetch with its error", cancelledBefore),
		rule("cancelling during a walk stops it", cancelledDuring),
		rule("the callback's context carries Fetch's values", contextValues),
		rule("unreadable input is an error", unreadable),
		rule("concurrent fetches on one fetcher are safe", concurrent),
	}
}

// sampleTexts are the texts the cases publish: plain, multi-line with
// Windows line ends and tabs, non-ASCII, and empty.
var sampleTexts = []string{
	"The quick brown fox jumps over the lazy dog.",
	"line one\r\nline two\n\n\tindented line\n",
	"Unicode: é ü ß 日本語 🙂 — “quotes”",
	"",
}

// call is one callback the fetcher made.
type call struct {
	Document
	ctx context.Context
}

// recorder collects a fetch's callbacks.
type recorder struct {
	mu    sync.Mutex
	calls []call
}

func (r *recorder) add(ctx context.Context, uri, text, docType string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, call{Document{URI: uri, Text: text, DocType: docType}, ctx})
	return len(r.calls)
}

func (r *recorder) docs() []Document {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]Document, len(r.calls))
	for i, c := range r.calls {
		out[i] = c.Document
	}
	return out
}

// fetchAll fetches uri with a callback that records every document and
// returns true.
func fetchAll(ctx context.Context, h Harness, uri string) ([]Document, bool, error) {
	var rec recorder
	ok, err := h.Fetcher.Fetch(ctx, uri, func(ctx context.Context, uri, text, docType string) (bool, error) {
		rec.add(ctx, uri, text, docType)
		return true, nil
	})
	return rec.docs(), ok, err
}

// publish publishes texts, all under one uri when the fetcher claims
// Collections, else one uri per text; it returns the uris with what each
// must report.
func publish(t testing.TB, h Harness, caps Capabilities, texts []string) (uris []string, wants [][]Document) {
	t.Helper()
	if caps.Collections {
		uri, want := h.Publish(t, texts)
		return []string{uri}, [][]Document{want}
	}
	for _, text := range texts {
		uri, want := h.Publish(t, []string{text})
		uris = append(uris, uri)
		wants = append(wants, want)
	}
	return uris, wants
}

func reportsEachOnce(ctx context.Context, t testing.TB, newHarness func(testing.TB) Harness, caps Capabilities) {
	h := newHarness(t)
	uris, wants := publish(t, h, caps, sampleTexts)
	for i, uri := range uris {
		got, ok, err := fetchAll(ctx, h, uri)
		if err != nil {
			t.Errorf("Fetch(%q): %v", uri, err)
			continue
		}
		if !ok {
			t.Errorf("Fetch(%q) = false, though every callback returned true", uri)
		}
		if msg := compareDocs(got, wants[i], caps.Ordered); msg != "" {
			t.Errorf("Fetch(%q): %s", uri, msg)
		}
	}
}

func validUTF8(ctx context.Context, t testing.TB, newHarness func(testing.TB) Harness, caps Capabilities) {
	h := newHarness(t)
	texts := []string{"invalid \xff\xfe bytes, a cut rune \xe6\x97 and a lone \xc3( end"}
	uris, wants := publish(t, h, caps, texts)
	for i, uri := range uris {
		got, _, err := fetchAll(ctx, h, uri)
		if err != nil {
			t.Errorf("Fetch(%q): %v", uri, err)
			continue
		}
		for _, d := range got {
			if !utf8.ValidString(d.Text) {
				t.Errorf("Fetch(%q): text of %q is not valid UTF-8: %q", uri, d.URI, d.Text)
			}
		}
		if msg := compareDocs(got, wants[i], caps.Ordered); msg != "" {
			t.Errorf("Fetch(%q): %s", uri, msg)
		}
	}
}

// stopAfter is how many callbacks the stopping cases allow: the second
// document of a collection, the only one otherwise.
func stopAfter(caps Capabilities) int {
	if caps.Collections {
		return 2
	}
	return 1
}

// stoppingTexts are published by the cases that stop a walk: enough for a
// walk to have documents left after the stop.
var stoppingTexts = []string{"one", "two", "three", "four", "five"}

func falseStops(ctx context.Context, t testing.TB, newHarness func(testing.TB) Harness, caps Capabilities) {
	h := newHarness(t)
	uris, _ := publish(t, h, caps, stoppingTexts)
	stop := stopAfter(caps)
	var rec recorder
	ok, err := h.Fetcher.Fetch(ctx, uris[0], func(ctx context.Context, uri, text, docType string) (bool, error) {
		return rec.add(ctx, uri, text, docType) < stop, nil
	})
	if err != nil {
		t.Errorf("Fetch returned %v after a callback returned false; want a nil error", err)
	}
	if ok {
		t.Errorf("Fetch returned true after a callback returned false")
	}
	if n := len(rec.docs()); n != stop {
		t.Errorf("the callback was called %d times; want %d (the walk goes on after false)", n, stop)
	}
}

// errCallback is the error the callbacks of callbackError return.
var errCallback = errors.New("fetchtest: the callback failed")

func callbackError(ctx context.Context, t testing.TB, newHarness func(testing.TB) Harness, caps Capabilities) {
	h := newHarness(t)
	uris, _ := publish(t, h, caps, stoppingTexts)
	stop := stopAfter(caps)
	var rec recorder
	_, err := h.Fetcher.Fetch(ctx, uris[0], func(ctx context.Context, uri, text, docType string) (bool, error) {
		if rec.add(ctx, uri, text, docType) == stop {
			return false, fmt.Errorf("wrapped: %w", errCallback)
		}
		return true, nil
	})
	if !errors.Is(err, errCallback) {
		t.Errorf("Fetch returned %v; want the callback's error", err)
	}
	if n := len(rec.docs()); n != stop {
		t.Errorf("the callback was called %d times; want %d (the walk goes on after an error)", n, stop)
	}
}

func cancelledBefore(ctx context.Context, t testing.TB, newHarness func(testing.TB) Harness, caps Capabilities) {
	h := newHarness(t)
	uris, _ := publish(t, h, caps, stoppingTexts[:1])
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	got, _, err := fetchAll(cctx, h, uris[0])
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Fetch with a cancelled context returned %v; want context.Canceled", err)
	}
	if len(got) != 0 {
		t.Errorf("Fetch with a cancelled context called back %d times", len(got))
	}
}

func cancelledDuring(ctx context.Context, t testing.TB, newHarness func(testing.TB) Harness, caps Capabilities) {
	if !caps.Collections {
		t.Skip("a walk needs Collections")
	}
	h := newHarness(t)
	uris, _ := publish(t, h, caps, stoppingTexts)
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var rec recorder
	_, err := h.Fetcher.Fetch(cctx, uris[0], func(ctx context.Context, uri, text, docType string) (bool, error) {
		rec.add(ctx, uri, text, docType)
		cancel()
		return true, nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Fetch cancelled during the walk returned %v; want context.Canceled", err)
	}
	if n := len(rec.docs()); n != 1 {
		t.Errorf("the callback was called %d times; want 1 (the walk goes on after cancellation)", n)
	}
}

// ctxKey is the key of the value contextValues sets.
type ctxKey struct{}

func contextValues(ctx context.Context, t testing.TB, newHarness func(testing.TB) Harness, caps Capabilities) {
	h := newHarness(t)
	uris, _ := publish(t, h, caps, stoppingTexts[:1])
	var rec recorder
	vctx := context.WithValue(ctx, ctxKey{}, "marker")
	if _, err := h.Fetcher.Fetch(vctx, uris[0], func(ctx context.Context, uri, text, docType string) (bool, error) {
		rec.add(ctx, uri, text, docType)
		return true, nil
	}); err != nil {
		t.Fatalf("Fetch: %v", err)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.calls) == 0 {
		t.Fatalf("Fetch made no callback")
	}
	for _, c := range rec.calls {
		if c.ctx == nil || c.ctx.Value(ctxKey{}) != "marker" {
			t.Errorf("the callback for %q got a context without Fetch's values", c.URI)
		}
	}
}

func unreadable(ctx context.Context, t testing.TB, newHarness func(testing.TB) Harness, caps Capabilities) {
	h := newHarness(t)
	if h.Unreadable == nil {
		t.Skip("the harness has no unreadable input")
	}
	for _, uri := range h.Unreadable(t) {
		got, ok, err := fetchAll(ctx, h, uri)
		if err == nil {
			t.Errorf("Fetch(%q) of unreadable input = %v, nil; want an error", uri, ok)
		}
		if len(got) != 0 {
			t.Errorf("Fetch(%q) of unreadable input called back %d times", uri, len(got))
		}
	}
}

func concurrent(ctx context.Context, t testing.TB, newHarness func(testing.TB) Harness, caps Capabilities) {
	h := newHarness(t)
	var uris []string
	var wants [][]Document
	for i := range 4 {
		texts := []string{fmt.Sprintf("source %d, first", i), fmt.Sprintf("source %d, second", i)}
		if !caps.Collections {
			texts = texts[:1]
		}
		u, w := publish(t, h, caps, texts)
		uris = append(uris, u...)
		wants = append(wants, w...)
	}
	const rounds = 4
	var wg sync.WaitGroup
	for r := range rounds {
		for i, uri := range uris {
			wg.Go(func() {
				got, _, err := fetchAll(ctx, h, uri)
				if err != nil {
					t.Errorf("round %d: Fetch(%q): %v", r, uri, err)
					return
				}
				if msg := compareDocs(got, wants[i], caps.Ordered); msg != "" {
					t.Errorf("round %d: Fetch(%q): %s", r, uri, msg)
				}
			})
		}
	}
	wg.Wait()
}

// compareDocs says how got differs from want, or "" when it does not.
// Texts are compared with invalid UTF-8 and U+FFFD left out, so a
// fetcher's replacement of invalid bytes (one U+FFFD per byte or per run)
// is not a difference.
func compareDocs(got, want []Document, ordered bool) string {
	norm := func(docs []Document) []Document {
		out := make([]Document, len(docs))
		for i, d := range docs {
			d.Text = strings.ReplaceAll(strings.ToValidUTF8(d.Text, ""), "\uFFFD", "")
			out[i] = d
		}
		return out
	}
	g, w := norm(got), norm(want)
	var msgs []string
	seen := make(map[string]int, len(g))
	for _, d := range g {
		seen[d.URI]++
		if seen[d.URI] == 2 {
			msgs = append(msgs, fmt.Sprintf("%q reported more than once", d.URI))
		}
	}
	byURI := make(map[string]Document, len(g))
	for _, d := range g {
		byURI[d.URI] = d
	}
	for _, d := range w {
		gd, ok := byURI[d.URI]
		switch {
		case !ok:
			msgs = append(msgs, fmt.Sprintf("%q not reported", d.URI))
		case gd.Text != d.Text:
			msgs = append(msgs, fmt.Sprintf("%q: text %q, want %q", d.URI, gd.Text, d.Text))
		case gd.DocType != d.DocType:
			msgs = append(msgs, fmt.Sprintf("%q: docType %q, want %q", d.URI, gd.DocType, d.DocType))
		}
		delete(byURI, d.URI)
	}
	for uri := range byURI {
		msgs = append(msgs, fmt.Sprintf("%q reported but never published", uri))
	}
	if ordered && len(msgs) == 0 {
		for i := range g {
			if g[i].URI != w[i].URI {
				msgs = append(msgs, fmt.Sprintf("reported in the order %v, want %v", uriList(g), uriList(w)))
				break
			}
		}
	}
	return strings.Join(msgs, "; ")
}

func uriList(docs []Document) []string {
	out := make([]string, len(docs))
	for i, d := range docs {
		out[i] = d.URI
	}
	return out
}
