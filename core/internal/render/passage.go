package render

import (
	"cmp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Passages renders up to maxSections passages of at most maxTokens tokens
// each, Folio's rendering (Best is Vectra's):
//
//   - Each passage starts from a seed (see seeds): the lines of one of the
//     best chunks that best match the query's words, or the chunk itself.
//     A seed whose middle lies in an earlier passage starts none.
//   - A passage is cut out of the document's text, never assembled from
//     chunk texts: it starts at the beginning of a line and ends at the end
//     of one, so no separator a splitter dropped goes missing and no
//     connector is needed. It grows by whole lines, one before and one after
//     in turn, while they fit in maxTokens; a direction whose next line does
//     not fit stops growing, and it grows up to a Markdown heading and no
//     further (the lines of a seed that match the query start at their
//     heading, if they hold one). Passages do not overlap.
//   - When the starting lines do not fit, the passage is the most of the
//     lines that fits, cut at white space (at tokens only for a single word
//     longer than maxTokens).
//   - A passage's score is its chunk's score, so it reads on the scale of
//     the document's score; it is BM25 when its chunk is.
//
// A document that fits in maxTokens is one passage, the whole text. Blank
// lines at either end are left out. Unplaced chunks render nothing.
func (r *Renderer) Passages(chunks []*Chunk, query string, maxTokens, maxSections int) []Section {
	s := r.text.String()
	seeds := r.seeds(chunks, query)
	out := []Section{}
	if len(seeds) == 0 {
		return out
	}
	// A document that fits is one passage, the whole text. (A token is
	// rarely over 32 bytes: a longer text is not tokenized to find out.)
	if ws, we := trimBlankLines(s, 0, len(s)); len(s) <= 32*maxTokens {
		if n := r.count(s[ws:we]); n <= maxTokens && ws < we {
			c := seeds[0].chunk
			return append(out, Section{Text: s[ws:we], TokenCount: n, Score: c.score, IsBm25: c.bm25})
		}
	}
	var shown [][2]int // byte ranges of the passages so far
	for _, sd := range seeds {
		if len(out) == maxSections {
			break
		}
		start, end := sd.start, sd.end
		mid := (start + end) / 2
		lo, hi := 0, len(s) // the room left between earlier passages
		inside := false
		for _, p := range shown {
			switch {
			case p[0] <= mid && mid < p[1]:
				inside = true
			case p[1] <= mid:
				lo = max(lo, p[1])
			default:
				hi = min(hi, p[0])
			}
		}
		if inside {
			continue
		}
		start, end = max(start, lo), min(end, hi)
		ps, pe := r.passage(start, end, lo, hi, maxTokens, sd.focused)
		ps, pe = trimBlankLines(s, ps, pe)
		if ps >= pe {
			continue
		}
		text := s[ps:pe]
		n := len(r.tok.Encode(text))
		if n > maxTokens { // a single word longer than the budget
			toks := r.tok.Encode(text)[:maxTokens]
			text, n = r.tok.Decode(toks), maxTokens
		}
		shown = append(shown, [2]int{ps, pe})
		out = append(out, Section{Text: text, TokenCount: n, Score: sd.chunk.score, IsBm25: sd.chunk.bm25})
	}
	return out
}

// seed is where a passage starts from: a byte range of the text and the
// chunk it lies in.
type seed struct {
	start, end int
	chunk      *Chunk
	focused    bool // the lines of the chunk that match the query best
}

// seeds returns the places passages start from, the first first: the
// placed chunks by score, highest first, or, when the query has words, the
// lines of each chunk that best match them (focus.best), ordered by how
// well they match weighed by their chunk's rank i (from 0) as 60/(60+i),
// the shape of reciprocal rank fusion; chunks without a matching line
// follow, by score.
func (r *Renderer) seeds(chunks []*Chunk, query string) []seed {
	ranked := make([]*Chunk, 0, len(chunks))
	for _, c := range chunks {
		if c.placed {
			ranked = append(ranked, c)
		}
	}
	slices.SortStableFunc(ranked, func(a, b *Chunk) int { return cmp.Compare(b.score, a.score) })
	s := r.text.String()
	var f *focus
	if query != "" && len(ranked) > 0 {
		f = newFocus(s, query)
	}
	type weighed struct {
		seed
		key float64
	}
	var focused, rest []weighed
	for i, c := range ranked {
		start, end := r.text.Bytes(c.start, c.end+1)
		if start >= end {
			continue
		}
		if f != nil {
			if fs, fe, score := f.best(s, start, end); score > 0 {
				focused = append(focused, weighed{seed{fs, fe, c, true}, score * 60 / float64(60+i)})
				continue
			}
		}
		rest = append(rest, weighed{seed: seed{start, end, c, false}})
	}
	slices.SortStableFunc(focused, func(a, b weighed) int { return cmp.Compare(b.key, a.key) })
	out := make([]seed, 0, len(focused)+len(rest))
	for _, w := range append(focused, rest...) {
		out = append(out, w.seed)
	}
	return out
}

// passage returns the byte range of the passage around the starting lines at
// [start, end), inside [lo, hi).
func (r *Renderer) passage(start, end, lo, hi, maxTokens int, focused bool) (int, int) {
	s := r.text.String()
	ls, le := max(lineBegin(s, start), lo), min(lineEnd(s, end), hi)
	if focused {
		// The lines that match start at their heading, if they hold one.
		for i := ls; i < le; i = lineEnd(s, i+1) {
			if isHeading(lineAt(s, i)) {
				ls = i
				break
			}
		}
	}
	ls0, le0 := ls, le
	used := r.count(s[ls:le])
	if used > maxTokens {
		return r.within(start, end, maxTokens)
	}
	// A passage grows up to a heading and no further: the heading starts
	// the section the passage is about.
	before, after := ls > lo && !isHeading(lineAt(s, ls)), le < hi
	for before || after {
		if before {
			pls := max(lineBegin(s, ls-1), lo)
			if n := r.count(s[pls:ls]); used+n <= maxTokens {
				ls, used = pls, used+n
				before = ls > lo && !isHeading(s[pls:ls])
			} else {
				before = false
			}
		}
		if after {
			ple := min(lineEnd(s, le+1), hi)
			if n := r.count(s[le:ple]); used+n <= maxTokens {
				le, used = ple, used+n
				after = le < hi
			} else {
				after = false
			}
		}
	}
	// Lines counted apart can tokenize to a little more together: give
	// back lines, the outermost first, until the whole fits.
	for ls < ls0 || le > le0 {
		if r.count(s[ls:le]) <= maxTokens {
			break
		}
		if le-le0 >= ls0-ls && le > le0 {
			le = max(le0, lineBegin(s, le-1))
		} else {
			ls = min(ls0, lineEnd(s, ls+1))
		}
	}
	return ls, le
}

// within returns the most of [start, end) that fits in maxTokens from its
// start, both ends at white space where the text has some.
func (r *Renderer) within(start, end, maxTokens int) (int, int) {
	s := r.text.String()
	for start > 0 && !isSpaceBefore(s, start) {
		start-- // back to the start of the word the chunk starts in
	}
	// The longest prefix ending at white space that fits.
	cuts := []int{}
	for i := start + 1; i < end; i++ {
		if isSpaceBefore(s, i) && !isSpaceBefore(s, i-1) {
			cuts = append(cuts, i)
		}
	}
	best := -1
	lo, hi := 0, len(cuts)-1
	for lo <= hi {
		m := (lo + hi) / 2
		if r.count(s[start:cuts[m]]) <= maxTokens {
			best, lo = m, m+1
		} else {
			hi = m - 1
		}
	}
	if best < 0 {
		return start, end // one long word: Passages cuts it at tokens
	}
	return start, cuts[best]
}

func (r *Renderer) count(s string) int { return len(r.tok.Encode(s)) }

// lineAt returns the line that starts at byte i of s.
func lineAt(s string, i int) string { return s[i:lineEnd(s, i+1)] }

// isSpaceBefore reports whether the character before byte i of s is white
// space (false at the start of s).
func isSpaceBefore(s string, i int) bool {
	c, _ := utf8.DecodeLastRuneInString(s[:i])
	return i > 0 && unicode.IsSpace(c)
}

// lineBegin is the byte offset of the start of the line holding byte i.
func lineBegin(s string, i int) int {
	i = min(max(i, 0), len(s))
	return strings.LastIndexByte(s[:i], '\n') + 1
}

// lineEnd is the byte offset just past the line holding byte i's end: the
// line break that ends it included, or len(s).
func lineEnd(s string, i int) int {
	i = min(max(i, 0), len(s))
	if i > 0 && s[i-1] == '\n' {
		return i // i already ends a line
	}
	if j := strings.IndexByte(s[i:], '\n'); j >= 0 {
		return i + j + 1
	}
	return len(s)
}

// trimBlankLines leaves out the blank lines at either end of s[start:end],
// and the white space that ends it.
func trimBlankLines(s string, start, end int) (int, int) {
	for start < end {
		nl := strings.IndexByte(s[start:end], '\n')
		if nl < 0 || strings.TrimSpace(s[start:start+nl]) != "" {
			break
		}
		start += nl + 1
	}
	for end > start {
		c, size := utf8.DecodeLastRuneInString(s[start:end])
		if !unicode.IsSpace(c) {
			break
		}
		end -= size
	}
	return start, end
}
