//go:build !(js && wasm)

package main

import (
	"os"
	"slices"
	"testing"
)

type scenarioResult struct {
	Documents int
	Listed    []string
	Answers   []struct {
		Query  string
		IsBm25 bool
		Docs   []struct {
			URI      string
			Score    float64
			Sections []string
			Chunks   []struct {
				StartPos, EndPos int
				Score            float64
				IsBm25           bool
			}
		}
	}
}

// TestScenarioAsVectra runs one page module against Vectra 0.15's browser
// build and against Folio's package, in headless Chromium, with only the
// import differing: a document index in IndexedDB, three documents
// embedded by a JavaScript object, queries with and without BM25, rendered
// sections, then a reload and the same queries. Both libraries give the
// same documents in the same order with the same sections, and the reload
// changes nothing; Folio's module also opens the index Vectra's build
// wrote and answers as Vectra did.
func TestScenarioAsVectra(t *testing.T) {
	if os.Getenv("FOLIO_VECTRA_BROWSER_BUNDLE") == "" {
		t.Skip("FOLIO_VECTRA_BROWSER_BUNDLE is not set (make test builds Vectra's browser bundle and sets it)")
	}
	s := newSite(t, nil)
	ctx := newBrowser(t)
	run := func(lib, phase, db string, layout ...string) scenarioResult {
		var r scenarioResult
		params := map[string]string{"test": "scenario", "lib": lib, "db": db, "phase": phase}
		if len(layout) > 0 {
			params["layout"] = layout[0]
		}
		s.runPage(t, ctx, params, &r)
		return r
	}
	vectra, folio := run("vectra", "1", "vectra-db"), run("folio", "1", "folio-db")
	vectraAgain, folioAgain := run("vectra", "2", "vectra-db"), run("folio", "2", "folio-db")
	// Folio's module opens the index Vectra's build wrote in IndexedDB.
	folioOnVectra := run("folio", "2", "vectra-db")

	if folio.Documents != 3 || !slices.Equal(folio.Listed, []string{"rivers.md", "stars.md", "tides.md"}) {
		t.Errorf("Folio holds %d documents %v, want the three", folio.Documents, folio.Listed)
	}
	sameAnswers(t, "Folio against Vectra", vectra, folio, false)
	sameAnswers(t, "Vectra after the reload", vectra, vectraAgain, true)
	sameAnswers(t, "Folio after the reload", folio, folioAgain, true)
	sameAnswers(t, "Folio on the index Vectra wrote", vectra, folioOnVectra, false)
	// The segmented layout in IndexedDB answers as the file layout does,
	// before and after a reload.
	segmented := run("folio", "1", "folio-segmented-db", "segmented")
	segmentedAgain := run("folio", "2", "folio-segmented-db")
	sameAnswers(t, "Folio on the segmented layout", folio, segmented, true)
	sameAnswers(t, "Folio on the segmented layout after the reload", folio, segmentedAgain, true)
	for _, a := range folio.Answers {
		if len(a.Docs) == 0 {
			t.Errorf("query %q (bm25 %v) found nothing", a.Query, a.IsBm25)
		}
	}
}

// sameAnswers compares two runs' answers: the same documents in the same
// order with the same rendered sections, and, for two runs of one library,
// the same scores. Between the libraries scores differ: Folio merges a
// piece under 16 tokens (such as a lone heading) into its neighbour where
// Vectra leaves it a chunk of its own, so the chunks averaged differ.
func sameAnswers(t *testing.T, what string, want, got scenarioResult, sameScores bool) {
	t.Helper()
	if got.Documents != want.Documents || !slices.Equal(got.Listed, want.Listed) {
		t.Errorf("%s: documents %d %v, want %d %v", what, got.Documents, got.Listed, want.Documents, want.Listed)
	}
	if len(got.Answers) != len(want.Answers) {
		t.Fatalf("%s: %d answers, want %d", what, len(got.Answers), len(want.Answers))
	}
	for i, w := range want.Answers {
		g := got.Answers[i]
		var wu, gu []string
		for _, d := range w.Docs {
			wu = append(wu, d.URI)
		}
		for _, d := range g.Docs {
			gu = append(gu, d.URI)
		}
		if !slices.Equal(gu, wu) {
			t.Errorf("%s: query %q (bm25 %v): documents %v, want %v", what, w.Query, w.IsBm25, gu, wu)
			continue
		}
		for j, wd := range w.Docs {
			gd := g.Docs[j]
			if sameScores && gd.Score != wd.Score {
				t.Errorf("%s: query %q: %s scores %v, want %v\nchunks %+v\nwant %+v", what, w.Query, wd.URI, gd.Score, wd.Score, gd.Chunks, wd.Chunks)
			}
			if !slices.Equal(gd.Sections, wd.Sections) {
				t.Errorf("%s: query %q: %s sections\n%q\nwant\n%q", what, w.Query, wd.URI, gd.Sections, wd.Sections)
			}
		}
	}
}
