package render

import (
	"cmp"
	"slices"
	"strings"
)

// Connector joins the non-adjacent chunks of a rendered section.
const Connector = "\n\n...\n\n"

// peakThreshold is the heat below which a position ends a peak.
const peakThreshold = 0.1

// expandMinBudget is the unused budget above which a section grows with the
// text around it.
const expandMinBudget = 40

// Tokenizer turns text into tokens and back (core.Tokenizer).
type Tokenizer interface {
	Encode(text string) []int
	Decode(tokens []int) string
}

// Section is a rendered passage (core.Section has the same
// fields, so one converts to the other).
type Section struct {
	Text       string
	TokenCount int
	Score      float64
	IsBm25     bool
	Headings   string // joined by HeadingSeparator
}

// HeadingSeparator joins the headings of Section.Headings.
const HeadingSeparator = " > "

// Chunk is one chunk as rendering sees it: its span of the
// document, score, BM25 flag and, once needed, its text and tokens.
type Chunk struct {
	start, end int  // inclusive UTF-16 offsets
	placed     bool // the chunk has numeric startPos and endPos
	score      float64
	bm25       bool

	text   string
	tokens []int
	coded  bool
}

// NewChunk returns the chunk spanning the inclusive UTF-16 offsets start
// to end, or an unplaced chunk (empty text) when placed is false.
func NewChunk(start, end int, placed bool, score float64, bm25 bool) *Chunk {
	if !placed {
		start, end = 0, 0
	}
	return &Chunk{start: start, end: end, placed: placed, score: score, bm25: bm25}
}

// BM25 reports whether the chunk came from the keyword search.
func (c *Chunk) BM25() bool { return c.bm25 }

// Renderer renders the chunks of one document. A Renderer caches each
// chunk's text and tokens in the chunk, so chunks are not shared between
// goroutines while they render.
type Renderer struct {
	text *Text
	tok  Tokenizer
}

// New returns a renderer over text that counts tokens with tok.
func New(text *Text, tok Tokenizer) *Renderer { return &Renderer{text: text, tok: tok} }

// encode returns the chunk's text and tokens, computed once.
func (r *Renderer) encode(c *Chunk) []int {
	if !c.coded {
		if c.placed {
			c.text = r.text.Substring(c.start, c.end+1)
		}
		c.tokens = r.tok.Encode(c.text)
		c.coded = true
	}
	return c.tokens
}

// Best is Vectra's renderSections once the whole-document case is ruled
// out: vector and keyword chunks are rendered apart, at most maxSections
// sections each, vector sections first.
func (r *Renderer) Best(chunks []*Chunk, maxTokens, maxSections int, overlapping bool) []Section {
	var semantic, keyword []*Chunk
	for _, c := range chunks {
		if c.bm25 {
			keyword = append(keyword, c)
		} else {
			semantic = append(semantic, c)
		}
	}
	out := []Section{}
	for _, list := range []struct {
		chunks []*Chunk
		bm25   bool
	}{{semantic, false}, {keyword, true}} {
		s := r.sections(list.chunks, list.bm25, maxTokens, maxSections, overlapping)
		out = append(out, s[:min(maxSections, len(s))]...)
	}
	return out
}

// center is the chunk's centre, floor((start + end) / 2).
func (c *Chunk) center() int {
	s := c.start + c.end
	if s < 0 && s%2 != 0 {
		return s/2 - 1
	}
	return s / 2
}

// All is Vectra's renderAllSections: the chunks in document order,
// packed into sections of at most maxTokens tokens; a chunk longer than that
// is cut into maxTokens-token sections of its own.
func (r *Renderer) All(chunks []*Chunk, maxTokens int) []Section {
	sorted := slices.Clone(chunks)
	slices.SortStableFunc(sorted, func(a, b *Chunk) int { return cmp.Compare(a.start, b.start) })
	var (
		sections []Section
		tokens   []int
		scores   []float64
		allBm25  = true
		curLen   int
	)
	// flush closes the pending group. As in Vectra, a group without tokens
	// is not closed, and the scores of its empty chunks stay in the next
	// group's mean.
	flush := func() {
		if len(tokens) == 0 {
			return
		}
		sections = append(sections, Section{
			Text:       r.tok.Decode(tokens),
			TokenCount: len(tokens),
			Score:      Mean(scores),
			IsBm25:     allBm25 && len(scores) > 0,
		})
		tokens, scores, allBm25 = nil, nil, true
	}
	for _, c := range sorted {
		ct := r.encode(c)
		switch {
		case len(ct) > maxTokens:
			flush()
			curLen = 0
			for off := 0; off < len(ct); off += maxTokens {
				part := ct[off:min(off+maxTokens, len(ct))]
				sections = append(sections, Section{
					Text:       r.tok.Decode(part),
					TokenCount: len(part),
					Score:      c.score,
					IsBm25:     c.bm25,
				})
			}
			tokens, scores, allBm25 = nil, nil, true
		case curLen+len(ct) <= maxTokens:
			tokens = append(tokens, ct...)
			scores = append(scores, c.score)
			allBm25 = allBm25 && c.bm25
			curLen += len(ct)
		default:
			flush()
			tokens = append(tokens, ct...)
			scores = append(scores, c.score)
			allBm25 = allBm25 && c.bm25
			curLen = len(ct)
		}
	}
	flush()
	return sections
}

// Mean is the arithmetic mean of xs summed left to right from 0, as
// Vectra's reduce does; 0 for none.
func Mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}

// peak is a local maximum of the heat map and the chunks nearest to it.
type peak struct {
	pos    int
	score  float64
	chunks []*Chunk
}

// heatPeaks finds the peaks of the chunks' heat map (Vectra's steps 2–3):
// the heat of a position is the sum of the scores of the chunks covering it,
// added in chunk order; the covered positions are scanned in ascending
// order, gaps unseen; a position below peakThreshold ends the current peak,
// and a strictly hotter position moves it.
//
// Vectra keeps a map entry per covered character. Here the covered
// positions are cut into runs covered by the same chunks, whose heat is one
// sum: only a run's first position can start or move a peak. Memory and
// time grow with the number of chunks, not of characters.
func heatPeaks(chunks []*Chunk) []*peak {
	type edge struct {
		pos   int
		chunk int
		open  bool
	}
	edges := make([]edge, 0, 2*len(chunks))
	for i, c := range chunks {
		if c.placed && c.start <= c.end {
			edges = append(edges, edge{c.start, i, true}, edge{c.end + 1, i, false})
		}
	}
	slices.SortFunc(edges, func(a, b edge) int { return cmp.Compare(a.pos, b.pos) })
	var (
		peaks  []*peak
		cur    *peak
		active []int // chunks covering the current run, ascending
	)
	for i := 0; i < len(edges); {
		pos := edges[i].pos
		for ; i < len(edges) && edges[i].pos == pos; i++ {
			e := edges[i]
			j, found := slices.BinarySearch(active, e.chunk)
			if e.open && !found {
				active = slices.Insert(active, j, e.chunk)
			} else if !e.open && found {
				active = slices.Delete(active, j, j+1)
			}
		}
		if len(active) == 0 || i == len(edges) {
			continue // a gap, or the end
		}
		heat := 0.0
		for _, k := range active {
			heat += chunks[k].score
		}
		switch {
		case heat < peakThreshold:
			if cur != nil {
				peaks = append(peaks, cur)
				cur = nil
			}
		case cur == nil:
			cur = &peak{pos: pos, score: heat}
		case heat > cur.score:
			cur.pos, cur.score = pos, heat
		}
	}
	if cur != nil {
		peaks = append(peaks, cur)
	}
	return peaks
}

// topChunk is the first chunk with the highest score.
func topChunk(chunks []*Chunk) *Chunk {
	top := chunks[0]
	for _, c := range chunks[1:] {
		if c.score > top.score {
			top = c
		}
	}
	return top
}

// fallback is the section of last resort: the top chunk's first maxTokens
// tokens. Fix over Vectra: TokenCount is the real count (Vectra reports
// maxTokens even for a shorter chunk).
func (r *Renderer) fallback(chunks []*Chunk, isBm25 bool, maxTokens int) []Section {
	if len(chunks) == 0 {
		return nil
	}
	top := topChunk(chunks)
	t := r.encode(top)
	t = t[:min(maxTokens, len(t))]
	return []Section{{Text: r.tok.Decode(t), TokenCount: len(t), Score: top.score, IsBm25: isBm25}}
}

// sections is Vectra's buildSectionsFor: one section per peak,
// for the maxSections hottest peaks, each made of the chunks nearest its
// peak that fit in maxTokens.
func (r *Renderer) sections(chunks []*Chunk, isBm25 bool, maxTokens, maxSections int, overlapping bool) []Section {
	if len(chunks) == 0 {
		return nil
	}
	connector := r.tok.Encode(Connector)
	peaks := heatPeaks(chunks)
	if len(peaks) == 0 {
		top := topChunk(chunks)
		peaks = []*peak{{pos: top.center(), score: top.score}}
	}
	for _, c := range chunks {
		center := c.center()
		closest, best := peaks[0], absInt(center-peaks[0].pos)
		for _, p := range peaks[1:] {
			if d := absInt(center - p.pos); d < best {
				closest, best = p, d
			}
		}
		closest.chunks = append(closest.chunks, c)
	}
	slices.SortStableFunc(peaks, func(a, b *peak) int { return cmp.Compare(b.score, a.score) })
	peaks = peaks[:min(maxSections, len(peaks))]

	var out []Section
	for _, p := range peaks {
		near := slices.Clone(p.chunks)
		slices.SortStableFunc(near, func(a, b *Chunk) int {
			return cmp.Compare(absInt(a.center()-p.pos), absInt(b.center()-p.pos))
		})
		var selected []*Chunk
		used := 0
		for _, c := range near {
			need := len(r.encode(c))
			if need > maxTokens {
				continue
			}
			if len(selected) > 0 && overlapping && !adjacentToAny(c, selected) {
				need += len(connector)
			}
			if used+need <= maxTokens {
				selected = append(selected, c)
				used += need
			}
		}
		if len(selected) == 0 {
			return r.fallback(chunks, isBm25, maxTokens)
		}
		out = append(out, r.assemble(selected, connector, isBm25, maxTokens, overlapping))
	}
	if len(out) == 0 {
		return r.fallback(chunks, isBm25, maxTokens)
	}
	return out
}

func adjacentToAny(c *Chunk, selected []*Chunk) bool {
	for _, s := range selected {
		if s.end+1 == c.start || c.end+1 == s.start {
			return true
		}
	}
	return false
}

// assemble joins the selected chunks in document order, with the connector
// over gaps when overlapping, and then, when overlapping and more than
// expandMinBudget tokens are left, grows the section with the text before
// and after it.
func (r *Renderer) assemble(selected []*Chunk, connector []int, isBm25 bool, maxTokens int, overlapping bool) Section {
	ordered := slices.Clone(selected)
	slices.SortStableFunc(ordered, func(a, b *Chunk) int { return cmp.Compare(a.start, b.start) })
	var sb strings.Builder
	count := 0
	for i, c := range ordered {
		if i > 0 && overlapping && ordered[i-1].end+1 < c.start {
			sb.WriteString(Connector)
			count += len(connector)
		}
		sb.WriteString(c.text)
		count += len(c.tokens)
	}
	text := sb.String()
	if remain := maxTokens - count; overlapping && remain > expandMinBudget {
		first, last := selected[0].start, selected[0].end
		for _, c := range selected[1:] {
			first, last = min(first, c.start), max(last, c.end)
		}
		before := r.tokensBefore(first, (remain+1)/2)
		nb := min((remain+1)/2, len(before))
		after := r.tokensAfter(last+1, remain-nb)
		na := min(remain-nb, len(after))
		text = r.tok.Decode(before[len(before)-nb:]) + text + r.tok.Decode(after[:na])
		count += nb + na
	}
	scores := make([]float64, len(selected))
	for i, c := range selected {
		scores[i] = c.score
	}
	return Section{Text: text, TokenCount: count, Score: Mean(scores), IsBm25: isBm25}
}

// The text around a section is tokenized in a window rather than whole, so
// that a long document's prefix and suffix cost what the budget needs. A
// window is cut only at the start of a line (after a line break, before a
// character that is not white space): there a tokenizer's pre-tokens and
// runs begin afresh (BPE's and WordPiece's alike), so the text on either
// side tokenizes as it does within the whole. The window doubles until it
// holds the tokens wanted and windowMargin more, or is the whole prefix or
// suffix.
const (
	windowMargin   = 16
	windowMinUnits = 512
)

// lineStart reports whether byte j of s starts a line that begins with
// something other than white space.
func lineStart(s string, j int) bool {
	if j <= 0 || j >= len(s) || (s[j-1] != '\n' && s[j-1] != '\r') {
		return false
	}
	c := s[j]
	return c > ' ' && c < 0x7f
}

// tokensBefore returns the tokens of the text before UTF-16 offset end, or
// at least its last want of them as the whole prefix tokenizes.
func (r *Renderer) tokensBefore(end, want int) []int {
	for w := max(windowMinUnits, 8*(want+windowMargin)); ; w *= 2 {
		start := max(0, end-w)
		s := r.text.Substring(start, end)
		if start > 0 {
			j := 1
			for j < len(s) && !lineStart(s, j) {
				j++
			}
			if j == len(s) {
				continue // no line starts in the window
			}
			s = s[j:]
		}
		toks := r.tok.Encode(s)
		if start == 0 || len(toks) >= want+windowMargin {
			return toks
		}
	}
}

// tokensAfter returns the tokens of the text from UTF-16 offset start, or
// at least their first want as the whole suffix tokenizes.
func (r *Renderer) tokensAfter(start, want int) []int {
	n := r.text.Len16()
	for w := max(windowMinUnits, 8*(want+windowMargin)); ; w *= 2 {
		end := min(n, start+w)
		s := r.text.Substring(start, end)
		if end < n {
			j := len(s) - 1
			for j > 0 && !lineStart(s, j) {
				j--
			}
			if j == 0 {
				continue // no line starts in the window
			}
			s = s[:j]
		}
		toks := r.tok.Encode(s)
		if end == n || len(toks) >= want+windowMargin {
			return toks
		}
	}
}

func absInt(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
