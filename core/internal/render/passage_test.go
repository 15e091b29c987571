package render

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/foliovec/folio/core/internal/testtok"
)

// at returns the inclusive UTF-16 span of the first occurrence of part in
// doc.
func at(t *testing.T, doc, part string) (int, int) {
	t.Helper()
	i := strings.Index(doc, part)
	if i < 0 {
		t.Fatalf("%q is not in the document", part)
	}
	start := len(utf16.Encode([]rune(doc[:i])))
	return start, start + len(utf16.Encode([]rune(part))) - 1
}

func placed(t *testing.T, doc, part string, score float64) *Chunk {
	s, e := at(t, doc, part)
	return NewChunk(s, e, true, score, false)
}

const passageDoc = `# Title

Some introduction that says nothing much.

## Running tests

Run every test with the race detector:

    go test -race ./...

That takes a while.

## Deploying

Copy the binary to the server and start it.
`

// A passage is whole lines around its chunk, grown both ways while they
// fit, so the heading above comes with it.
func TestPassageIsWholeLinesAroundTheChunk(t *testing.T) {
	tok := testtok.Char{}
	rd := New(NewText(passageDoc), tok)
	// The chunk starts and ends inside lines, as a splitter's often do.
	c := placed(t, passageDoc, "the race detector:\n\n    go test -ra", 0.03)
	got := rd.Passages([]*Chunk{c}, "", 110, 1)
	want := "## Running tests\n\nRun every test with the race detector:\n\n    go test -race ./...\n\nThat takes a while."
	if len(got) != 1 || got[0].Text != want {
		t.Fatalf("Passages = %+v\nwant one passage %q", got, want)
	}
	if got[0].TokenCount != len(tok.Encode(want)) || got[0].Score != 0.03 || got[0].IsBm25 {
		t.Errorf("passage = %+v, want %d tokens, score 0.03, not BM25", got[0], len(tok.Encode(want)))
	}
}

// The passages follow the chunks' scores, not their places; a chunk inside
// an earlier passage starts none, and passages do not overlap.
func TestPassagesFollowTheScoresAndDoNotOverlap(t *testing.T) {
	tok := testtok.Char{}
	rd := New(NewText(passageDoc), tok)
	chunks := []*Chunk{
		placed(t, passageDoc, "Some introduction", 0.01),
		placed(t, passageDoc, "Copy the binary", 0.05),
		placed(t, passageDoc, "to the server", 0.04), // inside the first passage
		placed(t, passageDoc, "go test -race", 0.02),
	}
	got := rd.Passages(chunks, "", 60, 3)
	if len(got) != 3 {
		t.Fatalf("Passages = %+v, want 3", got)
	}
	if got[0].Score != 0.05 || !strings.Contains(got[0].Text, "Copy the binary") {
		t.Errorf("first passage = %+v, want the one around the best chunk", got[0])
	}
	if got[1].Score != 0.02 || !strings.Contains(got[1].Text, "go test -race") {
		t.Errorf("second passage = %+v, want the one around the second-best chunk outside the first", got[1])
	}
	if got[2].Score != 0.01 {
		t.Errorf("third passage = %+v", got[2])
	}
	seen := map[int]bool{}
	for _, p := range got {
		i := strings.Index(passageDoc, p.Text)
		if i < 0 {
			t.Fatalf("passage %q is not a piece of the document", p.Text)
		}
		for j := i; j < i+len(p.Text); j++ {
			if seen[j] {
				t.Fatalf("passages overlap at byte %d: %+v", j, got)
			}
			seen[j] = true
		}
		if p.TokenCount > 60 {
			t.Errorf("passage of %d tokens over a budget of 60", p.TokenCount)
		}
	}
}

// A document that fits is one passage, the whole text less the blank lines
// and white space at its ends.
func TestPassageOfADocumentThatFitsIsTheWholeText(t *testing.T) {
	tok := testtok.Char{}
	rd := New(NewText(passageDoc), tok)
	got := rd.Passages([]*Chunk{placed(t, passageDoc, "Deploying", 0.5), placed(t, passageDoc, "Title", 0.1)}, "", 1000, 2)
	if len(got) != 1 || got[0].Text != strings.TrimSpace(passageDoc) || got[0].Score != 0.5 {
		t.Fatalf("Passages = %+v, want the whole text once, scored 0.5", got)
	}
}

// When the chunk's lines do not fit, the passage is the most of the chunk
// that does, cut at white space, never inside a word.
func TestPassageInALongLineIsCutAtWhiteSpace(t *testing.T) {
	words := strings.Fields(strings.Repeat("alpha beta gamma delta epsilon zeta eta theta ", 30))
	doc := strings.Join(words, " ") // one line
	tok := &wordTok{ids: map[string]int{}}
	rd := New(NewText(doc), tok)
	s, _ := at(t, doc, "gamma delta epsilon")
	c := NewChunk(s+2, s+400, true, 0.7, true) // starts inside "gamma"
	got := rd.Passages([]*Chunk{c}, "", 25, 1)
	if len(got) != 1 {
		t.Fatalf("Passages = %+v", got)
	}
	p := got[0]
	if !strings.HasPrefix(p.Text, "gamma delta") {
		t.Errorf("passage starts %q, want the whole word the chunk starts in", p.Text[:min(20, len(p.Text))])
	}
	if !strings.Contains(doc, p.Text) || strings.HasSuffix(p.Text, " ") {
		t.Fatalf("passage %q is not the document cut at white space", p.Text)
	}
	end := strings.Index(doc, p.Text) + len(p.Text)
	if end < len(doc) && doc[end] != ' ' {
		t.Errorf("passage ends inside a word: %q|%q", p.Text[len(p.Text)-10:], doc[end:end+10])
	}
	if p.TokenCount > 25 || p.TokenCount < 20 || !p.IsBm25 {
		t.Errorf("passage = %d tokens, BM25 %v; want 20 to 25 of a budget of 25, BM25", p.TokenCount, p.IsBm25)
	}
}

// A single word longer than the budget is cut at tokens.
func TestPassageOfOneLongWordIsCutAtTokens(t *testing.T) {
	doc := strings.Repeat("x", 100)
	rd := New(NewText(doc), testtok.Char{})
	got := rd.Passages([]*Chunk{NewChunk(10, 60, true, 1, false)}, "", 8, 1)
	if len(got) != 1 || got[0].Text != "xxxxxxxx" || got[0].TokenCount != 8 {
		t.Fatalf("Passages = %+v, want 8 tokens of the word", got)
	}
}

// Positions are UTF-16 offsets, as Vectra's are: text before the chunk
// outside the Basic Multilingual Plane does not shift the passage.
func TestPassagesReadUTF16Positions(t *testing.T) {
	doc := "📚📚 books\nnothing here\nthe answer is 42\n"
	rd := New(NewText(doc), testtok.Char{})
	got := rd.Passages([]*Chunk{placed(t, doc, "answer", 1)}, "", 17, 1)
	if len(got) != 1 || got[0].Text != "the answer is 42" {
		t.Fatalf("Passages = %+v, want the answer's line", got)
	}
	if got := rd.Passages([]*Chunk{NewChunk(0, 3, false, 1, false)}, "", 16, 1); len(got) != 0 {
		t.Errorf("an unplaced chunk rendered %+v", got)
	}
}

func FuzzPassages(f *testing.F) {
	f.Add("0123 456\n789 abcdef 📚 é\n\nxyz", "abcdef xyz", []byte{0, 5, 50, 3, 9, 200, 12, 4, 7}, uint8(8), uint8(2))
	f.Add("", "", []byte{}, uint8(1), uint8(0))
	f.Add("a\n\n\nb", "b", []byte{0, 0, 255, 3, 9, 1}, uint8(0), uint8(3))
	f.Fuzz(func(t *testing.T, doc, query string, spans []byte, maxTokens, maxSections uint8) {
		doc = strings.ToValidUTF8(doc, "?")
		n16 := len(utf16.Encode([]rune(doc)))
		var chunks []*Chunk
		for i := 0; i+2 < len(spans) && len(chunks) < 20; i += 3 {
			a := int(spans[i]) % (n16 + 1)
			chunks = append(chunks, NewChunk(a, a+int(spans[i+1])%32, true, float64(spans[i+2])/200, false))
		}
		tok := &wordTok{ids: map[string]int{}}
		mt, ms := int(maxTokens)%64+1, int(maxSections)%4+1
		got := New(NewText(doc), tok).Passages(chunks, query, mt, ms)
		if len(got) > ms {
			t.Fatalf("%d passages, want at most %d", len(got), ms)
		}
		scores := map[float64]bool{}
		for _, c := range chunks {
			scores[c.score] = true
		}
		for _, p := range got {
			if p.TokenCount > mt || p.TokenCount != len(tok.Encode(p.Text)) {
				t.Fatalf("passage %q: TokenCount %d, %d tokens, budget %d", p.Text, p.TokenCount, len(tok.Encode(p.Text)), mt)
			}
			if !scores[p.Score] {
				t.Fatalf("passage scored %v, no chunk's score", p.Score)
			}
		}
	})
}

// In a chunk longer than the budget, the passage shows the lines whose
// words the query asks about, not the chunk's first lines.
func TestPassageFocusesOnTheQueryWords(t *testing.T) {
	var b strings.Builder
	for i := range 40 {
		fmt.Fprintf(&b, "// filler line %d about nothing in particular\n", i)
	}
	b.WriteString("// Grow grows the builder's capacity to guarantee space for n more bytes.\nfunc (b *Builder) Grow(n int) {\n")
	for i := range 40 {
		fmt.Fprintf(&b, "\tfiller(%d)\n", i)
	}
	b.WriteString("}\n")
	doc := b.String()
	tok := &wordTok{ids: map[string]int{}}
	rd := New(NewText(doc), tok)
	whole := NewChunk(0, len(doc)-1, true, 0.02, false)
	got := rd.Passages([]*Chunk{whole}, "reserve capacity in a string builder", 120, 1)
	if len(got) != 1 || !strings.Contains(got[0].Text, "func (b *Builder) Grow(n int) {") {
		t.Fatalf("Passages = %+v, want the lines about capacity", got)
	}
	if !strings.HasPrefix(got[0].Text, "//") && !strings.HasPrefix(got[0].Text, "\t") {
		t.Errorf("passage starts mid-line: %q", got[0].Text[:20])
	}
	// Without a query, the passage is the chunk's start.
	got = rd.Passages([]*Chunk{whole}, "", 120, 1)
	if len(got) != 1 || !strings.HasPrefix(got[0].Text, "// filler line 0 ") {
		t.Fatalf("Passages without a query = %+v, want the chunk's first lines", got)
	}
}

// The lines that match the query's words best lead, weighed by their
// chunk's rank: the second-best chunk's exact match comes before the best
// chunk's lines that match nothing.
func TestPassagesLeadWithTheBestMatchingLines(t *testing.T) {
	doc := "intro words here\nmore intro\n\nOnesCount64 returns the number of one bits (population count).\n"
	rd := New(NewText(doc), testtok.Char{})
	first := placed(t, doc, "intro words here\nmore intro", 0.5)
	second := placed(t, doc, "OnesCount64 returns", 0.4)
	got := rd.Passages([]*Chunk{first, second}, "count the bits set", 70, 2)
	if len(got) != 2 || !strings.HasPrefix(got[0].Text, "OnesCount64") || got[0].Score != 0.4 {
		t.Fatalf("Passages = %+v, want the population count line first, scored as its chunk", got)
	}
}

// Words split at case and digit changes, lowercased, stop words out,
// stemmed, as keyword search stems them.
func TestFocusWords(t *testing.T) {
	var got []string
	words("OnesCount64 counts the HTTPServer's bits", func(w string) { got = append(got, w) })
	want := []string{"on", "count", "64", "count", "httpserver", "bit"}
	if !slices.Equal(got, want) {
		t.Errorf("words = %q, want %q", got, want)
	}
}

// A passage grows up to a Markdown heading and no further, and the lines
// that match a query start at the heading they hold.
func TestPassageStartsAtItsHeading(t *testing.T) {
	doc := "The end of an unrelated section, which goes on\nfor a few lines\nand more.\n\n### Several processes on one folder\n\nA watcher feeding a folder is safe.\nEvery commit takes the lock.\n"
	rd := New(NewText(doc), testtok.Char{})
	c := placed(t, doc, "Several processes on one folder\n\nA watcher feeding a folder is safe.\nEvery commit takes the lock.", 0.1)
	for _, query := range []string{"", "how do several processes share one folder?"} {
		got := rd.Passages([]*Chunk{c}, query, 150, 1)
		if len(got) != 1 || !strings.HasPrefix(got[0].Text, "### Several processes") || !strings.HasSuffix(got[0].Text, "the lock.") {
			t.Errorf("query %q: Passages = %+v, want the section from its heading", query, got)
		}
	}
}

// BenchmarkPassagesLargeDocument renders the passage of a 1 MB document
// from its 50 matching chunks: the query's focus reads every line once.
func BenchmarkPassagesLargeDocument(b *testing.B) {
	var sb strings.Builder
	for i := 0; sb.Len() < 1<<20; i++ {
		fmt.Fprintf(&sb, "Line %d of the document talks about topic %d and rivers, %d words long.\n", i, i%97, i%13)
	}
	doc := sb.String()
	text := NewText(doc)
	var chunks []*Chunk
	for i := range 50 {
		s := i * (len(doc) / 50)
		chunks = append(chunks, NewChunk(s, s+2000, true, 1/float64(60+i), false))
	}
	tok := testtok.Char{}
	for b.Loop() {
		fresh := make([]*Chunk, len(chunks))
		for i, c := range chunks {
			fresh[i] = NewChunk(c.start, c.end, true, c.score, false)
		}
		if got := New(text, tok).Passages(fresh, "topic 42 rivers", 400, 1); len(got) != 1 {
			b.Fatal(got)
		}
	}
}
