//go:build !(js && wasm)

package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestJavaScriptPorts runs testdata/ports.js in Chromium: a FileStorage,
// embeddings models and a tokenizer written in JavaScript, given to
// Folio's classes as a page gives them to Vectra's.
func TestJavaScriptPorts(t *testing.T) {
	s := newSite(t, nil)
	ctx := newBrowser(t)
	var r struct {
		Hits, StoredFiles, StoredItems, AfterFailedWrite, Reopened []string
		StorageCalls                                               int
		FailedWrite, Rejected, Thrown, ErrorStatus, RejectedString string
		QueryRejected, RenderRejected, BadVector, BadFilter        string
		DocumentsAfter, StillAnswers                               []string
		Vectors                                                    []any
		MetadataVector                                             float64
		Together, AfterTogether                                    int
		TopKs                                                      []int
	}
	s.runPage(t, ctx, map[string]string{"test": "ports", "lib": "folio"}, &r)

	if !slices.Equal(r.Hits, []string{"a", "b"}) {
		t.Errorf("queryItems on a JavaScript storage = %v, want [a b]", r.Hits)
	}
	if got := fmt.Sprint(r.Vectors); got != "[[1 0 0] [0 1 0.5] [3 3]]" || r.MetadataVector != 7 {
		t.Errorf("vectors from queryItems, getItem and listItems: %s, metadata.vector %v; want [[1 0 0] [0 1 0.5] [3 3]] and 7", got, r.MetadataVector)
	}
	if !slices.Equal(r.TopKs, []int{2, 0}) {
		t.Errorf("queryItems with topK 1.5 and undefined gave %v results, want [2 0] as Vectra", r.TopKs)
	}
	if r.Together != 40 || r.AfterTogether != 22 {
		t.Errorf("40 calls at once: %d fulfilled, %d items after; want 40 and 22", r.Together, r.AfterTogether)
	}
	if !slices.Contains(r.StoredFiles, "items/index.json") || !slices.Equal(r.StoredItems, []string{"a", "b"}) || r.StorageCalls == 0 {
		t.Errorf("the JavaScript storage holds %v with items %v after %d calls, want items/index.json with a and b",
			r.StoredFiles, r.StoredItems, r.StorageCalls)
	}
	for _, c := range []struct{ what, got, want string }{
		{"a write the storage rejects", r.FailedWrite, "disk full (quota)"},
		{"createEmbeddings rejecting", r.Rejected, "quota exceeded for key sk-test"},
		{"createEmbeddings throwing", r.Thrown, "inputs is not iterable"},
		{"createEmbeddings answering rate_limited", r.ErrorStatus, "slow down"},
		{"createEmbeddings rejecting with a string", r.RejectedString, "plain string"},
		{"a query whose embeddings reject", r.QueryRejected, "offline"},
		{"decode throwing during a render", r.RenderRejected, "decode exploded"},
		{"a vector that is a string", r.BadVector, "vector"},
		{"an unknown filter operator", r.BadFilter, "$regex"},
	} {
		if c.got == "resolved" || !strings.Contains(c.got, c.want) {
			t.Errorf("%s: the Promise gave %q, want a rejection whose message has %q", c.what, c.got, c.want)
		}
	}
	if !slices.Equal(r.AfterFailedWrite, []string{"a", "b"}) || !slices.Equal(r.Reopened, []string{"a", "b"}) {
		t.Errorf("after the failed write the index lists %v, reopened %v; want [a b] in both", r.AfterFailedWrite, r.Reopened)
	}
	if !slices.Equal(r.DocumentsAfter, []string{"one.txt"}) {
		t.Errorf("after the failed upserts the documents are %v, want [one.txt]", r.DocumentsAfter)
	}
	if !slices.Equal(r.StillAnswers, []string{"one.txt"}) {
		t.Errorf("after the render failed, a query answers %v, want [one.txt]", r.StillAnswers)
	}
}
