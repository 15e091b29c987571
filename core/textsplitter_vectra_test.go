package core

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/foliovec/folio/core/internal/testtok"
)

// The cases of Vectra's TextSplitter.spec.ts, with its own assertions.
// (TestSplitMatchesVectra checks the same inputs chunk by chunk.)
func TestVectraSpecCases(t *testing.T) {
	joined := func(chunks []TextChunk, sep string) string { return strings.Join(tsChunkTexts(chunks), sep) }
	t.Run("empty input gives no chunks", func(t *testing.T) {
		if got := specSplitter(t, nil).Split(""); len(got) != 0 {
			t.Fatalf("got %v", got)
		}
	})
	t.Run("whitespace-only input gives no chunks", func(t *testing.T) {
		for _, text := range []string{"   \t  ", "\n\n", " \n \n  ", "\u3000\ufeff\u00a0"} {
			if got := specSplitter(t, nil).Split(text); len(got) != 0 {
				t.Errorf("Split(%q) = %v", text, got)
			}
		}
	})
	t.Run("the default config splits simple text", func(t *testing.T) {
		cfg := DefaultTextSplitterConfig()
		cfg.Tokenizer = testtok.Char{}
		if got := tsMustSplitter(t, cfg).Split("Hello world"); len(got) != 1 || got[0].Text != "Hello world" {
			t.Fatalf("got %v", got)
		}
	})
	t.Run("a lone --- is kept", func(t *testing.T) {
		got := specSplitter(t, func(c *TextSplitterConfig) { c.ChunkSize = 3 }).Split("---")
		if !slices.Equal(tsChunkTexts(got), []string{"---"}) {
			t.Fatalf("got %q", tsChunkTexts(got))
		}
	})
	t.Run("---, *** and ==== lines are kept at start, middle and end", func(t *testing.T) {
		text := strings.Join([]string{"---", "Hello world", "***", "Middle", "===="}, "\n")
		got := joined(specSplitter(t, func(c *TextSplitterConfig) { c.ChunkSize = 4 }).Split(text), "\n")
		for _, want := range []string{"---", "***", "===="} {
			if !strings.Contains(got, want) {
				t.Errorf("%q lost %q", got, want)
			}
		}
	})
	t.Run("both front-matter delimiters survive", func(t *testing.T) {
		md := strings.Join([]string{"---", "title: Test", "tags: [a, b]", "---", "# Heading", "Body text goes here."}, "\n")
		got := joined(specSplitter(t, func(c *TextSplitterConfig) { c.ChunkSize = 12 }).Split(md), "\n")
		if n := len(regexp.MustCompile(`(?m)^---$`).FindAllString(got, -1)); n != 2 {
			t.Fatalf("%q has %d --- lines, want 2", got, n)
		}
	})
	t.Run("a trailing --- is kept", func(t *testing.T) {
		got := specSplitter(t, func(c *TextSplitterConfig) { c.ChunkSize = 4 }).Split("Content\n---")
		if !slices.ContainsFunc(got, func(c TextChunk) bool { return strings.Contains(c.Text, "---") }) {
			t.Fatalf("got %q", tsChunkTexts(got))
		}
	})
	t.Run("alphanumeric words are kept", func(t *testing.T) {
		got := joined(specSplitter(t, func(c *TextSplitterConfig) { c.ChunkSize = 5 }).Split("abcde fghij"), " ")
		if !strings.Contains(got, "abcde") || !strings.Contains(got, "fghij") {
			t.Fatalf("got %q", got)
		}
	})
	t.Run("--- is kept with overlap", func(t *testing.T) {
		got := specSplitter(t, func(c *TextSplitterConfig) { c.ChunkSize, c.ChunkOverlap = 5, 2 }).Split("---\nabcdef")
		if !slices.ContainsFunc(got, func(c TextChunk) bool { return strings.Contains(c.Text, "---") }) {
			t.Fatalf("got %q", tsChunkTexts(got))
		}
	})
	t.Run("interleaved separator lines and single letters survive", func(t *testing.T) {
		text := strings.Join([]string{"***", "A", "---", "B", "====", "C"}, "\n")
		got := joined(specSplitter(t, func(c *TextSplitterConfig) { c.ChunkSize = 8 }).Split(text), "\n")
		for _, want := range []string{"***", "---", "====", "\nA\n", "\nB\n", "\nC"} {
			if !strings.Contains(got, want) {
				t.Errorf("%q lost %q", got, want)
			}
		}
	})
	t.Run("without keepSeparators a line break becomes a space", func(t *testing.T) {
		text := "Hello\nWorld"
		got := specSplitter(t, func(c *TextSplitterConfig) { c.ChunkSize = 50 }).Split(text)
		if len(got) != 1 || got[0].Text != "Hello World" || got[0].StartPos != 0 || got[0].EndPos != len(text)-1 {
			t.Fatalf("got %+v", got)
		}
	})
	t.Run("with keepSeparators line breaks stay", func(t *testing.T) {
		got := joined(specSplitter(t, func(c *TextSplitterConfig) { c.ChunkSize, c.KeepSeparators = 50, true }).Split("Hello\nWorld\n"), "")
		if !strings.Contains(got, "Hello\n") || !strings.Contains(got, "World\n") {
			t.Fatalf("got %q", got)
		}
	})
	t.Run("chunks are not merged over the budget", func(t *testing.T) {
		if got := specSplitter(t, func(c *TextSplitterConfig) { c.ChunkSize = 3 }).Split("ABCD\nEFG"); len(got) < 2 {
			t.Fatalf("got %q", tsChunkTexts(got))
		}
	})
	t.Run("custom separators override the docType and are dropped", func(t *testing.T) {
		got := joined(specSplitter(t, func(c *TextSplitterConfig) { c.DocType, c.Separators = "markdown", []string{"||"} }).Split("A||B||C"), "")
		if strings.Contains(got, "||") || !strings.Contains(got, "ABC") {
			t.Fatalf("got %q", got)
		}
	})
	t.Run("custom separators are kept, attached to the left piece", func(t *testing.T) {
		got := joined(specSplitter(t, func(c *TextSplitterConfig) { c.Separators, c.KeepSeparators = []string{"||"}, true }).Split("A||B||C"), "")
		if !strings.Contains(got, "A||") || !strings.Contains(got, "B||") || !strings.HasSuffix(got, "C") {
			t.Fatalf("got %q", got)
		}
	})
	t.Run("inline runs stay with keepSeparators and go without", func(t *testing.T) {
		inline := "---Hello---World---"
		kept := joined(specSplitter(t, func(c *TextSplitterConfig) { c.ChunkSize, c.KeepSeparators = 64, true }).Split(inline), "")
		if !strings.Contains(kept, inline) {
			t.Errorf("kept %q", kept)
		}
		dropped := joined(specSplitter(t, func(c *TextSplitterConfig) { c.ChunkSize = 64 }).Split(inline), "")
		if strings.Contains(dropped, "---") || !strings.Contains(dropped, "Hello") || !strings.Contains(dropped, "World") {
			t.Errorf("dropped %q", dropped)
		}
	})
	t.Run("consecutive separator lines give no empty chunks", func(t *testing.T) {
		got := specSplitter(t, func(c *TextSplitterConfig) { c.ChunkSize, c.KeepSeparators = 64, true }).Split("---\n***\n====")
		if len(got) < 3 {
			t.Fatalf("got %q", tsChunkTexts(got))
		}
		for _, c := range got {
			if strings.TrimSpace(c.Text) == "" {
				t.Errorf("empty chunk %+v", c)
			}
		}
	})
	t.Run("the space separator keeps short text as one chunk", func(t *testing.T) {
		got := specSplitter(t, func(c *TextSplitterConfig) { c.Separators, c.ChunkSize = []string{" "}, 100 }).Split("a b c")
		if len(got) != 1 || got[0].Text != "a b c" {
			t.Fatalf("got %q", tsChunkTexts(got))
		}
	})
	t.Run("the space separator cuts long text into windows that concatenate back", func(t *testing.T) {
		got := specSplitter(t, func(c *TextSplitterConfig) { c.Separators, c.ChunkSize = []string{" "}, 4 }).Split("abcdefghij")
		if len(got) < 3 || joined(got, "") != "abcdefghij" {
			t.Fatalf("got %q", tsChunkTexts(got))
		}
	})
	t.Run("empty separators fall back to the docType's", func(t *testing.T) {
		got := specSplitter(t, func(c *TextSplitterConfig) { c.Separators, c.ChunkSize = []string{}, 100 }).Split("HelloWorld")
		if len(got) != 1 || strings.Join(strings.Fields(got[0].Text), "") != "HelloWorld" {
			t.Fatalf("got %q", tsChunkTexts(got))
		}
	})
	t.Run("chunkSize 1 cuts 20 x into chunks that concatenate back", func(t *testing.T) {
		text := strings.Repeat("x", 20)
		got := specSplitter(t, func(c *TextSplitterConfig) { c.Separators, c.ChunkSize = []string{"\n"}, 1 }).Split(text)
		if len(got) < 2 || joined(got, "") != text {
			t.Fatalf("got %q", tsChunkTexts(got))
		}
	})
	for _, tc := range []struct {
		name          string
		size, overlap int
		text          string
	}{
		{"overlaps hold the neighbours' tail and head tokens", 3, 2, "abcdefghi"},
		{"maximal overlap (chunkOverlap = chunkSize) works", 4, 4, "abcdefgh"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := specSplitter(t, func(c *TextSplitterConfig) {
				c.ChunkSize, c.ChunkOverlap, c.Separators = tc.size, tc.overlap, nil
			}).Split(tc.text)
			if len(got) < 2 {
				t.Fatalf("got %q", tsChunkTexts(got))
			}
			if got[0].StartOverlap != nil || got[len(got)-1].EndOverlap != nil {
				t.Errorf("first StartOverlap %v, last EndOverlap %v, want none", got[0].StartOverlap, got[len(got)-1].EndOverlap)
			}
			for i := 1; i < len(got); i++ {
				prev, cur := got[i-1], got[i]
				if want := prev.Tokens[max(0, len(prev.Tokens)-tc.overlap):]; !slices.Equal(cur.StartOverlap, want) {
					t.Errorf("chunk %d StartOverlap %v, want %v", i, cur.StartOverlap, want)
				}
				if want := cur.Tokens[:min(tc.overlap, len(cur.Tokens))]; !slices.Equal(prev.EndOverlap, want) {
					t.Errorf("chunk %d EndOverlap %v, want %v", i-1, prev.EndOverlap, want)
				}
			}
		})
	}
	for _, docType := range []string{"cpp", "go", "typescript", "javascript", "php", "proto", "python", "rst", "ruby", "rust",
		"scala", "swift", "markdown", "latex", "html", "sol", ""} {
		t.Run("docType "+docType+" splits a sample", func(t *testing.T) {
			got := specSplitter(t, func(c *TextSplitterConfig) { c.ChunkSize, c.DocType = 64, docType }).Split("sample")
			if len(got) != 1 || got[0].Text != "sample" {
				t.Fatalf("got %q", tsChunkTexts(got))
			}
		})
	}
	t.Run("a tokenizer of two tokens per character forces more chunks", func(t *testing.T) {
		got := tsMustSplitter(t, TextSplitterConfig{ChunkSize: 6, Tokenizer: tsHeavyTokenizer{}}).Split("abcdef")
		if len(got) < 2 || joined(got, "") != "abcdef" {
			t.Fatalf("got %q", tsChunkTexts(got))
		}
	})
}

// goldenCase is one case of testdata/textsplitter/golden.json: what Vectra
// 0.15's own TextSplitter returned (see generate.js there).
type goldenCase struct {
	Name           string   `json:"name"`
	Tokenizer      string   `json:"tokenizer"`
	ChunkSize      int      `json:"chunkSize"`
	ChunkOverlap   int      `json:"chunkOverlap"`
	KeepSeparators bool     `json:"keepSeparators"`
	DocType        string   `json:"docType"`
	Separators     []string `json:"separators"`
	Text           string   `json:"text"`
	Chunks         []struct {
		Text         string `json:"text"`
		Tokens       []int  `json:"tokens"`
		StartPos     int    `json:"startPos"`
		EndPos       int    `json:"endPos"`
		StartOverlap []int  `json:"startOverlap"`
		EndOverlap   []int  `json:"endOverlap"`
	} `json:"chunks"`
}

// Folio splits exactly as Vectra does wherever none of its fixes applies:
// the spec's inputs and seeded random texts, every docType, several
// configurations, chunk by chunk (text, tokens, positions, overlaps).
// goldenCases reads testdata/textsplitter/golden.json.
func goldenCases(t *testing.T) []goldenCase {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "textsplitter", "golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []goldenCase
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	return cases
}

func TestSplitMatchesVectra(t *testing.T) {
	cases := goldenCases(t)
	if len(cases) < 100 {
		t.Fatalf("only %d golden cases", len(cases))
	}
	tokenizers := map[string]Tokenizer{"char": testtok.Char{}, "heavy": tsHeavyTokenizer{}}
	for _, gc := range cases {
		t.Run(gc.Name, func(t *testing.T) {
			s := tsMustSplitter(t, TextSplitterConfig{
				ChunkSize: gc.ChunkSize, ChunkOverlap: gc.ChunkOverlap, KeepSeparators: gc.KeepSeparators,
				Separators: gc.Separators, DocType: gc.DocType, Tokenizer: tokenizers[gc.Tokenizer],
				VectraChunking: true,
			})
			got := s.Split(gc.Text)
			if len(got) != len(gc.Chunks) {
				t.Fatalf("%d chunks %q, Vectra %d", len(got), tsChunkTexts(got), len(gc.Chunks))
			}
			for i, want := range gc.Chunks {
				g := got[i]
				if g.Text != want.Text || g.StartPos != want.StartPos || g.EndPos != want.EndPos ||
					!slices.Equal(g.Tokens, want.Tokens) || !slices.Equal(g.StartOverlap, want.StartOverlap) ||
					!slices.Equal(g.EndOverlap, want.EndOverlap) {
					t.Errorf("chunk %d\n got %+v\nwant %+v", i, g, want)
				}
			}
		})
	}
}

// checkPositions reports every chunk whose positions do not hold its text:
// positions in range and increasing, and the chunk's letters and digits, in
// order, among the source's between them (dropped separators such as
// "<div>" or "\nclass " leave letters in the source that the chunk lacks).
func checkPositions(t *testing.T, source string, chunks []TextChunk) {
	t.Helper()
	src16 := utf16.Encode([]rune(source))
	prevEnd := -1
	for i, c := range chunks {
		if c.StartPos <= prevEnd || c.StartPos > c.EndPos || c.EndPos >= len(src16) {
			t.Errorf("chunk %d [%d, %d] after %d in %d units: positions out of order or range", i, c.StartPos, c.EndPos, prevEnd, len(src16))
			return
		}
		span := string(utf16.Decode(src16[c.StartPos : c.EndPos+1]))
		if !isSubsequence(tsLettersAndDigits(c.Text), tsLettersAndDigits(span)) {
			t.Errorf("chunk %d %q is not in the source between %d and %d: %q", i, c.Text, c.StartPos, c.EndPos, span)
		}
		prevEnd = c.EndPos
	}
}
