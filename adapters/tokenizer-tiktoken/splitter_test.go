package tokenizertiktoken_test

import (
	"encoding/json"
	"math"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/foliovec/folio/core"
)

// splitGoldenCase is one case of testdata/split_golden.json, written by
// Vectra 0.15's TextSplitter with its default o200k_base tokenizer.
type splitGoldenCase struct {
	Name           string `json:"name"`
	DocType        string `json:"docType"`
	ChunkSize      int    `json:"chunkSize"`
	ChunkOverlap   int    `json:"chunkOverlap"`
	KeepSeparators bool   `json:"keepSeparators"`
	Text           string `json:"text"`
	Chunks         []struct {
		Text         string `json:"text"`
		Tokens       []int  `json:"tokens"`
		StartPos     int    `json:"startPos"`
		EndPos       int    `json:"endPos"`
		StartOverlap []int  `json:"startOverlap"`
		EndOverlap   []int  `json:"endOverlap"`
	} `json:"chunks"`
}

// With o200k_base, core's TextSplitter gives Vectra's chunks, token for
// token, wherever none of Folio's fixes applies.
func TestSplitWithO200kMatchesVectra(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "split_golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []splitGoldenCase
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) < 50 {
		t.Fatalf("only %d golden cases", len(cases))
	}
	tok := shared()
	for _, gc := range cases {
		t.Run(gc.Name, func(t *testing.T) {
			s, err := core.NewTextSplitter(core.TextSplitterConfig{ChunkSize: gc.ChunkSize, ChunkOverlap: gc.ChunkOverlap,
				KeepSeparators: gc.KeepSeparators, DocType: gc.DocType, Tokenizer: tok, VectraChunking: true})
			if err != nil {
				t.Fatal(err)
			}
			got := s.Split(gc.Text)
			if len(got) != len(gc.Chunks) {
				t.Fatalf("%d chunks, Vectra %d", len(got), len(gc.Chunks))
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

// The fixture document index (docs-json, written by Vectra with chunkSize
// 64) holds, per chunk, its positions and the fake embedding of its text:
// splitting each document the way Vectra's upsertDocument does gives the same
// chunks, checked by position and by embedding.
func TestSplitReproducesTheFixtureDocumentChunks(t *testing.T) {
	dump := loadFixtureDump(t)
	byDoc := map[string][]fixtureChunk{}
	for _, item := range dump.Items { // sorted by id: chunk order within a document
		byDoc[item.Metadata.DocumentID] = append(byDoc[item.Metadata.DocumentID], item)
	}
	tok := shared()
	for _, doc := range dump.Documents {
		t.Run(doc.URI, func(t *testing.T) {
			cfg := core.DefaultDocumentChunkingConfig()
			cfg.ChunkSize = 64
			cfg.DocType = strings.ToLower(strings.TrimPrefix(path.Ext(doc.URI), "."))
			cfg.Tokenizer = tok
			cfg.VectraChunking = true
			s, err := core.NewTextSplitter(cfg)
			if err != nil {
				t.Fatal(err)
			}
			got := s.Split(doc.Text)
			want := byDoc[doc.ID]
			if len(got) != len(want) || len(got) != doc.ChunkCount {
				t.Fatalf("%d chunks, Vectra %d (catalog says %d)", len(got), len(want), doc.ChunkCount)
			}
			for i, c := range got {
				w := want[i]
				if c.StartPos != w.Metadata.StartPos || c.EndPos != w.Metadata.EndPos {
					t.Errorf("chunk %d at [%d, %d], Vectra [%d, %d]", i, c.StartPos, c.EndPos, w.Metadata.StartPos, w.Metadata.EndPos)
				}
				if v := fakeEmbedding(strings.ReplaceAll(c.Text, "\n", " "), len(w.Vector)); !slices.Equal(v, w.Vector) {
					t.Errorf("chunk %d %q embeds to another vector than Vectra's chunk", i, c.Text)
				}
			}
		})
	}
}

// fakeEmbedding is the fixtures' fake embeddings model
// (testdata/vectra-0.15/README.md), which embedded every chunk's text.
func fakeEmbedding(text string, dims int) []float64 {
	v := make([]float64, dims)
	var h uint32
	inWord := false
	flush := func() {
		if inWord {
			w := 1 + float64((h>>8)&0xFF)/256
			if h&0x80000000 != 0 {
				w = -w
			}
			v[h%uint32(dims)] += w
		}
		inWord = false
	}
	for i := 0; i < len(text); i++ {
		b := text[i]
		if 'A' <= b && b <= 'Z' {
			b += 'a' - 'A'
		}
		if !('a' <= b && b <= 'z' || '0' <= b && b <= '9' || b >= 0x80) {
			flush()
			continue
		}
		if !inWord {
			h, inWord = 0x811C9DC5, true
		}
		h = (h ^ uint32(b)) * 0x01000193
	}
	flush()
	sum := 0.0
	for _, x := range v {
		sum += float64(x * x)
	}
	if sum == 0 {
		v[0] = 1
		return v
	}
	n := math.Sqrt(sum)
	for i := range v {
		v[i] /= n
	}
	return v
}
