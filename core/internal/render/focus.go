package render

import (
	"math"
	"strings"
	"unicode"

	"github.com/foliovec/folio/core/internal/bm25"
)

// focus finds the lines of a document that best match a query's words,
// so that a passage cut from a chunk longer than its budget shows the part
// of the chunk the query is about rather than its first lines.
//
// Words are runs of letters and digits, also split where a lower-case
// letter meets an upper-case one or a digit (OnesCount64 is "ones", "count"
// and "64"), lowercased, English stop words out, ASCII words stemmed as
// keyword search stems them. A query word weighs log(1 + lines / (1 +
// lines holding it)) over the document's lines, so a word found on every
// line counts for little.
type focus struct {
	weight map[string]float64 // query word → weight
}

// newFocus returns the focus of query over text, or nil when the query
// has no words.
func newFocus(text, query string) *focus {
	q := map[string]float64{}
	words(query, func(w string) { q[w] = 0 })
	if len(q) == 0 {
		return nil
	}
	lines := 0
	df := map[string]int{}
	for line := range strings.Lines(text) {
		lines++
		seen := map[string]bool{}
		words(line, func(w string) {
			if _, ok := q[w]; ok && !seen[w] {
				seen[w] = true
				df[w]++
			}
		})
	}
	for w := range q {
		q[w] = math.Log(1 + float64(lines)/float64(1+df[w]))
	}
	return &focus{weight: q}
}

// best returns the byte range of the three whole lines, among those
// [start, end) of s touches, whose query words weigh the most together
// (each word once, at its highest weight there), and that weight: 0 when
// no line there holds one.
func (f *focus) best(s string, start, end int) (int, int, float64) {
	type line struct {
		start, end int
		words      map[string]bool
		title      bool
	}
	var ls []line
	for i := lineBegin(s, start); i < end; {
		j := lineEnd(s, i+1)
		l := line{start: i, end: j, words: map[string]bool{}, title: isTitle(s[i:j])}
		words(s[i:j], func(w string) {
			if _, ok := f.weight[w]; ok {
				l.words[w] = true
			}
		})
		ls = append(ls, l)
		i = j
	}
	bestScore, at := 0.0, -1
	for i := range ls {
		lo, hi := max(0, i-1), min(len(ls), i+2)
		covered := map[string]float64{} // word → its weight here
		for _, l := range ls[lo:hi] {
			for w := range l.words {
				wt := f.weight[w]
				if l.title {
					wt *= 2
				}
				covered[w] = max(covered[w], wt)
			}
		}
		score := 0.0
		for _, wt := range covered {
			score += wt
		}
		if score > bestScore {
			bestScore, at = score, i
		}
	}
	if at < 0 {
		return 0, 0, 0
	}
	return ls[max(0, at-1)].start, ls[min(len(ls)-1, at+1)].end, bestScore
}

// isTitle reports whether line names what follows it: a Markdown heading
// (isHeading), or a declaration at the start of a line (func, type, class,
// def and the like).
func isTitle(line string) bool {
	if isHeading(line) {
		return true
	}
	for _, kw := range []string{"func ", "type ", "class ", "def ", "fn ", "pub fn ", "function ", "interface ", "struct ", "enum ", "impl "} {
		if strings.HasPrefix(line, kw) {
			return true
		}
	}
	return false
}

// isHeading reports whether line is a Markdown heading: one to six # and a
// space.
func isHeading(line string) bool {
	t := strings.TrimLeft(line, "#")
	return len(line)-len(t) >= 1 && len(line)-len(t) <= 6 && strings.HasPrefix(t, " ")
}

// words calls fn with each word of text, as focus counts them.
func words(text string, fn func(w string)) {
	start := -1
	var prev rune
	flush := func(end int) {
		if start < 0 {
			return
		}
		w := strings.ToLower(text[start:end])
		start = -1
		if bm25.IsStopWord(w) {
			return
		}
		if isLowerASCII(w) {
			w = bm25.Stem(w)
		}
		fn(w)
	}
	for i, r := range text {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush(i)
			prev = r
			continue
		}
		if start >= 0 && (unicode.IsLower(prev) && (unicode.IsUpper(r) || unicode.IsDigit(r)) || unicode.IsDigit(prev) && unicode.IsLetter(r)) {
			flush(i)
		}
		if start < 0 {
			start = i
		}
		prev = r
	}
	flush(len(text))
}

func isLowerASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'a' || s[i] > 'z' {
			return false
		}
	}
	return true
}
