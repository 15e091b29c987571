package core

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf16"
)

// renderCharTokenizer is one token per code point, Vectra's
// LocalDocumentResult.spec.ts tokenizer.
type renderCharTokenizer struct{}

func (renderCharTokenizer) Encode(text string) []int {
	out := make([]int, 0, len(text))
	for _, r := range text {
		out = append(out, int(r))
	}
	return out
}

func (renderCharTokenizer) Decode(tokens []int) string {
	rs := make([]rune, len(tokens))
	for i, t := range tokens {
		rs[i] = rune(t)
	}
	return string(rs)
}

// renderPairTokenizer is one token per two code points, so a text's tokens
// are not its parts' tokens put together (testdata/render/generate.js).
type renderPairTokenizer struct{}

const renderPairBase = 2097152

func (renderPairTokenizer) Encode(text string) []int {
	rs := []rune(text)
	out := make([]int, 0, (len(rs)+1)/2)
	for i := 0; i < len(rs); i += 2 {
		if i+1 < len(rs) {
			out = append(out, int(rs[i])*renderPairBase+int(rs[i+1])+1)
		} else {
			out = append(out, int(rs[i])*renderPairBase)
		}
	}
	return out
}

func (renderPairTokenizer) Decode(tokens []int) string {
	var rs []rune
	for _, t := range tokens {
		rs = append(rs, rune(t/renderPairBase))
		if lo := t % renderPairBase; lo > 0 {
			rs = append(rs, rune(lo-1))
		}
	}
	return string(rs)
}

// newTestResult is a result over doc, whose text is already loaded.
func newTestResult(doc string, tok Tokenizer, chunks ...QueryResult) *LocalDocumentResult {
	d := &LocalDocument{tokenizer: tok, id: "id-1", uri: "doc://test", text: newDocText(doc)}
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
	tok := renderCharTokenizer{}
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
	t.Run("renderSections: fallback of no chunks is nothing", func(t *testing.T) {
		rd := &renderer{text: newDocText(doc), tok: tok}
		if s := rd.fallback(nil, false, 10); s != nil {
			t.Fatalf("fallback %+v", s)
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

	rd := &renderer{text: newDocText(doc), tok: tok}
	t.Run("buildSectionsFor: a cold chunk splits peaks and chunks go to the nearest", func(t *testing.T) {
		chunks := renderChunks([]QueryResult{q(10, 20, 0.2, false), q(100, 110, 0.3, false), q(50, 55, 0.05, false)})
		peaks := heatPeaks(chunks)
		if len(peaks) != 2 || peaks[0].pos != 10 || peaks[1].pos != 100 {
			t.Fatalf("peaks %+v", peaks)
		}
		out := rd.sections(chunks, false, 40, 10, false)
		if len(out) != 2 || strings.Contains(out[0].Text, "...") {
			t.Fatalf("sections %+v", out)
		}
		// The hotter peak (100) comes first; the cold chunk's centre (52)
		// is nearer to 10 than to 100.
		if out[0].Text != sliceDoc(doc, 100, 110) || out[1].Text != sliceDoc(doc, 10, 20)+sliceDoc(doc, 50, 55) {
			t.Fatalf("sections %+v", out)
		}
	})
	t.Run("buildSectionsFor: no peaks centre one on the top chunk", func(t *testing.T) {
		chunks := renderChunks([]QueryResult{q(10, 19, 0.05, false), q(30, 39, 0.09, false)})
		if p := heatPeaks(chunks); len(p) != 0 {
			t.Fatalf("peaks %+v", p)
		}
		out := rd.sections(chunks, false, 20, 2, false)
		if len(out) != 1 || out[0].Text != sliceDoc(doc, 10, 19)+sliceDoc(doc, 30, 39) {
			t.Fatalf("sections %+v", out)
		}
	})
	t.Run("buildSectionsFor: maxSections 0 gives the fallback section", func(t *testing.T) {
		out := rd.sections(renderChunks([]QueryResult{q(10, 60, 0.9, false)}), false, 10, 0, false)
		want := []DocumentTextSection{{Text: sliceDoc(doc, 10, 19), TokenCount: 10, Score: 0.9}}
		if !slices.Equal(out, want) {
			t.Fatalf("got %+v, want %+v", out, want)
		}
	})
}

func TestFixFallbackSectionCountsItsRealTokens(t *testing.T) {
	// Every chunk is over maxTokens but the top chunk, cut to maxTokens…
	// is shorter than maxTokens when its text runs out first: Vectra would
	// report TokenCount 25 for an 11-token text.
	doc := renderDoc
	r := newTestResult(doc, renderCharTokenizer{}, q(0, 100, 0.2, nil), q(200, 210, 0.9, nil))
	rd := &renderer{text: newDocText(doc), tok: renderCharTokenizer{}}
	out := rd.fallback(renderChunks(r.Chunks), false, 25)
	want := []DocumentTextSection{{Text: sliceDoc(doc, 200, 210), TokenCount: 11, Score: 0.9}}
	if !slices.Equal(out, want) {
		t.Fatalf("got %+v, want %+v", out, want)
	}
}

func TestRenderRejectsBudgetsVectraLoopsOn(t *testing.T) {
	r := newTestResult(renderDoc, renderCharTokenizer{}, q(0, 9, 1, nil))
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
	tokenizers := map[string]Tokenizer{"char": renderCharTokenizer{}, "pair": renderPairTokenizer{}}
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

// naiveSections is Vectra's buildSectionsFor written out literally, with a
// heat map entry per character (and Vectra's fallback token count fixed), to
// check the run-based heat map against.
func naiveSections(doc string, chunks []QueryResult, isBm25 bool, maxTokens, maxSections int, overlapping bool, tok Tokenizer) []DocumentTextSection {
	if len(chunks) == 0 {
		return nil
	}
	units := utf16.Encode([]rune(doc))
	sub := func(a, b int) string {
		a, b = min(max(a, 0), len(units)), min(max(b, 0), len(units))
		if a > b {
			a, b = b, a
		}
		return string(utf16.Decode(units[a:b]))
	}
	pos := func(c QueryResult) (int, int) {
		return int(c.Item.Metadata["startPos"].(float64)), int(c.Item.Metadata["endPos"].(float64))
	}
	center := func(c QueryResult) int {
		s, e := pos(c)
		return int(math.Floor(float64(s+e) / 2))
	}
	fallback := func() []DocumentTextSection {
		top := chunks[0]
		for _, c := range chunks {
			if c.Score > top.Score {
				top = c
			}
		}
		s, e := pos(top)
		toks := tok.Encode(sub(s, e+1))
		toks = toks[:min(maxTokens, len(toks))]
		return []DocumentTextSection{{Text: tok.Decode(toks), TokenCount: len(toks), Score: top.Score, IsBm25: isBm25}}
	}
	heat := map[int]float64{}
	for _, c := range chunks {
		s, e := pos(c)
		for p := s; p <= e; p++ {
			heat[p] += c.Score
		}
	}
	type pk struct {
		pos    int
		score  float64
		chunks []QueryResult
	}
	var peaks []*pk
	var cur *pk
	keys := make([]int, 0, len(heat))
	for k := range heat {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, p := range keys {
		h := heat[p]
		if h < 0.1 {
			if cur != nil {
				peaks = append(peaks, cur)
				cur = nil
			}
			continue
		}
		if cur == nil {
			cur = &pk{pos: p, score: h}
		} else if h > cur.score {
			cur.pos, cur.score = p, h
		}
	}
	if cur != nil {
		peaks = append(peaks, cur)
	}
	if len(peaks) == 0 {
		top := chunks[0]
		for _, c := range chunks {
			if c.Score > top.Score {
				top = c
			}
		}
		peaks = append(peaks, &pk{pos: center(top), score: top.Score})
	}
	for _, c := range chunks {
		best := peaks[0]
		for _, p := range peaks {
			if absInt(center(c)-p.pos) < absInt(center(c)-best.pos) {
				best = p
			}
		}
		best.chunks = append(best.chunks, c)
	}
	slices.SortStableFunc(peaks, func(a, b *pk) int { return cmp.Compare(b.score, a.score) })
	if len(peaks) > maxSections {
		peaks = peaks[:maxSections]
	}
	conn := tok.Encode(Connector)
	var out []DocumentTextSection
	for _, p := range peaks {
		sorted := slices.Clone(p.chunks)
		slices.SortStableFunc(sorted, func(a, b QueryResult) int {
			return cmp.Compare(absInt(center(a)-p.pos), absInt(center(b)-p.pos))
		})
		var selected []QueryResult
		count := 0
		for _, c := range sorted {
			s, e := pos(c)
			need := len(tok.Encode(sub(s, e+1)))
			if need > maxTokens {
				continue
			}
			if len(selected) > 0 && overlapping {
				adjacent := false
				for _, x := range selected {
					xs, xe := pos(x)
					if xe+1 == s || e+1 == xs {
						adjacent = true
					}
				}
				if !adjacent {
					need += len(conn)
				}
			}
			if count+need <= maxTokens {
				selected = append(selected, c)
				count += need
			}
		}
		if len(selected) == 0 {
			return fallback()
		}
		ordered := slices.Clone(selected)
		slices.SortStableFunc(ordered, func(a, b QueryResult) int {
			as, _ := pos(a)
			bs, _ := pos(b)
			return cmp.Compare(as, bs)
		})
		text := ""
		var toks []int
		for i, c := range ordered {
			s, e := pos(c)
			if i > 0 && overlapping {
				if _, pe := pos(ordered[i-1]); pe+1 < s {
					text += Connector
					toks = append(toks, conn...)
				}
			}
			text += sub(s, e+1)
			toks = append(toks, tok.Encode(sub(s, e+1))...)
		}
		if remain := maxTokens - len(toks); overlapping && remain > 40 {
			first, last := math.MaxInt, math.MinInt
			for _, c := range selected {
				s, e := pos(c)
				first, last = min(first, s), max(last, e)
			}
			before := tok.Encode(sub(0, first))
			after := tok.Encode(sub(last+1, len(units)))
			nb := min(int(math.Ceil(float64(remain)/2)), len(before))
			na := min(remain-nb, len(after))
			text = tok.Decode(before[len(before)-nb:]) + text + tok.Decode(after[:na])
			toks = append(append(slices.Clone(before[len(before)-nb:]), toks...), after[:na]...)
		}
		sum := 0.0
		for _, c := range selected {
			sum += c.Score
		}
		out = append(out, DocumentTextSection{Text: text, TokenCount: len(toks), Score: sum / float64(len(selected)), IsBm25: isBm25})
	}
	if len(out) == 0 {
		return fallback()
	}
	return out
}

func TestRunHeatMapMatchesPerCharacterHeatMap(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 21))
	alphabet := []rune("abc .\né日📚")
	for n := range 3000 {
		var doc []rune
		for range 30 + r.IntN(300) {
			doc = append(doc, alphabet[r.IntN(len(alphabet))])
		}
		text := string(doc)
		len16 := len(utf16.Encode(doc))
		// Character starts in UTF-16 units.
		var starts []int
		off := 0
		for _, c := range doc {
			starts = append(starts, off)
			off += len(utf16.Encode([]rune{c}))
		}
		starts = append(starts, len16)
		var chunks []QueryResult
		for range r.IntN(12) {
			a := r.IntN(len(starts) - 1)
			b := a + 1 + r.IntN(min(50, len(starts)-1-a))
			score := r.Float64()
			switch r.IntN(4) {
			case 0:
				score = float64(r.IntN(12)) / 100 // around the 0.1 threshold
			case 1:
				score = 0.05
			}
			chunks = append(chunks, q(starts[a], starts[b]-1, score, nil))
		}
		tok := Tokenizer(renderCharTokenizer{})
		if n%2 == 1 {
			tok = renderPairTokenizer{}
		}
		maxTokens, maxSections, overlapping := 1+r.IntN(90), r.IntN(4), r.IntN(2) == 0
		rd := &renderer{text: newDocText(text), tok: tok}
		got := rd.sections(renderChunks(chunks), false, maxTokens, maxSections, overlapping)
		want := naiveSections(text, chunks, false, maxTokens, maxSections, overlapping, tok)
		if !slices.Equal(got, want) {
			t.Fatalf("case %d: doc %q chunks %+v maxTokens %d maxSections %d overlapping %v:\n got %+v\nwant %+v",
				n, text, chunks, maxTokens, maxSections, overlapping, got, want)
		}
	}
}

// The heat map is built over runs of positions, not characters: its
// allocations do not grow with the length of the chunks.
func TestHeatMapDoesNotAllocatePerCharacter(t *testing.T) {
	allocs := func(span int) float64 {
		chunks := renderChunks([]QueryResult{q(0, span, 0.5, nil), q(span/2, 2*span, 0.3, nil), q(3*span, 4*span, 0.05, nil)})
		return testing.AllocsPerRun(20, func() { heatPeaks(chunks) })
	}
	short, long := allocs(10), allocs(10_000_000)
	if long > short {
		t.Fatalf("allocations grow with chunk length: %v for short chunks, %v for long ones", short, long)
	}
}

func TestDocTextCutsAtUTF16Offsets(t *testing.T) {
	text := "a📚é日b" // units: a=0, 📚=1-2, é=3, 日=4, b=5
	tests := []struct {
		name       string
		start, end int
		want       string
	}{
		{"whole", 0, 6, text},
		{"a surrogate pair", 1, 3, "📚"},
		{"after the pair", 3, 5, "é日"},
		{"a start inside the pair takes the character", 2, 4, "📚é"},
		{"an end inside the pair takes the character", 0, 2, "a📚"},
		{"clamped", -5, 99, text},
		{"swapped as substring does", 6, 5, "b"},
		{"empty", 3, 3, ""},
	}
	dt := newDocText(text)
	if dt.len16() != 6 {
		t.Fatalf("len16 = %d", dt.len16())
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := dt.substring(tc.start, tc.end); got != tc.want {
				t.Fatalf("substring(%d, %d) = %q, want %q", tc.start, tc.end, got, tc.want)
			}
		})
	}
	ascii := newDocText("hello")
	if ascii.at != nil || ascii.substring(1, 3) != "el" || ascii.len16() != 5 {
		t.Fatal("ASCII text is not cut by bytes")
	}
}

func TestDocTextMatchesJavaScriptSubstringOnRandomText(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	alphabet := []rune("ab é日📚😀\n")
	for range 2000 {
		var rs []rune
		for range r.IntN(40) {
			rs = append(rs, alphabet[r.IntN(len(alphabet))])
		}
		units := utf16.Encode(rs)
		// Offsets at character boundaries only, where JavaScript's result
		// is valid text.
		var bounds []int
		off := 0
		for _, c := range rs {
			bounds = append(bounds, off)
			off += len(utf16.Encode([]rune{c}))
		}
		bounds = append(bounds, off)
		dt := newDocText(string(rs))
		a, b := bounds[r.IntN(len(bounds))], bounds[r.IntN(len(bounds))]
		lo, hi := min(a, b), max(a, b)
		if got, want := dt.substring(a, b), string(utf16.Decode(units[lo:hi])); got != want {
			t.Fatalf("substring(%d, %d) of %q = %q, want %q", a, b, string(rs), got, want)
		}
	}
}

// FuzzRenderSections checks, on arbitrary documents and chunk lists, that
// rendering never panics and matches the per-character reference.
func FuzzRenderSections(f *testing.F) {
	f.Add("0123456789abcdef 📚 é\n\nxyz", []byte{0, 5, 50, 3, 9, 200, 12, 4, 7}, uint8(8), uint8(2), true)
	f.Add("", []byte{}, uint8(1), uint8(0), false)
	f.Add("a", []byte{0, 0, 255}, uint8(0), uint8(1), true)
	f.Fuzz(func(t *testing.T, doc string, spans []byte, maxTokens, maxSections uint8, overlapping bool) {
		doc = strings.ToValidUTF8(doc, "?")
		var starts []int
		off := 0
		for _, c := range doc {
			starts = append(starts, off)
			off += utf16.RuneLen(c)
		}
		starts = append(starts, off)
		var chunks []QueryResult
		for i := 0; i+2 < len(spans) && len(chunks) < 20; i += 3 {
			a := int(spans[i]) % len(starts)
			b := min(a+int(spans[i+1])%16, len(starts)-1)
			end := starts[b] - 1
			chunks = append(chunks, q(starts[a], end, float64(spans[i+2])/200, nil))
		}
		tok := renderCharTokenizer{}
		rd := &renderer{text: newDocText(doc), tok: tok}
		mt, ms := int(maxTokens)%64+1, int(maxSections)%4
		got := rd.sections(renderChunks(chunks), false, mt, ms, overlapping)
		want := naiveSections(doc, chunks, false, mt, ms, overlapping, tok)
		if !slices.Equal(got, want) {
			t.Fatalf("doc %q chunks %+v (%d, %d, %v):\n got %+v\nwant %+v", doc, chunks, mt, ms, overlapping, got, want)
		}
		r := newTestResult(doc, tok, chunks...)
		if _, err := r.RenderAllSections(context.Background(), mt); err != nil {
			t.Fatal(err)
		}
	})
}
