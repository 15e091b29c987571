package render

import (
	"cmp"
	"math"
	"slices"
	"strings"

	"github.com/foliovec/folio/core/internal/docfields"
)

// Structured renders up to maxSections passages of at most maxTokens
// tokens each, chosen by the document's structure (Folio's rendering;
// Passages is the line-based one before it, Best is Vectra's):
//
//   - The text is cut into blocks that are never split: a heading (with
//     its underline), a fenced code block, a paragraph with the lines
//     indented below it (a list item's continuation, a reStructuredText
//     directive's body or literal block). Blocks under one heading, up to
//     the next, are a section; the blocks before the first heading are the
//     lead.
//   - The candidates are the sections that fit in maxTokens, and in a
//     longer section each run of its blocks that fits; a block longer than
//     maxTokens is cut at the last line that fits. Only the first section,
//     those a chunk the query found overlaps and those whose heading holds
//     a word of the query are candidates.
//   - Each candidate is scored by the query's meaning (the best score of
//     the document's chunks that the query found and that lie in it, as a
//     share of the document's best: the chunk vectors already hold the
//     meaning), by its words (each query word it holds weighs as a word
//     rare in the document's lines weighs, and the words of its headings
//     count apart, as a section's heading names what it is about), and a
//     little by its place (the first sections, where a page's synopsis and
//     description are).
//   - The best candidate grows by whole sections around it, the one before
//     first, while they fit: the usage line a description explains comes
//     with it. Passages never overlap; each starts and ends at whole lines.
//   - A passage's score is the best score of the query's chunks that lie
//     in it (its own, on the document's scale), or the lowest of them when
//     none does; its Headings are the headings above its first line.
//
// A document that fits in maxTokens is one passage, the whole text.
func (r *Renderer) Structured(chunks []*Chunk, query string, fields *docfields.Fields, maxTokens, maxSections int) []Section {
	s := r.text.String()
	out := []Section{}
	var placed []*Chunk
	for _, c := range chunks {
		if c.placed {
			placed = append(placed, c)
		}
	}
	if len(placed) == 0 || maxSections <= 0 {
		return out
	}
	if ws, we := trimBlankLines(s, 0, len(s)); len(s) <= 32*maxTokens && ws < we {
		if n := r.count(s[ws:we]); n <= maxTokens {
			return append(out, Section{Text: s[ws:we], TokenCount: n, Score: bestScore(placed, nil), IsBm25: bestChunk(placed).bm25})
		}
	}
	doc := r.structure(s, fields)
	doc.sampleAt, _ = r.text.Bytes(bestChunk(placed).start, bestChunk(placed).end+1)
	cands := doc.candidates(r, placed, query, maxTokens)
	if len(cands) == 0 {
		return out
	}
	doc.score(r, cands, placed, query, fields)
	slices.SortStableFunc(cands, func(a, b *candidate) int { return cmp.Compare(b.score, a.score) })
	var shown [][2]int
	for _, c := range cands {
		if len(out) == maxSections {
			break
		}
		if overlaps(shown, c.start, c.end) {
			continue
		}
		start, end := doc.grow(r, c, shown, maxTokens)
		start, end = trimBlankLines(s, start, end)
		if start >= end {
			continue
		}
		text := s[start:end]
		n := r.count(text)
		for n > maxTokens { // the blocks' estimates fell short: give back its last block
			e := doc.lastBlockEnd(start, end)
			if e <= start {
				_, end = r.linesWithin(start, end, maxTokens) // one block: its lines that fit
				end = min(end, len(s))
				text, n = s[start:end], r.count(s[start:end])
				break
			}
			end = e
			start, end = trimBlankLines(s, start, end)
			text, n = s[start:end], r.count(s[start:end])
		}
		if n > maxTokens { // a single word longer than the budget
			toks := r.tok.Encode(text)[:maxTokens]
			text, n = r.tok.Decode(toks), maxTokens
		}
		shown = append(shown, [2]int{start, end})
		in := r.chunksIn(placed, start, end)
		sec := Section{Text: text, TokenCount: n, Score: bestScore(in, placed)}
		if b := bestChunk(in); b != nil {
			sec.IsBm25 = b.bm25
		}
		if fields != nil {
			sec.Headings = strings.Join(fields.Path(r.text.Units(start)), HeadingSeparator)
		}
		out = append(out, sec)
	}
	return out
}

// block is a run of lines never split: [start, end) in bytes.
type block struct {
	start, end int
	heading    bool
}

// section is the blocks [first, end) of a document: a heading's and what
// follows it up to the next heading, or the lead.
type section struct {
	first, end int
	words      map[string]bool // the words of the headings above and of its own
}

// structure is a document cut into blocks and sections.
type structure struct {
	s        string
	blocks   []block
	sections []section
	of       []int // the section of each block
	tokens   []int // each block's tokens, -1 until tok estimates them
	r        *Renderer
	sampleAt int     // where perByte's sample starts, in bytes
	ratio    float64 // perByte's, once measured
}

// structure cuts s into blocks and sections, its headings those fields
// found (nil: none).
func (r *Renderer) structure(s string, fields *docfields.Fields) *structure {
	d := &structure{s: s, r: r}
	var heads []docfields.Heading
	if fields != nil {
		heads = fields.Headings
	}
	at := 0 // front matter describes the page (its fields) and is never shown
	if fields != nil {
		at = fields.Body
	}
	for _, h := range heads {
		if h.Byte < at || h.ByteEnd > len(s) || h.Level >= docfields.ObjectLevel {
			continue
		}
		d.blocks = append(d.blocks, textBlocks(s, at, h.Byte)...)
		d.blocks = append(d.blocks, block{start: h.Byte, end: h.ByteEnd, heading: true})
		at = h.ByteEnd
	}
	d.blocks = append(d.blocks, textBlocks(s, at, len(s))...)
	d.of = make([]int, len(d.blocks))
	d.tokens = make([]int, len(d.blocks))
	for i, b := range d.blocks {
		d.tokens[i] = -1 // estimated when needed (tok)
		if b.heading || len(d.sections) == 0 {
			sec := section{first: i, words: map[string]bool{}}
			if b.heading && fields != nil {
				for _, t := range fields.Path(r.text.Units(b.start)) {
					words(t, func(w string) { sec.words[w] = true })
				}
			}
			d.sections = append(d.sections, sec)
		}
		d.of[i] = len(d.sections) - 1
		d.sections[len(d.sections)-1].end = i + 1
	}
	d.bundleSynopses()
	return d
}

// synopsisHeadings are the headings (lower case) of a usage line's
// section: it is shown with the section after it, its description.
var synopsisHeadings = map[string]bool{"synopsis": true, "usage": true, "signature": true, "syntax": true}

// bundleSynopses joins each section headed by a synopsisHeadings heading
// to the section after it, so that a passage of the description can start
// at the usage line it describes.
func (d *structure) bundleSynopses() {
	for k := 0; k+1 < len(d.sections); k++ {
		sec := d.sections[k]
		b := d.blocks[sec.first]
		if !b.heading || !synopsisHeadings[headingWord(d.s[b.start:b.end])] {
			continue
		}
		next := d.sections[k+1]
		for w := range next.words {
			sec.words[w] = true
		}
		sec.end = next.end
		d.sections[k] = sec
		d.sections = slices.Delete(d.sections, k+1, k+2)
		for i := range d.of {
			if d.of[i] > k {
				d.of[i]--
			}
		}
	}
}

// headingWord is a heading block's text, lower case, without its marks.
func headingWord(h string) string {
	line, _, _ := strings.Cut(h, "\n")
	return strings.ToLower(strings.Trim(strings.TrimSpace(line), "#=-~*:` "))
}

// textBlocks cuts s[start:end] (whole lines, no heading) into blocks: a
// fenced code block whole; else a run of non-blank lines, with the blank
// and the more indented lines after it while the run goes on indented
// (list continuations, directive bodies, literal blocks).
func textBlocks(s string, start, end int) []block {
	var out []block
	i := start
	for i < end {
		j := lineEnd(s, i+1)
		line := s[i:min(j, end)]
		if strings.TrimSpace(line) == "" {
			i = j
			continue
		}
		b := block{start: i}
		if m := fenceOf(line); m != "" {
			k := j
			for k < end {
				n := lineEnd(s, k+1)
				if strings.HasPrefix(strings.TrimLeft(s[k:min(n, end)], " "), m) {
					k = n
					break
				}
				k = n
			}
			b.end = min(k, end)
			out = append(out, b)
			i = b.end
			continue
		}
		indent := indentOf(line)
		k := j
		for k < end {
			n := lineEnd(s, k+1)
			next := s[k:min(n, end)]
			if strings.TrimSpace(next) != "" {
				if fenceOf(next) != "" && indentOf(next) <= indent {
					break
				}
				k = n
				continue
			}
			// Blank lines: the block goes on past them when the next
			// non-blank line is indented further than its first.
			m := n
			for m < end && strings.TrimSpace(s[m:min(lineEnd(s, m+1), end)]) == "" {
				m = lineEnd(s, m+1)
			}
			if m >= end || indentOf(s[m:min(lineEnd(s, m+1), end)]) <= indent {
				break
			}
			k = m
		}
		b.end = min(k, end)
		out = append(out, b)
		i = b.end
	}
	return out
}

// fenceOf returns the fence a line opens (``` or ~~~), or "".
func fenceOf(line string) string {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 {
		return ""
	}
	for _, f := range []string{"```", "~~~"} {
		if strings.HasPrefix(t, f) {
			return f
		}
	}
	return ""
}

// indentOf is the width of a line's leading white space (a tab counts 4).
func indentOf(line string) int {
	n := 0
	for _, c := range line {
		switch c {
		case ' ':
			n++
		case '\t':
			n += 4
		default:
			return n
		}
	}
	return n
}

// candidate is a passage a query may be shown: blocks [first, end) of one
// section, or part of a block too long for the budget ([start, end)
// bytes), with its score.
type candidate struct {
	first, end  int
	start, endB int
	whole       bool // the whole section
	score       float64
}

// candidates are the passages of at most maxTokens tokens Structured
// chooses among.
func (d *structure) candidates(r *Renderer, chunks []*Chunk, query string, maxTokens int) []*candidate {
	asked := map[string]bool{}
	words(query, func(w string) { asked[w] = true })
	named := func(sec section) bool { // its own heading holds a query word
		b := d.blocks[sec.first]
		if !b.heading {
			return false
		}
		hit := false
		words(d.s[b.start:b.end], func(w string) { hit = hit || asked[w] })
		return hit
	}
	// Where the query's chunks lie, in bytes: a run of blocks is a
	// candidate only where one is near its start (reach bytes hold more
	// than maxTokens tokens of any text but the oddest), so that a long
	// page's blocks are counted only around what the query found.
	spans := make([][2]int, len(chunks))
	for k, c := range chunks {
		cs, ce := r.text.Bytes(c.start, c.end+1)
		spans[k] = [2]int{cs, ce}
	}
	reach := 8 * maxTokens
	near := func(start int) bool {
		for _, sp := range spans {
			if sp[1] > start && sp[0] < start+reach {
				return true
			}
		}
		return false
	}
	var out []*candidate
	for k, sec := range d.sections {
		if k > 0 && !named(sec) && !slices.ContainsFunc(spans, func(sp [2]int) bool {
			return sp[0] < d.blocks[sec.end-1].end && sp[1] > d.blocks[sec.first].start
		}) {
			continue // no chunk the query found overlaps it, and its heading is none of the query's words
		}
		total := 0
		for i := sec.first; i < sec.end && total <= maxTokens; i++ {
			total += d.tok(i)
		}
		if total <= maxTokens {
			out = append(out, d.cand(sec.first, sec.end, true))
			continue
		}
		for i := sec.first; i < sec.end; i++ {
			if i > sec.first && !near(d.blocks[i].start) {
				continue
			}
			if i == sec.first+1 && d.blocks[sec.first].heading && d.tok(sec.first)+d.tok(i) <= maxTokens {
				continue // the run from the heading starts with this block
			}
			if d.tok(i) > maxTokens {
				b, first := d.blocks[i], i
				if i == sec.first+1 && d.blocks[sec.first].heading {
					first = sec.first // the block's first lines, under their heading
				}
				ls, le := r.linesWithin(d.blocks[first].start, b.end, maxTokens)
				out = append(out, &candidate{first: first, end: i + 1, start: ls, endB: le})
				continue
			}
			n, j := 0, i
			for j < sec.end && n+d.tok(j) <= maxTokens {
				n += d.tok(j)
				j++
			}
			out = append(out, d.cand(i, j, false))
		}
	}
	return out
}

func (d *structure) cand(first, end int, whole bool) *candidate {
	return &candidate{first: first, end: end, start: d.blocks[first].start, endB: d.blocks[end-1].end, whole: whole}
}

// linesWithin returns the most whole lines of [start, end) from its start
// that fit in maxTokens (the first line alone when none does).
func (r *Renderer) linesWithin(start, end, maxTokens int) (int, int) {
	s := r.text.String()
	le := lineEnd(s, start+1)
	used := r.count(s[start:min(le, end)])
	for le < end {
		n := min(lineEnd(s, le+1), end)
		c := r.count(s[le:n])
		if used+c > maxTokens {
			break
		}
		used += c
		le = n
	}
	return start, min(le, end)
}

// The weights of a candidate's measures in its score (meaning, words of
// its text, words of its headings, place), measured on make eval's corpora
// of Go's documentation (the development set).
const (
	weightMeaning  = 1.0
	weightWords    = 0.6
	weightHeadings = 0.5
	weightPlace    = 0.15
	// weightNamed is the first section's bonus when the query names the
	// document, times the square of the share of the query's word weight
	// in its title, description and name: a query that is a page's name
	// asks for the page, and its top (synopsis, description) says what
	// the page is; one that shares a word with the name, much less so.
	weightNamed = 1.5
)

// score sets each candidate's score for query, from the query's chunks of
// the document.
func (d *structure) score(r *Renderer, cands []*candidate, chunks []*Chunk, query string, fields *docfields.Fields) {
	f := newFocus(d.s, query)
	named := 0.0 // the share of the query's weight in the document's names
	if f != nil && fields != nil {
		in := map[string]bool{}
		words(fields.Title+" "+fields.Description+" "+fields.Name, func(w string) { in[w] = true })
		total, hit := 0.0, 0.0
		for w, wt := range f.weight {
			total += wt
			if in[w] {
				hit += wt
			}
		}
		if total > 0 {
			named = hit / total
		}
	}
	top := 0.0
	for _, c := range chunks {
		top = max(top, c.score)
	}
	type measures struct{ meaning, words, heads float64 }
	ms := make([]measures, len(cands))
	var maxWords, maxHeads float64
	for k, c := range cands {
		m := &ms[k]
		for _, ch := range r.chunksOver(chunks, c.start, c.endB) {
			if top > 0 {
				m.meaning = max(m.meaning, ch.score/top)
			}
		}
		if f != nil {
			tf := map[string]int{}
			words(d.s[c.start:c.endB], func(w string) {
				if _, ok := f.weight[w]; ok {
					tf[w]++
				}
			})
			for w, n := range tf {
				m.words += f.weight[w] * (1 + math.Log(float64(n)))
			}
			for w := range d.sections[d.of[c.first]].words {
				m.heads += f.weight[w]
			}
		}
		maxWords, maxHeads = max(maxWords, m.words), max(maxHeads, m.heads)
	}
	for k, c := range cands {
		m := ms[k]
		score := weightMeaning * m.meaning
		if maxWords > 0 {
			score += weightWords * m.words / maxWords
		}
		if maxHeads > 0 {
			score += weightHeadings * m.heads / maxHeads
		}
		place := 1 / float64(1+d.of[c.first])
		score += weightPlace*place + weightNamed*named*named*place
		c.score = score
	}
}

// grow widens candidate c by whole sections around it, the one before
// first, then after, in turn, while they fit in maxTokens and overlap no
// passage shown; a candidate within a section grows by the blocks around
// it likewise. It returns the byte range.
func (d *structure) grow(r *Renderer, c *candidate, shown [][2]int, maxTokens int) (int, int) {
	if !c.whole {
		return c.start, c.endB
	}
	first, end := c.first, c.end
	used := 0
	for i := first; i < end; i++ {
		used += d.tok(i)
	}
	before, after := d.of[first] > 0, d.of[end-1]+1 < len(d.sections)
	for before || after {
		if before {
			sec := d.sections[d.of[first]-1]
			n := d.span(sec.first, sec.end)
			if used+n <= maxTokens && !overlaps(shown, d.blocks[sec.first].start, d.blocks[first].start) {
				first, used = sec.first, used+n
				before = d.of[first] > 0
			} else {
				before = false
			}
		}
		if after {
			sec := d.sections[d.of[end-1]+1]
			n := d.span(sec.first, sec.end)
			if used+n <= maxTokens && !overlaps(shown, d.blocks[end-1].end, d.blocks[sec.end-1].end) {
				end, used = sec.end, used+n
				after = d.of[end-1]+1 < len(d.sections)
			} else {
				after = false
			}
		}
	}
	// Then the first blocks of the section after, while they fit: what
	// follows a heading or a usage line is what explains it.
	whole := end
	for end < len(d.blocks) && used+d.tok(end) <= maxTokens && !overlaps(shown, d.blocks[end-1].end, d.blocks[end].end) {
		used += d.tok(end)
		end++
	}
	// Blocks counted apart can tokenize to a little more together: give
	// back blocks after, then sections, the outermost first, until the
	// whole fits.
	for (first < c.first || end > c.end) && r.count(d.s[d.blocks[first].start:d.blocks[end-1].end]) > maxTokens {
		switch {
		case end > whole:
			end--
		case end > c.end:
			end = d.sections[d.of[end-1]].first
		default:
			first = d.sections[d.of[first]].end
		}
	}
	return d.blocks[first].start, d.blocks[end-1].end
}

// tok is block i's tokens, estimated from its length and the tokens per
// byte of a sample of the document's text near what the query found:
// counting every block of a long page would be most of a passage's cost.
// The passage chosen is counted exactly, and gives back blocks when the
// estimates fell short.
func (d *structure) tok(i int) int {
	if d.tokens[i] < 0 {
		b := d.blocks[i]
		d.tokens[i] = int(math.Ceil(float64(b.end-b.start) * d.perByte()))
	}
	return d.tokens[i]
}

// lastBlockEnd is the end of the last block that ends inside (start,
// end) short of end: where a passage [start, end) ends without its last
// block; start or less when it is one block.
func (d *structure) lastBlockEnd(start, end int) int {
	i, _ := slices.BinarySearchFunc(d.blocks, end, func(b block, e int) int { return cmp.Compare(b.end, e) })
	for i--; i >= 0; i-- {
		if d.blocks[i].end < end {
			return d.blocks[i].end
		}
	}
	return start
}

// sampleBytes is the length of the text perByte samples.
const sampleBytes = 4096

// perByte is tokens per byte of the text, measured once on sampleBytes
// around d.sampleAt.
func (d *structure) perByte() float64 {
	if d.ratio == 0 {
		start := lineBegin(d.s, max(0, min(d.sampleAt, len(d.s)-sampleBytes)))
		end := min(len(d.s), lineEnd(d.s, start+sampleBytes))
		if n := d.r.count(d.s[start:end]); end > start && n > 0 {
			d.ratio = float64(n) / float64(end-start)
		} else {
			d.ratio = 1 // a byte a token: the most o200k_base makes
		}
	}
	return d.ratio
}

// span is the tokens of blocks [first, end).
func (d *structure) span(first, end int) int {
	n := 0
	for i := first; i < end; i++ {
		n += d.tok(i)
	}
	return n
}

// chunksIn returns the chunks whose middle lies in bytes [start, end).
func (r *Renderer) chunksIn(chunks []*Chunk, start, end int) []*Chunk {
	var out []*Chunk
	for _, c := range chunks {
		cs, ce := r.text.Bytes(c.start, c.end+1)
		if mid := (cs + ce) / 2; mid >= start && mid < end || cs < end && ce > start && ce-cs > end-start {
			out = append(out, c)
		}
	}
	return out
}

// bestChunk is the chunk of chunks with the highest score, nil for none.
func bestChunk(chunks []*Chunk) *Chunk {
	var best *Chunk
	for _, c := range chunks {
		if best == nil || c.score > best.score {
			best = c
		}
	}
	return best
}

// bestScore is the highest score of in, or the lowest of all when in is
// empty.
func bestScore(in, all []*Chunk) float64 {
	if b := bestChunk(in); b != nil {
		return b.score
	}
	low := math.Inf(1)
	for _, c := range all {
		low = min(low, c.score)
	}
	if math.IsInf(low, 1) {
		return 0
	}
	return low
}

// overlaps reports whether [start, end) overlaps a range of shown.
func overlaps(shown [][2]int, start, end int) bool {
	for _, p := range shown {
		if start < p[1] && p[0] < end {
			return true
		}
	}
	return false
}

// chunksOver returns the chunks that overlap bytes [start, end).
func (r *Renderer) chunksOver(chunks []*Chunk, start, end int) []*Chunk {
	var out []*Chunk
	for _, c := range chunks {
		if cs, ce := r.text.Bytes(c.start, c.end+1); cs < end && ce > start {
			out = append(out, c)
		}
	}
	return out
}
