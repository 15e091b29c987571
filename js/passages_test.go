//go:build !(js && wasm)

package main

import (
	"slices"
	"strings"
	"testing"
)

// TestPassagesInThePage runs testdata/passages.js in Chromium: Folio's
// own query options and rendering through the JavaScript package, as the
// library and the folio command have them. A query with fusion "rrf" is
// ranked by rank fusion (scores of about 1/60), render shows the passage
// from the heading above what matched, cut at line boundaries, scored as
// its document, and render with vectraSections is renderSections.
func TestPassagesInThePage(t *testing.T) {
	s := newSite(t, nil)
	ctx := newBrowser(t)
	var r struct {
		FusedURIs, DefaultURIs     []string
		FusedScores, DefaultScores []float64
		VectorScore, PassageScore  float64
		Passage, BadFusion         string
		PassageTokens              int
		SameAsVectra               bool
	}
	s.runPage(t, ctx, map[string]string{"test": "passages", "lib": "folio"}, &r)
	if len(r.FusedURIs) == 0 || r.FusedURIs[0] != "guide.md" || r.FusedScores[0] <= 0 || r.FusedScores[0] > 2.0/61 {
		t.Errorf("fused query: %v scored %v, want guide.md first with a fused score (at most 2/61)", r.FusedURIs, r.FusedScores)
	}
	if r.VectorScore <= 2.0/61 {
		t.Errorf("a query with isBm25 false scored %v, want a cosine score (Vectra's vector search)", r.VectorScore)
	}
	if !slices.Equal(r.DefaultURIs, r.FusedURIs) || !slices.Equal(r.DefaultScores, r.FusedScores) {
		t.Errorf("a query without options: %v scored %v, want fusion's %v %v (the folio command's default)", r.DefaultURIs, r.DefaultScores, r.FusedURIs, r.FusedScores)
	}
	if !strings.HasPrefix(r.Passage, "## Running tests\n") || !strings.Contains(r.Passage, "    go test -race ./...") || r.PassageScore != r.FusedScores[0] || r.PassageTokens > 40 {
		t.Errorf("passage (score %v, %d tokens):\n%s\nwant the section from its heading, holding the command, scored %v, at most 40 tokens", r.PassageScore, r.PassageTokens, r.Passage, r.FusedScores[0])
	}
	if !r.SameAsVectra {
		t.Error("render({vectraSections: true}) differs from renderSections")
	}
	if !strings.Contains(r.BadFusion, "borda") {
		t.Errorf("fusion \"borda\": %q, want a rejection naming it", r.BadFusion)
	}
}
