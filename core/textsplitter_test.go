package core

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/foliovec/folio/core/internal/split"
	"github.com/foliovec/folio/core/internal/testtok"
)

// specSplitter is the splitter of Vectra's TextSplitter.spec.ts: one token
// per code point, chunkSize 16, no overlap, Vectra's chunking, unless cfg
// says otherwise.
func specSplitter(t *testing.T, edit func(*TextSplitterConfig)) *TextSplitter {
	t.Helper()
	cfg := TextSplitterConfig{ChunkSize: 16, Tokenizer: testtok.Char{}, VectraChunking: true}
	if edit != nil {
		edit(&cfg)
	}
	return tsMustSplitter(t, cfg)
}

func TestNewTextSplitterValidatesItsConfig(t *testing.T) {
	tests := []struct {
		name    string
		cfg     TextSplitterConfig
		wantMsg string
	}{
		{"chunkSize below 1 is invalid", TextSplitterConfig{ChunkSize: -1, Tokenizer: testtok.Char{}}, "chunkSize must be >= 1"},
		{"negative overlap is invalid", TextSplitterConfig{ChunkSize: 10, ChunkOverlap: -1, Tokenizer: testtok.Char{}}, "chunkOverlap must be >= 0"},
		{"overlap above chunkSize is invalid", TextSplitterConfig{ChunkSize: 5, ChunkOverlap: 6, Tokenizer: testtok.Char{}}, "chunkOverlap must be <= chunkSize"},
		{"Vectra's default overlap with chunkSize 10 is invalid", TextSplitterConfig{ChunkSize: 10, ChunkOverlap: 40, Tokenizer: testtok.Char{}}, "chunkOverlap must be <= chunkSize"},
		{"a tokenizer is required", TextSplitterConfig{ChunkSize: 10}, "a tokenizer is required"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := NewTextSplitter(tc.cfg)
			if !errors.Is(err, ErrInvalidArgument) {
				t.Fatalf("NewTextSplitter = %v, %v; want an error wrapping ErrInvalidArgument", s, err)
			}
			if !strings.Contains(err.Error(), tc.wantMsg) {
				t.Fatalf("error %q does not say %q", err, tc.wantMsg)
			}
		})
	}
	for _, cfg := range []TextSplitterConfig{
		{ChunkSize: 1, Tokenizer: testtok.Char{}},
		{ChunkSize: 4, ChunkOverlap: 4, Tokenizer: testtok.Char{}},
	} {
		if _, err := NewTextSplitter(cfg); err != nil {
			t.Errorf("NewTextSplitter(%+v) = %v, want success", cfg, err)
		}
	}
}

func TestDefaultConfigs(t *testing.T) {
	tests := []struct {
		name string
		got  TextSplitterConfig
		want TextSplitterConfig
	}{
		{"a splitter's default is 400 tokens, 40 of overlap, separators dropped", DefaultTextSplitterConfig(), TextSplitterConfig{ChunkSize: 400, ChunkOverlap: 40}},
		{"a document index's default is 512 tokens, no overlap, separators kept", DefaultDocumentChunkingConfig(), TextSplitterConfig{ChunkSize: 512, KeepSeparators: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got.ChunkSize != tc.want.ChunkSize || tc.got.ChunkOverlap != tc.want.ChunkOverlap ||
				tc.got.KeepSeparators != tc.want.KeepSeparators || tc.got.Separators != nil || tc.got.DocType != "" || tc.got.Tokenizer != nil {
				t.Fatalf("got %+v, want %+v", tc.got, tc.want)
			}
			cfg := tc.got
			cfg.Tokenizer = testtok.Char{}
			if _, err := NewTextSplitter(cfg); err != nil {
				t.Fatalf("the default with a tokenizer is invalid: %v", err)
			}
		})
	}
}

func TestSeparatorsByDocType(t *testing.T) {
	groups := [][]string{
		{"java", "c#", "csharp", "cs", "ts", "tsx", "typescript"},
		{"js", "jsx", "javascript"},
		{"python", "py"},
		{"md", "markdown"},
	}
	for _, g := range groups {
		for _, alias := range g[1:] {
			if !slices.Equal(split.SeparatorsFor(alias), split.SeparatorsFor(g[0])) {
				t.Errorf("docType %q has other separators than %q", alias, g[0])
			}
		}
	}
	tests := []struct {
		name    string
		docType string
		check   func(seps []string) bool
	}{
		{"markdown splits on ## headings first, not on # headings", "md", func(s []string) bool { return s[0] == "\n## " && !slices.Contains(s, "\n# ") }},
		{"markdown ends with blank lines then line breaks", "markdown", func(s []string) bool { return slices.Equal(s[len(s)-2:], []string{"\n\n", "\n"}) }},
		{"typescript ends with a single space", "ts", func(s []string) bool { return s[len(s)-1] == " " && len(s) == 16 }},
		{"javascript lists class twice", "js", func(s []string) bool { return len(s) == 17 && s[3] == "\nclass " && s[8] == "\nclass " }},
		{"rust lists const twice", "rust", func(s []string) bool { return s[1] == "\nconst " && s[8] == "\nconst " }},
		{"html has no line separators", "html", func(s []string) bool { return len(s) == 26 && s[0] == "<body>" && !slices.Contains(s, "\n") }},
		{"latex separators hold a literal backslash", "latex", func(s []string) bool {
			return s[0] == `
\chapter{`
		}},
		{"python splits on tab-indented defs", "py", func(s []string) bool {
			return slices.Equal(s, []string{"\nclass ", "\ndef ", "\n\tdef ", "\n\n", "\n"})
		}},
		{"go splits on func first", "go", func(s []string) bool { return s[0] == "\nfunc " && len(s) == 10 }},
		{"an unknown docType gets the default", "yaml", func(s []string) bool { return slices.Equal(s, []string{"\n\n", "\n"}) }},
		{"no docType gets the default", "", func(s []string) bool { return slices.Equal(s, []string{"\n\n", "\n"}) }},
		{"docType matching is case-sensitive", "MD", func(s []string) bool { return slices.Equal(s, []string{"\n\n", "\n"}) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if s := split.SeparatorsFor(tc.docType); !tc.check(s) {
				t.Fatalf("split.SeparatorsFor(%q) = %q", tc.docType, s)
			}
		})
	}
	t.Run("each call returns a fresh list", func(t *testing.T) {
		a := split.SeparatorsFor("md")
		a[0] = "changed"
		if split.SeparatorsFor("md")[0] != "\n## " {
			t.Fatal("changing a returned list changed the next one")
		}
	})
}

// Each docType splits on its own most significant separator, kept at the
// end of the piece before it, then splits that piece further on the rest of
// its list (so "\n## " is cut again on "\n", leaving "## " alone, as in
// Vectra). Expected chunks are Vectra 0.15's for the same input.
func TestSplitByDocType(t *testing.T) {
	tests := []struct {
		docType string
		text    string
		want    []string
	}{
		{"md", "# Title\nintro\n## One\nfirst part\n## Two\nsecond", []string{"# Title\nintro\n", "## ", "One\nfirst part\n", "## ", "Two\nsecond"}},
		{"go", "package x\nfunc A() {}\nfunc B() {}", []string{"package x\nfunc ", "A() {}\nfunc B() {}"}},
		{"html", "<body><p>one para</p><p>two para</p>", []string{"<body>", "<p>one para</p><p>", "two para</p>"}},
		{"txt", "first paragraph\n\nsecond paragraph", []string{"first paragraph\n", "second paragraph"}},
	}
	for _, tc := range tests {
		t.Run(tc.docType, func(t *testing.T) {
			s := tsMustSplitter(t, TextSplitterConfig{ChunkSize: 20, KeepSeparators: true, DocType: tc.docType, Tokenizer: testtok.Char{}, VectraChunking: true})
			if got := tsChunkTexts(s.Split(tc.text)); !slices.Equal(got, tc.want) {
				t.Fatalf("Split(%q)\n got %q\nwant %q", tc.text, got, tc.want)
			}
		})
	}
}

// Fix over Vectra's splitter: the " " separator cuts token windows that follow one
// another, so positions advance by each window's length (Vectra adds one per
// window and drifts), and with keepSeparators no space is appended to a
// window (Vectra appends one that was never in the text).
func TestFixSpaceSeparatorWindowsDoNotDrift(t *testing.T) {
	text := "const veryLongIdentifierName = anotherLongIdentifier + yetAnotherIdentifier * someOtherValue;"
	for _, keep := range []bool{false, true} {
		s := tsMustSplitter(t, TextSplitterConfig{ChunkSize: 10, KeepSeparators: keep, DocType: "ts", Tokenizer: testtok.Char{}})
		chunks := s.Split(text)
		if len(chunks) < 5 {
			t.Fatalf("keepSeparators=%v: %d chunks, want token windows", keep, len(chunks))
		}
		var all strings.Builder
		for i, c := range chunks {
			if span := tsSlice16(text, c.StartPos, c.EndPos); span != c.Text {
				t.Errorf("keepSeparators=%v chunk %d %q, source at its positions %q", keep, i, c.Text, span)
			}
			all.WriteString(c.Text)
		}
		if all.String() != text {
			t.Errorf("keepSeparators=%v: chunks concatenate to %q, want the text", keep, all.String())
		}
	}
}

// Fix over Vectra's splitter: a chunk of words without ASCII letters (Cyrillic,
// Chinese, accented words) is ordinary text when merging; Vectra keeps it
// alone as if it were punctuation.
func TestFixNonASCIIWordsMergeLikeOtherText(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string
	}{
		{"Cyrillic lines merge", "Привет\nмир", []string{"Привет мир"}},
		{"Chinese lines merge", "你好\n世界", []string{"你好 世界"}},
		{"accented lines merge with ASCII ones", "déjà\nvu", []string{"déjà vu"}},
		{"digits in other scripts are words", "٣٤٥\nx", []string{"٣٤٥ x"}},
		{"a --- line still stays alone", "abc\n---\ndef", []string{"abc", "---", "def"}},
		{"an emoji line still stays alone", "abc\n👋🎉\ndef", []string{"abc", "👋🎉", "def"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := tsMustSplitter(t, TextSplitterConfig{ChunkSize: 50, Tokenizer: testtok.Char{}, VectraChunking: true})
			if got := tsChunkTexts(s.Split(tc.text)); !slices.Equal(got, tc.want) {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// Fix (Vectra's finalizeToChunks): token windows that cut a character in
// two (a byte-level tokenizer) give chunks of whole characters at the right
// positions, the character going to the window where it ends. Vectra gets
// that only from its own tokenizer, whose decoder happens to hold a cut
// character's first bytes until the next call; with any other tokenizer its
// positions assume decode(encode(x)) == x per window and drift.
func TestFixTokenWindowsKeepCharactersWhole(t *testing.T) {
	text := "日本語のテキスト 👋🌍 naïve café " + strings.Repeat("語", 7)
	for _, size := range []int{1, 2, 4, 5, 7} {
		s := tsMustSplitter(t, TextSplitterConfig{ChunkSize: size, Separators: []string{"\n"}, Tokenizer: tsByteTokenizer{}})
		chunks := s.Split(text)
		var all strings.Builder
		for i, c := range chunks {
			if !utf8.ValidString(c.Text) {
				t.Errorf("size %d chunk %d %q is not valid UTF-8", size, i, c.Text)
			}
			if span := tsSlice16(text, c.StartPos, c.EndPos); span != c.Text {
				t.Errorf("size %d chunk %d %q, source at its positions %q", size, i, c.Text, span)
			}
			all.WriteString(c.Text)
		}
		if got, want := all.String(), strings.ReplaceAll(text, " ", ""); strings.ReplaceAll(got, " ", "") != want {
			t.Errorf("size %d: chunks hold %q, want the text's characters %q", size, got, want)
		}
	}
}

// Fix over Vectra's splitter: a chunk's positions span the source it came from even when
// inline separator runs were stripped from its text; Vectra computes endPos
// from the stripped length, and the positions of the character windows after
// it drift.
func TestFixPositionsSpanStrippedRuns(t *testing.T) {
	tests := []struct {
		name  string
		size  int
		text  string
		texts []string
		spans [][2]int
	}{
		{"one chunk", 64, "alpha---beta gamma", []string{"alphabeta gamma"}, [][2]int{{0, 17}}},
		{"character windows", 8, "aa---bbbccccccccdd", []string{"aabbb", "cccccccc", "dd"}, [][2]int{{0, 7}, {8, 15}, {16, 17}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := tsMustSplitter(t, TextSplitterConfig{ChunkSize: tc.size, Tokenizer: testtok.Char{}})
			chunks := s.Split(tc.text)
			var spans [][2]int
			for _, c := range chunks {
				spans = append(spans, [2]int{c.StartPos, c.EndPos})
			}
			if got := tsChunkTexts(chunks); !slices.Equal(got, tc.texts) || !slices.Equal(spans, tc.spans) {
				t.Fatalf("got %q at %v, want %q at %v", got, spans, tc.texts, tc.spans)
			}
		})
	}
}

// Character windows of one long word never cut a surrogate pair.
func TestCharacterWindowsKeepSurrogatePairsWhole(t *testing.T) {
	text := strings.Repeat("a👋", 12)
	s := tsMustSplitter(t, TextSplitterConfig{ChunkSize: 4, Tokenizer: tsByteTokenizer{}})
	for i, c := range s.Split(text) {
		if span := tsSlice16(text, c.StartPos, c.EndPos); span != c.Text || !utf8.ValidString(c.Text) {
			t.Errorf("chunk %d %q, source at its positions %q", i, c.Text, span)
		}
	}
}

// Property: for random texts (unicode, emoji, separators of every kind) and
// random configurations, every chunk lies between its positions.
func TestPositionsHoldTheirChunks(t *testing.T) {
	pieces := []string{"alpha", "Beta", "42", "café", "naïve", "日本語", "Привет", "👋", "🎉", "e\u0301", "x",
		" ", " ", " ", "\n", "\n\n", "\t", "  ", "\n## ", "\nclass ", "\ndef ", "\nfunc ", "<p>", "<div>", "\n---\n",
		"---", "***", "===", "___", ", ", ". ", "||", "\u00a0", "\ufeff", "\u3000"}
	docTypes := []string{"md", "go", "ts", "js", "python", "html", "rst", "latex", ""}
	// Tokenizers whose token windows decode to pieces of the text: positions
	// cannot follow windows that decode to anything else (tsHeavyTokenizer).
	tokenizers := []Tokenizer{testtok.Char{}, tsByteTokenizer{}}
	seed := uint64(1)
	next := func(n int) int { // xorshift: reproducible without math/rand
		seed ^= seed << 13
		seed ^= seed >> 7
		seed ^= seed << 17
		return int(seed % uint64(n))
	}
	for i := range 600 {
		var b strings.Builder
		for range next(80) {
			b.WriteString(pieces[next(len(pieces))])
		}
		text := b.String()
		size := 1 + next(40)
		cfg := TextSplitterConfig{
			ChunkSize: size, ChunkOverlap: next(size + 1), KeepSeparators: next(2) == 0,
			DocType: docTypes[next(len(docTypes))], Tokenizer: tokenizers[next(len(tokenizers))],
		}
		chunks := tsMustSplitter(t, cfg).Split(text)
		if t.Run("", func(t *testing.T) { checkPositions(t, text, chunks) }) {
			continue
		}
		t.Fatalf("case %d: text %q, config %+v", i, text, cfg)
	}
}

func FuzzSplitPositions(f *testing.F) {
	for _, s := range []string{"", "Hello\nWorld", "alpha---beta", "日本語のテキスト 👋🌍", "# T\n\n## A\ntext\n", strings.Repeat("x", 40)} {
		f.Add(s, 8, true)
	}
	f.Fuzz(func(t *testing.T, text string, size int, keep bool) {
		if !utf8.ValidString(text) || size < 1 || size > 64 {
			return
		}
		for _, tok := range []Tokenizer{testtok.Char{}, tsByteTokenizer{}} {
			for _, vectra := range []bool{false, true} {
				s := tsMustSplitter(t, TextSplitterConfig{ChunkSize: size, KeepSeparators: keep, DocType: "md", Tokenizer: tok, VectraChunking: vectra})
				chunks := s.Split(text)
				checkPositions(t, text, chunks)
				for _, c := range chunks {
					// (A byte tokenizer's windows keep characters whole, so
					// they may pass the budget by part of one.)
					if _, bytes := tok.(tsByteTokenizer); !bytes && len(c.Tokens) > size {
						t.Fatalf("a chunk of %d tokens over a budget of %d: %q", len(c.Tokens), size, c.Text)
					}
				}
			}
		}
	})
}

// isSubsequence reports whether the characters of sub appear in s in order.
func isSubsequence(sub, s string) bool {
	rs := []rune(s)
	i := 0
	for _, r := range sub {
		for i < len(rs) && rs[i] != r {
			i++
		}
		if i == len(rs) {
			return false
		}
		i++
	}
	return true
}

// A document index given a partial chunking config, ChunkingConfig{
// ChunkSize: n, VectraChunking: true}, splits as Vectra's document index
// does with {chunkSize: n}: the rest from the document defaults,
// separators kept. Checked on
// every golden case Vectra split that way.
func TestPartialChunkingConfigSplitsLikeVectra(t *testing.T) {
	checked := 0
	for _, gc := range goldenCases(t) {
		if !gc.KeepSeparators || gc.ChunkOverlap != 0 || gc.Separators != nil || gc.Tokenizer != "char" {
			continue
		}
		checked++
		env := newDocTestEnv(t, func(c *LocalDocumentIndexConfig) {
			c.Tokenizer = testtok.Char{}
			c.ChunkingConfig = ChunkingConfig{ChunkSize: gc.ChunkSize, VectraChunking: true}
		})
		got, err := env.ix.split(t.Context(), "doc", gc.Text, gc.DocType)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(gc.Chunks) {
			t.Fatalf("%s: %d chunks %q, Vectra %d", gc.Name, len(got), tsChunkTexts(got), len(gc.Chunks))
		}
		for i, want := range gc.Chunks {
			if g := got[i]; g.Text != want.Text || g.StartPos != want.StartPos || g.EndPos != want.EndPos {
				t.Errorf("%s: chunk %d\n got %+v\nwant %+v", gc.Name, i, g, want)
			}
		}
	}
	if checked < 10 {
		t.Fatalf("only %d golden cases split with separators kept", checked)
	}
	t.Logf("%d golden cases", checked)
}

// A zero ChunkSize is Vectra's default of 400 tokens, not an error.
func TestZeroChunkSizeIsTheDefault(t *testing.T) {
	text := strings.Repeat("word ", 300)
	zero := tsMustSplitter(t, TextSplitterConfig{Tokenizer: testtok.Char{}})
	def := tsMustSplitter(t, TextSplitterConfig{ChunkSize: 400, Tokenizer: testtok.Char{}})
	if got, want := tsChunkTexts(zero.Split(text)), tsChunkTexts(def.Split(text)); !slices.Equal(got, want) {
		t.Fatalf("ChunkSize 0 splits into %d chunks, ChunkSize 400 into %d", len(got), len(want))
	}
}

// The token budget is the budget: pieces merge up to ChunkSize tokens
// whatever their length in characters and whatever they hold, and a
// fragment joins a neighbour. VectraChunking keeps Vectra's rules.
func TestChunksFillTheTokenBudget(t *testing.T) {
	tests := []struct {
		name       string
		cfg        TextSplitterConfig
		text       string
		want       []string
		wantVectra []string
	}{
		{"punctuation lines merge", TextSplitterConfig{ChunkSize: 50, Tokenizer: testtok.Char{}},
			"abc\n---\ndef", []string{"abc --- def"}, []string{"abc", "---", "def"}},
		{"a closing brace is not a chunk", TextSplitterConfig{ChunkSize: 30, KeepSeparators: true, DocType: "go", Tokenizer: testtok.Char{}},
			"func A() {\n\treturn 1\n}\n\nfunc B() {\n\treturn 2\n}\n",
			[]string{"func A() {\n\treturn 1\n}\nfunc ", "B() {\n\treturn 2\n}\n"},
			[]string{"func A() {\n\treturn 1\n", "}\n", "func B() {\n\treturn 2\n", "}\n"}},
		{"characters do not cap a merge", TextSplitterConfig{ChunkSize: 8, Tokenizer: wordsTokenizer{}},
			"several long words\nmore long words here", []string{"several long words more long words here"},
			[]string{"several long words", "more long words here"}},
		{"a lone fragment stays", TextSplitterConfig{ChunkSize: 50, Tokenizer: testtok.Char{}},
			"}", []string{"}"}, []string{"}"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tsChunkTexts(tsMustSplitter(t, tc.cfg).Split(tc.text)); !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
			cfg := tc.cfg
			cfg.VectraChunking = true
			if got := tsChunkTexts(tsMustSplitter(t, cfg).Split(tc.text)); !slices.Equal(got, tc.wantVectra) {
				t.Errorf("with VectraChunking: got %q, want %q", got, tc.wantVectra)
			}
		})
	}
}

// wordsTokenizer makes one token per word.
type wordsTokenizer struct{}

func (wordsTokenizer) Encode(text string) []int {
	out := []int{}
	for range strings.Fields(text) {
		out = append(out, 1)
	}
	return out
}

func (wordsTokenizer) Decode(tokens []int) string { return strings.Repeat("w ", len(tokens)) }

// "rb" splits as Ruby, as Vectra documents it; with VectraChunking it
// splits as Vectra's code does, as plain text.
func TestRubyDocTypeRB(t *testing.T) {
	text := "class A\n  x = 1\nend\ndef helper\n  2\nend\n"
	split := func(docType string, vectra bool) []string {
		return tsChunkTexts(specSplitter(t, func(c *TextSplitterConfig) {
			c.ChunkSize, c.ChunkOverlap, c.DocType, c.VectraChunking = 6, 0, docType, vectra
		}).Split(text))
	}
	if rb, ruby := split("rb", false), split("ruby", false); !slices.Equal(rb, ruby) {
		t.Errorf("rb splits as %q, ruby as %q", rb, ruby)
	}
	if rb, plain := split("rb", true), split("", true); !slices.Equal(rb, plain) {
		t.Errorf("with VectraChunking rb splits as %q, plain text as %q", rb, plain)
	}
	if slices.Equal(split("ruby", false), split("", false)) {
		t.Error("the sample does not tell Ruby's separators from plain text's")
	}
}
