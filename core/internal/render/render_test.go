package render

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/foliovec/folio/core/internal/testtok"
)

// span is a chunk by its inclusive UTF-16 offsets and score.
type span struct {
	start, end int
	score      float64
}

// chunksOf returns the vector chunks of spans.
func chunksOf(spans []span) []*Chunk {
	out := make([]*Chunk, len(spans))
	for i, s := range spans {
		out[i] = NewChunk(s.start, s.end, true, s.score, false)
	}
	return out
}

func sliceDoc(doc string, start, end int) string { return doc[start : end+1] }

var renderDoc = strings.Repeat("0123456789", 22) // length 220

// The parts of Vectra's buildSectionsFor (LocalDocumentResult.spec.ts) that
// core's tests cannot reach through LocalDocumentResult.
func TestSectionsVectraSpec(t *testing.T) {
	doc, tok := renderDoc, testtok.Char{}
	t.Run("fallback of no chunks is nothing", func(t *testing.T) {
		rd := New(NewText(doc), tok)
		if s := rd.fallback(nil, false, 10); s != nil {
			t.Fatalf("fallback %+v", s)
		}
	})
	rd := New(NewText(doc), tok)
	t.Run("buildSectionsFor: a cold chunk splits peaks and chunks go to the nearest", func(t *testing.T) {
		chunks := chunksOf([]span{span{10, 20, 0.2}, span{100, 110, 0.3}, span{50, 55, 0.05}})
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
		chunks := chunksOf([]span{span{10, 19, 0.05}, span{30, 39, 0.09}})
		if p := heatPeaks(chunks); len(p) != 0 {
			t.Fatalf("peaks %+v", p)
		}
		out := rd.sections(chunks, false, 20, 2, false)
		if len(out) != 1 || out[0].Text != sliceDoc(doc, 10, 19)+sliceDoc(doc, 30, 39) {
			t.Fatalf("sections %+v", out)
		}
	})
	t.Run("buildSectionsFor: maxSections 0 gives the fallback section", func(t *testing.T) {
		out := rd.sections(chunksOf([]span{span{10, 60, 0.9}}), false, 10, 0, false)
		want := []Section{{Text: sliceDoc(doc, 10, 19), TokenCount: 10, Score: 0.9}}
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

	rd := New(NewText(doc), testtok.Char{})
	out := rd.fallback(chunksOf([]span{{0, 100, 0.2}, {200, 210, 0.9}}), false, 25)
	want := []Section{{Text: sliceDoc(doc, 200, 210), TokenCount: 11, Score: 0.9}}
	if !slices.Equal(out, want) {
		t.Fatalf("got %+v, want %+v", out, want)
	}
}
func naiveSections(doc string, chunks []span, isBm25 bool, maxTokens, maxSections int, overlapping bool, tok Tokenizer) []Section {
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
	pos := func(c span) (int, int) { return c.start, c.end }
	center := func(c span) int {
		s, e := pos(c)
		return int(math.Floor(float64(s+e) / 2))
	}
	fallback := func() []Section {
		top := chunks[0]
		for _, c := range chunks {
			if c.score > top.score {
				top = c
			}
		}
		s, e := pos(top)
		toks := tok.Encode(sub(s, e+1))
		toks = toks[:min(maxTokens, len(toks))]
		return []Section{{Text: tok.Decode(toks), TokenCount: len(toks), Score: top.score, IsBm25: isBm25}}
	}
	heat := map[int]float64{}
	for _, c := range chunks {
		s, e := pos(c)
		for p := s; p <= e; p++ {
			heat[p] += c.score
		}
	}
	type pk struct {
		pos    int
		score  float64
		chunks []span
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
			if c.score > top.score {
				top = c
			}
		}
		peaks = append(peaks, &pk{pos: center(top), score: top.score})
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
	var out []Section
	for _, p := range peaks {
		sorted := slices.Clone(p.chunks)
		slices.SortStableFunc(sorted, func(a, b span) int {
			return cmp.Compare(absInt(center(a)-p.pos), absInt(center(b)-p.pos))
		})
		var selected []span
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
		slices.SortStableFunc(ordered, func(a, b span) int {
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
			sum += c.score
		}
		out = append(out, Section{Text: text, TokenCount: len(toks), Score: sum / float64(len(selected)), IsBm25: isBm25})
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
		var chunks []span
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
			chunks = append(chunks, span{starts[a], starts[b] - 1, score})
		}
		tok := Tokenizer(testtok.Char{})
		if n%2 == 1 {
			tok = testtok.Pair{}
		}
		maxTokens, maxSections, overlapping := 1+r.IntN(90), r.IntN(4), r.IntN(2) == 0
		rd := New(NewText(text), tok)
		got := rd.sections(chunksOf(chunks), false, maxTokens, maxSections, overlapping)
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
	allocs := func(n int) float64 {
		chunks := chunksOf([]span{{0, n, 0.5}, {n / 2, 2 * n, 0.3}, {3 * n, 4 * n, 0.05}})
		return testing.AllocsPerRun(20, func() { heatPeaks(chunks) })
	}
	short, long := allocs(10), allocs(10_000_000)
	if long > short {
		t.Fatalf("allocations grow with chunk length: %v for short chunks, %v for long ones", short, long)
	}
}

func TestTextCutsAtUTF16Offsets(t *testing.T) {
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
	dt := NewText(text)
	if dt.Len16() != 6 {
		t.Fatalf("len16 = %d", dt.Len16())
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := dt.Substring(tc.start, tc.end); got != tc.want {
				t.Fatalf("substring(%d, %d) = %q, want %q", tc.start, tc.end, got, tc.want)
			}
		})
	}
	ascii := NewText("hello")
	if ascii.at != nil || ascii.Substring(1, 3) != "el" || ascii.Len16() != 5 {
		t.Fatal("ASCII text is not cut by bytes")
	}
}

func TestTextMatchesJavaScriptSubstringOnRandomText(t *testing.T) {
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
		dt := NewText(string(rs))
		a, b := bounds[r.IntN(len(bounds))], bounds[r.IntN(len(bounds))]
		lo, hi := min(a, b), max(a, b)
		if got, want := dt.Substring(a, b), string(utf16.Decode(units[lo:hi])); got != want {
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
		var chunks []span
		for i := 0; i+2 < len(spans) && len(chunks) < 20; i += 3 {
			a := int(spans[i]) % len(starts)
			b := min(a+int(spans[i+1])%16, len(starts)-1)
			end := starts[b] - 1
			chunks = append(chunks, span{starts[a], end, float64(spans[i+2]) / 200})
		}
		tok := testtok.Char{}
		rd := New(NewText(doc), tok)
		mt, ms := int(maxTokens)%64+1, int(maxSections)%4
		got := rd.sections(chunksOf(chunks), false, mt, ms, overlapping)
		want := naiveSections(doc, chunks, false, mt, ms, overlapping, tok)
		if !slices.Equal(got, want) {
			t.Fatalf("doc %q chunks %+v (%d, %d, %v):\n got %+v\nwant %+v", doc, chunks, mt, ms, overlapping, got, want)
		}
		New(NewText(doc), tok).All(chunksOf(chunks), mt) // must not panic
	})
}
