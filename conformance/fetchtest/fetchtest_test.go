package fetchtest_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/foliovec/folio/conformance/fetchtest"
	"github.com/foliovec/folio/core"
)

// memFetcher serves documents published in memory under "mem://<n>", each
// collection's documents as "mem://<n>/<k>.txt", in order. Its fields break
// it in the ways the suite must catch.
type memFetcher struct {
	mu      sync.Mutex
	sources map[string][]fetchtest.Document

	duplicate     bool // reports the first document twice
	dropLast      bool // leaves out the last document of a collection
	ignoreFalse   bool // goes on after a callback returns false
	trueAfter     bool // returns true after a callback returned false
	swallowErr    bool // drops the callback's error
	ignoreCtx     bool // never looks at ctx
	passInvalid   bool // passes invalid UTF-8 through
	wrongType     bool // reports docType "text"
	reverse       bool // reports a collection backwards
	bareCtx       bool // calls back with context.Background()
	panicOnBad    bool // panics on unreadable input
	nilOnBad      bool // unreadable input is a silent success
	callbackOnBad bool // calls back with an empty document, then fails
}

var _ core.TextFetcher = (*memFetcher)(nil)

func (f *memFetcher) publish(t testing.TB, texts []string) (string, []fetchtest.Document) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.sources == nil {
		f.sources = make(map[string][]fetchtest.Document)
	}
	uri := fmt.Sprintf("mem://%d", len(f.sources))
	docs := make([]fetchtest.Document, len(texts))
	for i, text := range texts {
		docs[i] = fetchtest.Document{URI: fmt.Sprintf("%s/%d.txt", uri, i), Text: text, DocType: "txt"}
	}
	f.sources[uri] = docs
	return uri, docs
}

func (f *memFetcher) Fetch(ctx context.Context, uri string, onDocument func(ctx context.Context, uri, text, docType string) (bool, error)) (bool, error) {
	if err := ctx.Err(); err != nil && !f.ignoreCtx {
		return false, err
	}
	f.mu.Lock()
	docs, ok := f.sources[uri]
	f.mu.Unlock()
	if !ok {
		switch {
		case f.panicOnBad:
			panic("unknown source " + uri)
		case f.nilOnBad:
			return true, nil
		case f.callbackOnBad:
			_, _ = onDocument(ctx, uri, "", "")
		}
		return false, fmt.Errorf("memFetcher: no source %q", uri)
	}
	docs = append([]fetchtest.Document(nil), docs...)
	if f.duplicate && len(docs) > 0 {
		docs = append(docs[:1], docs...)
	}
	if f.dropLast && len(docs) > 1 {
		docs = docs[:len(docs)-1]
	}
	if f.reverse {
		for i, j := 0, len(docs)-1; i < j; i, j = i+1, j-1 {
			docs[i], docs[j] = docs[j], docs[i]
		}
	}
	result := true
	for _, d := range docs {
		if err := ctx.Err(); err != nil && !f.ignoreCtx {
			return false, err
		}
		text := d.Text
		if !f.passInvalid {
			text = strings.ToValidUTF8(text, "\uFFFD")
		}
		docType := d.DocType
		if f.wrongType {
			docType = "text"
		}
		cbCtx := ctx
		if f.bareCtx {
			cbCtx = context.Background()
		}
		more, err := onDocument(cbCtx, d.URI, text, docType)
		if err != nil && !f.swallowErr {
			return false, err
		}
		if !more {
			if f.ignoreFalse {
				result = false
				continue
			}
			return f.trueAfter, nil
		}
	}
	return result, nil
}

func harness(f *memFetcher) func(testing.TB) fetchtest.Harness {
	return func(testing.TB) fetchtest.Harness {
		return fetchtest.Harness{
			Fetcher:    f,
			Publish:    f.publish,
			Unreadable: func(testing.TB) []string { return []string{"mem://missing"} },
		}
	}
}

func TestMemFetcherConforms(t *testing.T) {
	fetchtest.Run(t, harness(&memFetcher{}), fetchtest.Capabilities{Collections: true, Ordered: true})
}

func TestMemFetcherConformsOneDocumentPerURI(t *testing.T) {
	fetchtest.Run(t, harness(&memFetcher{}), fetchtest.Capabilities{})
}

// TestCheckCatchesBrokenFetchers: each broken fetcher breaks exactly the
// rule named, and Check reports it.
func TestCheckCatchesBrokenFetchers(t *testing.T) {
	full := fetchtest.Capabilities{Collections: true, Ordered: true}
	for _, tc := range []struct {
		name string
		f    *memFetcher
		caps fetchtest.Capabilities
		rule string
	}{
		{"duplicate", &memFetcher{duplicate: true}, full, "reported once"},
		{"drops the last", &memFetcher{dropLast: true}, full, "reported once"},
		{"ignores false", &memFetcher{ignoreFalse: true}, full, "false from the callback"},
		{"true after false", &memFetcher{trueAfter: true}, full, "false from the callback"},
		{"swallows the callback's error", &memFetcher{swallowErr: true}, full, "callback's error"},
		{"ignores ctx", &memFetcher{ignoreCtx: true}, full, "cancelled context"},
		{"ignores ctx in a walk", &memFetcher{ignoreCtx: true}, full, "cancelling during a walk"},
		{"passes invalid UTF-8", &memFetcher{passInvalid: true}, full, "valid UTF-8"},
		{"wrong docType", &memFetcher{wrongType: true}, full, "docType"},
		{"reverse order", &memFetcher{reverse: true}, full, "order"},
		{"bare context", &memFetcher{bareCtx: true}, full, "context carries"},
		{"panics on unreadable", &memFetcher{panicOnBad: true}, full, "panic"},
		{"nil on unreadable", &memFetcher{nilOnBad: true}, full, "unreadable input"},
		{"calls back on unreadable", &memFetcher{callbackOnBad: true}, full, "called back"},
		{"one per uri, ignores false", &memFetcher{trueAfter: true}, fetchtest.Capabilities{}, "false from the callback"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := fetchtest.Check(t.Context(), harness(tc.f), tc.caps)
			if err == nil {
				t.Fatalf("Check found nothing wrong")
			}
			if !strings.Contains(err.Error(), tc.rule) {
				t.Errorf("Check = %v\nwant a violation mentioning %q", err, tc.rule)
			}
		})
	}
}

func TestCheckPassesAConformingFetcher(t *testing.T) {
	if err := fetchtest.Check(t.Context(), harness(&memFetcher{}), fetchtest.Capabilities{Collections: true, Ordered: true}); err != nil {
		t.Fatal(err)
	}
}

func TestCheckStopsOnCancelledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	err := fetchtest.Check(ctx, harness(&memFetcher{}), fetchtest.Capabilities{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Check with a cancelled context = %v", err)
	}
}
