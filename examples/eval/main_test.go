package main

import (
	"bytes"
	"strings"
	"testing"
)

// The ranking folio query uses by default is, on every corpus and measure
// make eval prints, the best of the rankings or within 0.02 of it, under the
// chunking folio add uses by default; and the passages it shows hold the
// answer more often than Vectra's sections on the same budget.
func TestDefaultRankingIsTheBest(t *testing.T) {
	c := config{dims: 384, chunkSize: 256, tokens: 400}
	rows, err := evaluate(t.Context(), "../../testdata/eval", c)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	printTable(&out, rows, c)
	t.Log("\n" + out.String())
	corpora := map[string]bool{}
	for _, r := range rows {
		corpora[r.corpus] = true
	}
	if len(corpora) < 2 {
		t.Fatalf("%d corpora, want at least 2 (package docs and source files)", len(corpora))
	}
	for corpus := range corpora {
		var def *row
		best := map[string]float64{}
		for i, r := range rows {
			if r.corpus != corpus || r.chunking != "Folio's" {
				continue
			}
			if r.mode == defaultMode {
				def = &rows[i]
			}
			for name, v := range measures(r) {
				best[name] = max(best[name], v)
			}
		}
		if def == nil {
			t.Fatalf("%s: no %s row", corpus, defaultMode)
		}
		for name, v := range measures(*def) {
			if v < best[name]-0.02 {
				t.Errorf("%s: %s %.3f under the default ranking, best %.3f", corpus, name, v, best[name])
			}
		}
		if def.passage <= def.vectraSection {
			t.Errorf("%s: passages hold the answer %.3f of the time, Vectra's sections %.3f", corpus, def.passage, def.vectraSection)
		}
	}
	if !strings.Contains(out.String(), "hit@3") {
		t.Errorf("the table has no hit@3 column:\n%s", out.String())
	}
}

func measures(r row) map[string]float64 {
	return map[string]float64{"hit@1": r.hit1, "hit@3": r.hit3, "MRR": r.mrr, "passage": r.passage}
}
