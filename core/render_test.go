package core

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/foliovec/folio/core/internal/render"
	"github.com/foliovec/folio/core/internal/testtok"
)

// newTestResult is a result over doc, whose text is already loaded.
func newTestResult(doc string, tok Tokenizer, chunks ...QueryResult) *LocalDocumentResult {
	d := &LocalDocument{tokenizer: tok, id: "id-1", uri: "doc://test", text: render.NewText(doc)}
	return newLocalDocumentResult(d, chunks)
}

// q is a chunk result; bm25 is the isBm25 metadata value, nil for none.
func q(start, end int, score float64, bm25 any) QueryResult {
	md := Metadata{"startPos": float64(start), "endPos": float64(end)}
	if bm25 != nil {
		md["isBm25"] = bm25
	}
	return QueryResult{Item: IndexItem{ID: fmt.Sprintf("c_%d_%d", start, end), Metadata: md, Vector: []float32{}}, Score: score}
}

// slice16 is JavaScript's s.slice(start, end+1) for ASCII s.
func sliceDoc(doc string, start, end int) string { return doc[start : end+1] }

var renderDoc = strings.Repeat("0123456789", 22) // length 220

func mustSections(t *testing.T, r *LocalDocumentResult, maxTokens, maxSections int, overlapping bool) []DocumentTextSection {
	t.Helper()
	s, err := r.RenderSections(context.Background(), maxTokens, maxSections, overlapping)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func mustAllSections(t *testing.T, r *LocalDocumentResult, maxTokens int) []DocumentTextSection {
	t.Helper()
	s, err := r.RenderAllSections(context.Background(), maxTokens)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// Vectra's src/LocalDocumentResult.spec.ts, case by case (one token per
// character, a 220-character document).
func TestLocalDocumentResultVectraSpec(t *testing.T) {
	tok := testtok.Char{}
	doc := renderDoc
	t.Run("score is the mean of the chunk scores", func(t *testing.T) {
		r := newTestResult(doc, tok, q(0, 9, 0.2, nil), q(20, 29, 0.6, nil))
		if !near(r.Score, 0.4) || len(r.Chunks) != 2 {
			t.Fatalf("score %v, %d chunks", r.Score, len(r.Chunks))
		}
	})
	t.Run("one chunk's score passes through", func(t *testing.T) {
		if r := newTestResult(doc, tok, q(5, 15, 0.9, nil)); r.Score != 0.9 {
			t.Fatalf("score %v", r.Score)
		}
	})
	t.Run("no chunks score 0", func(t *testing.T) {
		if r := newTestResult(doc, tok); r.Score != 0 {
			t.Fatalf("score %v", r.Score)
		}
	})

	t.Run("renderAllSections: a small chunk is one identical section", func(t *testing.T) {
		s := mustAllSections(t, newTestResult(doc, tok, q(10, 19, 0.75, nil)), 20)
		want := []DocumentTextSection{{Text: sliceDoc(doc, 10, 19), TokenCount: 10, Score: 0.75}}
		if !slices.Equal(s, want) {
			t.Fatalf("got %+v, want %+v", s, want)
		}
	})
	t.Run("renderAllSections: an oversized chunk is cut into maxTokens parts", func(t *testing.T) {
		s := mustAllSections(t, newTestResult(doc, tok, q(30, 64, 0.5, nil)), 10)
		var got []string
		for _, sec := range s {
			if sec.TokenCount > 10 || sec.Score != 0.5 {
				t.Fatalf("section %+v", sec)
			}
			got = append(got, sec.Text)
		}
		if len(s) != 4 || strings.Join(got, "") != sliceDoc(doc, 30, 64) {
			t.Fatalf("sections %+v", s)
		}
	})
	t.Run("renderAllSections: chunks are packed in document order with the mean score", func(t *testing.T) {
		s := mustAllSections(t, newTestResult(doc, tok, q(80, 84, 0.2, nil), q(70, 74, 0.8, nil)), 15)
		if len(s) != 1 || s[0].Text != sliceDoc(doc, 70, 74)+sliceDoc(doc, 80, 84) || !near(s[0].Score, 0.5) {
			t.Fatalf("sections %+v", s)
		}
	})
	t.Run("renderAllSections: overflow starts a new section", func(t *testing.T) {
		s := mustAllSections(t, newTestResult(doc, tok, q(10, 15, 0.2, false), q(20, 25, 0.8, false)), 10)
		want := []DocumentTextSection{
			{Text: sliceDoc(doc, 10, 15), TokenCount: 6, Score: 0.2},
			{Text: sliceDoc(doc, 20, 25), TokenCount: 6, Score: 0.8},
		}
		if !slices.Equal(s, want) {
			t.Fatalf("got %+v, want %+v", s, want)
		}
	})
	t.Run("renderAllSections: no chunks, no sections", func(t *testing.T) {
		if s := mustAllSections(t, newTestResult(doc, tok), 10); len(s) != 0 || s == nil {
			t.Fatalf("sections %#v", s)
		}
	})
	t.Run("renderAllSections: a packed section is BM25 only when all its chunks are", func(t *testing.T) {
		s := mustAllSections(t, newTestResult(doc, tok, q(10, 14, 0.2, true), q(20, 24, 0.4, true)), 20)
		if len(s) != 1 || !s[0].IsBm25 || !near(s[0].Score, 0.3) {
			t.Fatalf("sections %+v", s)
		}
		s = mustAllSections(t, newTestResult(doc, tok, q(10, 14, 0.2, true), q(20, 24, 0.4, nil)), 20)
		if len(s) != 1 || s[0].IsBm25 {
			t.Fatalf("sections %+v", s)
		}
	})

	t.Run("renderSections: a document within maxTokens is one whole section", func(t *testing.T) {
		s := mustSections(t, newTestResult(doc, tok, q(0, 9, 0.1, nil)), len(doc), 3, true)
		want := []DocumentTextSection{{Text: doc, TokenCount: len(doc), Score: 1}}
		if !slices.Equal(s, want) {
			t.Fatalf("got %+v", s)
		}
	})
	t.Run("renderSections: with overlapping chunks a gap gets the connector", func(t *testing.T) {
		s := mustSections(t, newTestResult(doc, tok, q(70, 79, 0.4, false), q(90, 99, 0.6, false)), 10+10+len(Connector), 2, true)
		if len(s) != 1 || !strings.Contains(s[0].Text, Connector) {
			t.Fatalf("sections %+v", s)
		}
	})
	t.Run("renderSections: when every chunk is oversized the top chunk is cut to maxTokens", func(t *testing.T) {
		s := mustSections(t, newTestResult(doc, tok, q(100, 190, 0.2, nil), q(10, 90, 0.9, nil)), 25, 2, true)
		want := []DocumentTextSection{{Text: sliceDoc(doc, 10, 34), TokenCount: 25, Score: 0.9}}
		if !slices.Equal(s, want) {
			t.Fatalf("got %+v, want %+v", s, want)
		}
	})
	t.Run("renderSections: vector and keyword chunks render apart", func(t *testing.T) {
		r := newTestResult(doc, tok, q(40, 54, 0.4, false), q(110, 124, 0.5, true), q(10, 24, 0.6, nil), q(80, 94, 0.7, true))
		s := mustSections(t, r, 12, 10, true)
		var sem, bm int
		for _, sec := range s {
			if sec.IsBm25 {
				bm++
			} else {
				sem++
			}
			if sec.Score < 0 || sec.Score > 1 || sec.TokenCount > 12 {
				t.Fatalf("section %+v", sec)
			}
		}
		if sem == 0 || bm == 0 {
			t.Fatalf("sections %+v", s)
		}
	})
	t.Run("renderSections: maxSections caps each list, vector sections first", func(t *testing.T) {
		r := newTestResult(doc, tok, q(10, 29, 0.1, false), q(30, 49, 0.9, false), q(50, 69, 0.5, false),
			q(80, 99, 0.8, true), q(100, 119, 0.3, true), q(120, 139, 0.7, true))
		s := mustSections(t, r, 30, 1, true)
		if len(s) != 2 || s[0].IsBm25 || !s[1].IsBm25 || s[0].Score < s[1].Score || s[0].Score < 0.8 {
			t.Fatalf("sections %+v", s)
		}
	})
	t.Run("renderSections: adjacent chunks join without a connector", func(t *testing.T) {
		s := mustSections(t, newTestResult(doc, tok, q(20, 29, 0.6, false), q(30, 39, 0.6, false)), 40, 3, false)
		want := []DocumentTextSection{{Text: sliceDoc(doc, 20, 39), TokenCount: 20, Score: 0.6}}
		if !slices.Equal(s, want) {
			t.Fatalf("got %+v, want %+v", s, want)
		}
	})
	t.Run("renderSections: without overlapping chunks there are no connectors and no expansion", func(t *testing.T) {
		s := mustSections(t, newTestResult(doc, tok, q(50, 54, 0.3, false), q(60, 64, 0.7, false)), 30, 2, false)
		want := sliceDoc(doc, 50, 54) + sliceDoc(doc, 60, 64)
		if len(s) != 1 || s[0].Text != want || s[0].TokenCount != 10 {
			t.Fatalf("sections %+v", s)
		}
	})
	t.Run("renderSections: a small spare budget adds connectors only", func(t *testing.T) {
		s := mustSections(t, newTestResult(doc, tok, q(70, 79, 0.4, false), q(90, 99, 0.6, false)), 10+10+len(Connector), 2, true)
		want := sliceDoc(doc, 70, 79) + Connector + sliceDoc(doc, 90, 99)
		if len(s) != 1 || s[0].Text != want || s[0].TokenCount != len(want) {
			t.Fatalf("sections %+v", s)
		}
	})
	t.Run("renderSections: a large spare budget expands on both sides", func(t *testing.T) {
		const maxTokens = 120
		s := mustSections(t, newTestResult(doc, tok, q(100, 109, 0.5, false), q(120, 129, 0.5, false)), maxTokens, 2, true)
		inner := sliceDoc(doc, 100, 109) + Connector + sliceDoc(doc, 120, 129)
		remain := maxTokens - len(inner) // 93
		before := (remain + 1) / 2       // 47
		want := doc[100-before:100] + inner + doc[130:130+remain-before]
		if len(s) != 1 || s[0].Text != want || s[0].TokenCount != maxTokens {
			t.Fatalf("got %+v, want %q", s, want)
		}
	})
	t.Run("renderSections: a chunk without isBm25 is a vector chunk", func(t *testing.T) {
		s := mustSections(t, newTestResult(doc, tok, q(10, 19, 0.9, nil)), 50, 3, true)
		if len(s) == 0 || s[0].IsBm25 {
			t.Fatalf("sections %+v", s)
		}
	})

}

func TestRenderRejectsBudgetsVectraLoopsOn(t *testing.T) {
	r := newTestResult(renderDoc, testtok.Char{}, q(0, 9, 1, nil))
	ctx := context.Background()
	if _, err := r.RenderAllSections(ctx, 0); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("RenderAllSections(0): %v", err)
	}
	if _, err := r.RenderSections(ctx, 0, 1, true); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("RenderSections(0, 1): %v", err)
	}
	if _, err := r.RenderSections(ctx, 10, -1, true); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("RenderSections(10, -1): %v", err)
	}
}

type renderGoldenSection struct {
	Text       string  `json:"text"`
	TokenCount int     `json:"tokenCount"`
	Score      float64 `json:"score"`
	IsBm25     bool    `json:"isBm25"`
	Fallback   bool    `json:"fallback"`
}

type renderGoldenCase struct {
	Name      string `json:"name"`
	Doc       string `json:"doc"`
	Tokenizer string `json:"tokenizer"`
	Chunks    []struct {
		StartPos int     `json:"startPos"`
		EndPos   int     `json:"endPos"`
		Score    float64 `json:"score"`
		IsBm25   any     `json:"isBm25"`
	} `json:"chunks"`
	Calls []struct {
		Kind        string                `json:"kind"`
		MaxTokens   int                   `json:"maxTokens"`
		MaxSections int                   `json:"maxSections"`
		Overlapping bool                  `json:"overlapping"`
		Out         []renderGoldenSection `json:"out"`
	} `json:"calls"`
}

// golden.json holds what Vectra 0.15's own LocalDocumentResult rendered for
// random documents with characters outside the BMP, random chunk lists and
// budgets (testdata/render/generate.js). Folio must render the same, but for
// the fallback fix.
func TestRenderMatchesVectraGolden(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "render", "golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	var golden struct {
		Cases []renderGoldenCase `json:"cases"`
	}
	if err := json.Unmarshal(raw, &golden); err != nil {
		t.Fatal(err)
	}
	if len(golden.Cases) < 100 {
		t.Fatalf("%d golden cases", len(golden.Cases))
	}
	tokenizers := map[string]Tokenizer{"char": testtok.Char{}, "pair": testtok.Pair{}}
	ctx := context.Background()
	for _, c := range golden.Cases {
		tok := tokenizers[c.Tokenizer]
		chunks := make([]QueryResult, len(c.Chunks))
		for i, ch := range c.Chunks {
			chunks[i] = q(ch.StartPos, ch.EndPos, ch.Score, ch.IsBm25)
		}
		for i, call := range c.Calls {
			r := newTestResult(c.Doc, tok, chunks...)
			var got []DocumentTextSection
			if call.Kind == "all" {
				got, err = r.RenderAllSections(ctx, call.MaxTokens)
			} else {
				got, err = r.RenderSections(ctx, call.MaxTokens, call.MaxSections, call.Overlapping)
			}
			if err != nil {
				t.Fatalf("%s call %d: %v", c.Name, i, err)
			}
			want := make([]DocumentTextSection, len(call.Out))
			for j, s := range call.Out {
				want[j] = DocumentTextSection{Text: s.Text, TokenCount: s.TokenCount, Score: s.Score, IsBm25: s.IsBm25}
				if s.Fallback {
					want[j].TokenCount = len(tok.Encode(s.Text))
				}
			}
			if !slices.Equal(got, want) {
				t.Fatalf("%s call %d (%+v):\n got %+v\nwant %+v", c.Name, i, call, got, want)
			}
		}
	}
}

func TestConnectorIsTheOneRenderingUses(t *testing.T) {
	if Connector != render.Connector {
		t.Fatalf("core.Connector %q differs from the renderer's %q", Connector, render.Connector)
	}
}

// Render with VectraSections is RenderSections with named options and
// defaults: 2000 tokens, one section, overlapping chunks.
func TestRenderVectraSectionsOptions(t *testing.T) {
	ctx := context.Background()
	env := newCreatedDocEnv(t, nil)
	text := strings.Repeat("alpha beta gamma delta. ", 200)
	mustUpsertDoc(t, env.ix, "doc", text, "", nil)
	res, err := env.ix.QueryDocuments(ctx, "gamma", nil)
	if err != nil || len(res) != 1 {
		t.Fatalf("query: %v, %v", res, err)
	}
	for _, tc := range []struct {
		opts *RenderOptions
		args [3]any
	}{
		{&RenderOptions{VectraSections: true}, [3]any{DefaultVectraRenderTokens, 1, true}},
		{&RenderOptions{VectraSections: true, MaxTokens: 40}, [3]any{40, 1, true}},
		{&RenderOptions{VectraSections: true, MaxTokens: 40, MaxSections: 3, NoOverlap: true}, [3]any{40, 3, false}},
	} {
		got, err := res[0].Render(ctx, tc.opts)
		if err != nil {
			t.Fatal(err)
		}
		want, err := res[0].RenderSections(ctx, tc.args[0].(int), tc.args[1].(int), tc.args[2].(bool))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Render(%+v) = %v, want RenderSections%v = %v", tc.opts, got, tc.args, want)
		}
	}
	if _, err := res[0].Render(ctx, &RenderOptions{MaxTokens: -1}); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("Render(MaxTokens -1) = %v, want ErrInvalidArgument", err)
	}
}
