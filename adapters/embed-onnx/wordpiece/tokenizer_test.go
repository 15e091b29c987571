package wordpiece

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/foliovec/folio/adapters/embed-onnx/internal/bertgen"
	"github.com/foliovec/folio/conformance/tokenizertest"
	"github.com/foliovec/folio/core"
)

// bertUncased writes a folder with the real bert-base-uncased vocabulary
// (testdata/bert-base-uncased) as tokenizer.json, the way transformers.js
// saw it when it produced the golden ids, and returns its tokenizer.
func bertUncased(t testing.TB) *Tokenizer {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "testdata", "bert-base-uncased", "vocab.txt"))
	if err != nil {
		t.Fatal(err)
	}
	vocab := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	dir := t.TempDir()
	w := bertgen.NewWeights(bertgen.Config{VocabSize: 2, Hidden: 4, Heads: 1, Intermediate: 4, MaxPositions: 512, TypeVocab: 1})
	err = bertgen.WriteFolder(dir, w, bertgen.Folder{Vocab: vocab, TokenizerJSON: true, Uncased: true, MaxLength: 512, NoConfig: true})
	if err != nil {
		t.Fatal(err)
	}
	tok, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// tinyTokenizer is the tokenizer of a tiny model folder.
func tinyTokenizer(t testing.TB, f bertgen.Folder) *Tokenizer {
	t.Helper()
	if f.Vocab == nil {
		f.Vocab = bertgen.TinyVocab()
	}
	if !f.TokenizerJSON && !f.VocabTxt {
		f.TokenizerJSON = true
	}
	dir := filepath.Join(t.TempDir(), "model")
	if err := bertgen.WriteFolder(dir, bertgen.NewWeights(bertgen.Tiny(len(f.Vocab))), f); err != nil {
		t.Fatal(err)
	}
	tok, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func TestTokenizerMatchesTransformersJS(t *testing.T) {
	// Ids and decoded text that transformers.js (@huggingface/transformers
	// 4.3.1) produced for these texts with the same vocabulary; see
	// testdata/bert-base-uncased/README.md.
	data, err := os.ReadFile(filepath.Join("..", "testdata", "bert-base-uncased", "transformersjs-golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	var golden []struct {
		Text    string `json:"text"`
		IDs     []int  `json:"ids"`
		Decoded string `json:"decoded"`
	}
	if err := json.Unmarshal(data, &golden); err != nil {
		t.Fatal(err)
	}
	tok := bertUncased(t)
	for _, g := range golden {
		if got := tok.Encode(g.Text); !slices.Equal(got, g.IDs) {
			t.Errorf("Encode(%q)\n got %v\nwant %v", g.Text, got, g.IDs)
		}
		if got := tok.Decode(g.IDs); got != g.Decoded {
			t.Errorf("Decode(ids of %q) = %q, want %q", g.Text, got, g.Decoded)
		}
	}
}

func TestTokenizerRules(t *testing.T) {
	uncased := tinyTokenizer(t, bertgen.Folder{Uncased: true, MaxLength: 16})
	cased := tinyTokenizer(t, bertgen.Folder{Uncased: false, MaxLength: 16})
	tokens := func(tok *Tokenizer, text string) []string {
		var out []string
		for _, id := range tok.Encode(text) {
			out = append(out, tok.tokens[id])
		}
		return out
	}
	long := strings.Repeat("a", 101)
	for _, tc := range []struct {
		name string
		tok  *Tokenizer
		text string
		want string
	}{
		{"Encode wraps the text in [CLS] and [SEP]", uncased, "hello", "[CLS] hello [SEP]"},
		{"empty text is [CLS] [SEP]", uncased, "", "[CLS] [SEP]"},
		{"uncased lower-cases", uncased, "HELLO World", "[CLS] hello world [SEP]"},
		{"uncased strips accents", uncased, "Café", "[CLS] cafe [SEP]"},
		{"combining accents are stripped too", uncased, "cafe\u0301", "[CLS] cafe [SEP]"},
		{"cased keeps case", cased, "Hello", "[CLS] Hello [SEP]"},
		{"cased keeps accents", cased, "é", "[CLS] é [SEP]"},
		{"words split into the longest pieces", uncased, "unaffable", "[CLS] un ##aff ##able [SEP]"},
		{"punctuation stands alone", uncased, "hello,world!", "[CLS] hello , world ! [SEP]"},
		{"CJK ideographs stand alone", uncased, "日本文", "[CLS] 日 本 文 [SEP]"},
		{"a word with no pieces is [UNK]", uncased, "hello ☃", "[CLS] hello [UNK] [SEP]"},
		{"a word over 100 characters is [UNK]", uncased, long, "[CLS] [UNK] [SEP]"},
		{"control characters are dropped", uncased, "hel\u0000lo\u0007", "[CLS] hello [SEP]"},
		{"any whitespace separates words", uncased, "hello\u00a0world\u3000the\tfox\n", "[CLS] hello world the fox [SEP]"},
		{"special-token text is ordinary text", uncased, "[SEP]", "[CLS] [ s ##e ##p ] [SEP]"},
		{"Encode never truncates", uncased, strings.Repeat("a ", 20), "[CLS]" + strings.Repeat(" a", 20) + " [SEP]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := strings.Join(tokens(tc.tok, tc.text), " "); got != tc.want {
				t.Errorf("Encode(%q) = %s, want %s", tc.text, got, tc.want)
			}
		})
	}
}

func TestTokenizerDecode(t *testing.T) {
	tok := tinyTokenizer(t, bertgen.Folder{Uncased: true, MaxLength: 16})
	for _, tc := range []struct {
		name, text, want string
	}{
		{"special tokens are skipped", "hello world", "hello world"},
		{"## pieces join the piece before", "unaffable dogs", "unaffable dogs"},
		{"no space before punctuation", "hello , world !", "hello, world!"},
		{"contractions close up", "don ' t", "don't"},
		{"unknown words are dropped with the special tokens", "hello ☃ world", "hello world"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tok.Decode(tok.Encode(tc.text)); got != tc.want {
				t.Errorf("Decode(Encode(%q)) = %q, want %q", tc.text, got, tc.want)
			}
		})
	}
	t.Run("ids outside the vocabulary are skipped", func(t *testing.T) {
		ids := tok.Encode("hello")
		if got := tok.Decode(append([]int{-1, 1 << 30}, ids...)); got != "hello" {
			t.Errorf("Decode = %q, want %q", got, "hello")
		}
	})
}

func TestTokenizerTruncation(t *testing.T) {
	tok := tinyTokenizer(t, bertgen.Folder{Uncased: true, MaxLength: 8})
	text := "the quick brown fox jump the lazy dog the end"
	full := tok.Encode(text)
	got := tok.EncodeTruncated(text)
	if len(got) != 8 || tok.MaxLength() != 8 {
		t.Fatalf("EncodeTruncated gave %d ids (MaxLength %d), want 8", len(got), tok.MaxLength())
	}
	want := append(slices.Clone(full[:7]), tok.sep)
	if !slices.Equal(got, want) {
		t.Errorf("EncodeTruncated = %v, want the first 7 ids then [SEP]: %v", got, want)
	}
	short := tok.EncodeTruncated("hello")
	if !slices.Equal(short, tok.Encode("hello")) {
		t.Errorf("a short text is not truncated: %v", short)
	}
}

func TestTokenizerFiles(t *testing.T) {
	t.Run("vocab.txt alone gives the ids tokenizer.json gives", func(t *testing.T) {
		fromJSON := tinyTokenizer(t, bertgen.Folder{TokenizerJSON: true, Uncased: true, MaxLength: 16})
		fromTxt := tinyTokenizer(t, bertgen.Folder{VocabTxt: true, Uncased: true, MaxLength: 16})
		for _, text := range []string{"Hello, Café world!", "unaffable 日本", "the ☃ fox"} {
			if a, b := fromJSON.Encode(text), fromTxt.Encode(text); !slices.Equal(a, b) {
				t.Errorf("%q: tokenizer.json %v, vocab.txt %v", text, a, b)
			}
		}
	})
	t.Run("vocab.txt follows do_lower_case", func(t *testing.T) {
		tok := tinyTokenizer(t, bertgen.Folder{VocabTxt: true, Uncased: false, MaxLength: 16})
		if got := tok.Decode(tok.Encode("Hello")); got != "Hello" {
			t.Errorf("cased vocab.txt tokenizer: %q, want Hello", got)
		}
	})
	t.Run("maximum length defaults to the position embeddings", func(t *testing.T) {
		tok := tinyTokenizer(t, bertgen.Folder{Uncased: true})
		if got := tok.MaxLength(); got != 64 {
			t.Errorf("MaxLength = %d, want 64 (max_position_embeddings)", got)
		}
	})
	t.Run("model_max_length never exceeds the position embeddings", func(t *testing.T) {
		tok := tinyTokenizer(t, bertgen.Folder{Uncased: true, MaxLength: 1000})
		if got := tok.MaxLength(); got != 64 {
			t.Errorf("MaxLength = %d, want 64", got)
		}
	})
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  error
	}{
		{"a folder without tokenizer files is not found", map[string]string{"config.json": "{}"}, os.ErrNotExist},
		{"a corrupt tokenizer.json is corrupt", map[string]string{"tokenizer.json": "{"}, core.ErrCorrupt},
		{"a non-WordPiece tokenizer is refused", map[string]string{"tokenizer.json": `{"model":{"type":"BPE","vocab":{"a":0}}}`}, core.ErrInvalidArgument},
		{"a vocabulary without [CLS] is refused", map[string]string{"vocab.txt": "[PAD]\n[UNK]\n[SEP]\n"}, core.ErrInvalidArgument},
		{"an empty vocabulary is corrupt", map[string]string{"vocab.txt": ""}, core.ErrCorrupt},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, content := range tc.files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			_, err := Load(dir)
			if err == nil || !errors.Is(err, tc.want) {
				t.Errorf("Load: %v, want %v", err, tc.want)
			}
		})
	}
}

func TestTokenizerConformance(t *testing.T) {
	tok := bertUncased(t)
	tokenizertest.Run(t, func(testing.TB) core.Tokenizer { return tok }, tokenizertest.Capabilities{})
}

func FuzzTokenizerEncode(f *testing.F) {
	for _, s := range []string{"", "hello world", "Café 日本 ☃", "\xff\xfe", "a\u0301\u0302", strings.Repeat("x", 200)} {
		f.Add(s)
	}
	tok := tinyTokenizer(f, bertgen.Folder{Uncased: true, MaxLength: 16})
	f.Fuzz(func(t *testing.T, text string) {
		ids := tok.Encode(text)
		if len(ids) < 2 || ids[0] != tok.cls || ids[len(ids)-1] != tok.sep {
			t.Fatalf("Encode(%q) = %v: not wrapped in [CLS] [SEP]", text, ids)
		}
		for _, id := range ids {
			if id < 0 || id >= tok.VocabSize() {
				t.Fatalf("Encode(%q) gave id %d outside the vocabulary", text, id)
			}
		}
		if tr := tok.EncodeTruncated(text); len(tr) > tok.MaxLength() {
			t.Fatalf("EncodeTruncated(%q) gave %d ids, over %d", text, len(tr), tok.MaxLength())
		}
		tok.Decode(ids)
	})
}

func FuzzTokenizerFiles(f *testing.F) {
	f.Add(`{"model":{"type":"WordPiece","vocab":{"[CLS]":0,"[SEP]":1,"[UNK]":2,"a":3}}}`, "{}", "a b")
	f.Add(`{"model":{"vocab":{"[CLS]":5,"[SEP]":-1}},"added_tokens":[{"id":99999999,"content":"x","special":true}]}`, `{"model_max_length":1e30}`, "x")
	f.Add(`{"normalizer":null,"model":{"vocab":{"[CLS]":0,"[SEP]":1,"[UNK]":2,"##":3}}}`, `{"cls_token":{"content":"[CLS]"}}`, "##")
	f.Fuzz(func(t *testing.T, tokenizerJSON, tokenizerConfig, text string) {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "tokenizer.json"), []byte(tokenizerJSON), 0o644)
		os.WriteFile(filepath.Join(dir, "tokenizer_config.json"), []byte(tokenizerConfig), 0o644)
		// config.json gets the same bytes: another parser fed the same way.
		os.WriteFile(filepath.Join(dir, "config.json"), []byte(tokenizerConfig), 0o644)
		tok, err := Load(dir)
		if err != nil {
			return
		}
		ids := tok.Encode(text)
		tok.Decode(ids)
		if tr := tok.EncodeTruncated(text); len(tr) > tok.MaxLength() {
			t.Fatalf("EncodeTruncated gave %d ids, over %d", len(tr), tok.MaxLength())
		}
	})
}

func FuzzVocabTxt(f *testing.F) {
	f.Add("[PAD]\n[UNK]\n[CLS]\n[SEP]\nhello\n##s\n", "hellos")
	f.Add("[CLS]\r\n[SEP]\r\n[UNK]\r\n\n\n##\n", "## #")
	f.Add("[CLS]\n[CLS]\n[SEP]\n[UNK]", "[CLS]")
	f.Fuzz(func(t *testing.T, vocab, text string) {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "vocab.txt"), []byte(vocab), 0o644)
		tok, err := Load(dir)
		if err != nil {
			return
		}
		ids := tok.Encode(text)
		for _, id := range ids {
			if id < 0 || id >= tok.VocabSize() {
				t.Fatalf("Encode(%q) gave id %d outside the vocabulary", text, id)
			}
		}
		tok.Decode(ids)
	})
}

var encodeSentences = []string{
	"The quick brown fox jumps over the lazy dog.",
	"Vector databases store embeddings for similarity search.",
	"Mean pooling averages the hidden states of the tokens.",
	"Add two cups of flour and stir until the batter is smooth.",
}

// BenchmarkTokenizerEncode measures the WordPiece tokenizer alone.
func BenchmarkTokenizerEncode(b *testing.B) {
	tok := bertUncased(b)
	i := 0
	for b.Loop() {
		tok.Encode(encodeSentences[i%len(encodeSentences)])
		i++
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "encodes/s")
}
