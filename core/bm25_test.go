package core

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf16"

	"github.com/foliovec/folio/core/internal/bm25"
	"github.com/foliovec/folio/core/jsvalue"
)

// docReaderSpy is an IndexOptions.DocReader over fixed texts that counts
// its calls per document.
type docReaderSpy struct {
	mu    sync.Mutex
	texts map[string]string
	calls map[string]int
}

func (d *docReaderSpy) read(ctx context.Context, id string) (string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.calls[id]++
	text, ok := d.texts[id]
	if !ok {
		return "", fmt.Errorf("no document %q", id)
	}
	return text, nil
}

func (d *docReaderSpy) total() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	n := 0
	for _, c := range d.calls {
		n += c
	}
	return n
}

// chunkIndex makes an index whose items are the chunks of texts, split at
// "|" (positions are inclusive UTF-16 offsets into the text without the
// bars). Every chunk has the vector [0 1], so for the query [1 0] every
// chunk scores 0 (ties go in storage order) and an item with [1 0] outranks
// them all.
func chunkIndex(t *testing.T, texts map[string]string, extra func(doc string, i int) Metadata) (*LocalIndex, *memTestStorage, *docReaderSpy) {
	t.Helper()
	spy := &docReaderSpy{texts: map[string]string{}, calls: map[string]int{}}
	st := newMemTestStorage()
	ix, err := NewLocalIndex(idxTestFolder, IndexOptions{Storage: st, Codec: jsonTestCodec{}, DocReader: spy.read})
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.CreateIndex(ctxb, CreateIndexConfig{}); err != nil {
		t.Fatal(err)
	}
	for _, doc := range slices.Sorted(maps.Keys(texts)) {
		addChunks(t, ix, spy, doc, texts[doc], extra)
	}
	return ix, st, spy
}

func addChunks(t *testing.T, ix *LocalIndex, spy *docReaderSpy, doc, barred string, extra func(doc string, i int) Metadata) {
	t.Helper()
	parts := strings.Split(barred, "|")
	spy.mu.Lock()
	spy.texts[doc] = strings.Join(parts, "")
	spy.mu.Unlock()
	pos := 0
	var items []IndexItem
	for i, p := range parts {
		n := len(utf16.Encode([]rune(p)))
		md := Metadata{"documentId": doc, "startPos": pos, "endPos": pos + n - 1}
		if extra != nil {
			maps.Copy(md, extra(doc, i))
		}
		items = append(items, IndexItem{ID: fmt.Sprintf("%s#%d", doc, i), Vector: []float32{0, 1}, Metadata: md})
		pos += n
	}
	if _, err := ix.BatchInsertItems(ctxb, items); err != nil {
		t.Fatal(err)
	}
}

func keywordIDs(rs []QueryResult) []string {
	var out []string
	for _, r := range rs {
		if r.Item.Metadata["isBm25"] == true {
			out = append(out, r.Item.ID)
		}
	}
	return out
}

func TestJSSubstring(t *testing.T) {
	u := jsvalue.UTF16("a😀bc") // a, two surrogates, b, c
	tests := []struct {
		name       string
		start, end float64
		want       string
	}{
		{"plain range", 3, 5, "bc"},
		{"surrogate pair kept whole", 0, 3, "a😀"},
		{"end past the text is clamped", 3, 99, "bc"},
		{"negative start is 0", -5, 1, "a"},
		{"NaN is 0", math.NaN(), 1, "a"},
		{"start after end swaps", 5, 3, "bc"},
		{"fractions truncate", 3.9, 4.9, "b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := jsvalue.Substring(u, tt.start, tt.end); got != tt.want {
				t.Fatalf("= %q; want %q", got, tt.want)
			}
		})
	}
}

func TestHybridQuery(t *testing.T) {
	texts := map[string]string{
		"d1": "Cats purr softly.|Dogs bark loudly at night.|Vectors live in databases.",
		"d2": "Keyword search finds exact words.|Hybrid search mixes vectors and keywords.",
	}
	t.Run("keyword hits are appended after the vector results, flagged isBm25 in a copy", func(t *testing.T) {
		ix, _, _ := chunkIndex(t, texts, nil)
		got, err := ix.QueryItems(ctxb, []float32{1, 0}, "keyword search", 1, nil, true)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || got[0].Item.Metadata["isBm25"] != nil || got[1].Item.ID != "d2#0" || got[1].Item.Metadata["isBm25"] != true {
			t.Fatalf("results = %+v", got)
		}
		if got[1].Score <= 0 {
			t.Fatalf("BM25 score = %v", got[1].Score)
		}
		stored, _, _ := ix.GetItem(ctxb, "d2#0")
		if _, ok := stored.Metadata["isBm25"]; ok {
			t.Fatal("the stored item's metadata was changed")
		}
	})
	t.Run("chunks already in the vector results are not repeated", func(t *testing.T) {
		ix, _, _ := chunkIndex(t, texts, nil)
		got, err := ix.QueryItems(ctxb, []float32{1, 0}, "search", 5, nil, true)
		if err != nil {
			t.Fatal(err)
		}
		// All five chunks tie on the vector; the vector top 5 is every chunk.
		if kw := keywordIDs(got); len(kw) != 0 || len(got) != 5 {
			t.Fatalf("keyword hits %v among %d results", kw, len(got))
		}
		got, _ = ix.QueryItems(ctxb, []float32{1, 0}, "search", 3, nil, true)
		if kw := keywordIDs(got); !slices.Equal(kw, []string{"d2#0", "d2#1"}) {
			t.Fatalf("keyword hits = %v", kw)
		}
	})
	t.Run("at most min(10, topK) keyword hits", func(t *testing.T) {
		many := map[string]string{}
		for d := range 15 {
			many[fmt.Sprint("doc", d)] = "apple pie|apple tart"
		}
		ix, _, _ := chunkIndex(t, many, nil)
		for i := range 30 {
			mustInsert(t, ix, fmt.Sprint("top", i), []float32{1, 0}, nil)
		}
		for _, k := range []int{2, 25} {
			got, err := ix.QueryItems(ctxb, []float32{1, 0}, "apple", k, nil, true)
			if err != nil {
				t.Fatal(err)
			}
			if kw := keywordIDs(got); len(kw) != min(10, k) {
				t.Fatalf("topK %d: %d keyword hits", k, len(kw))
			}
		}
	})
	t.Run("hybrid search works on an index of one chunk", func(t *testing.T) {
		ix, _, _ := chunkIndex(t, map[string]string{"d": "only chunk here"}, nil)
		mustInsert(t, ix, "other", []float32{1, 0}, nil) // not a chunk: takes the vector slot
		got, err := ix.QueryItems(ctxb, []float32{1, 0}, "chunk", 1, nil, true)
		if err != nil {
			t.Fatal(err)
		}
		if kw := keywordIDs(got); !slices.Equal(kw, []string{"d#0"}) {
			t.Fatalf("results = %v", resultIDs(got))
		}
	})
	t.Run("items without document metadata are never keyword hits", func(t *testing.T) {
		ix, _, _ := chunkIndex(t, texts, nil)
		mustInsert(t, ix, "plain", []float32{1, 0}, Metadata{"documentId": "d1", "startPos": 0})
		got, _ := ix.QueryItems(ctxb, []float32{1, 0}, "cats purr", 1, nil, true)
		if kw := keywordIDs(got); !slices.Equal(kw, []string{"d1#0"}) {
			t.Fatalf("keyword hits = %v", kw)
		}
	})
	t.Run("a document that cannot be read is skipped, the others still match", func(t *testing.T) {
		ix, _, spy := chunkIndex(t, texts, nil)
		spy.mu.Lock()
		delete(spy.texts, "d1")
		spy.mu.Unlock()
		got, err := ix.QueryItems(ctxb, []float32{1, 0}, "cats keyword", 1, nil, true)
		if err != nil {
			t.Fatal(err)
		}
		if kw := keywordIDs(got); !slices.Equal(kw, []string{"d2#0"}) {
			t.Fatalf("keyword hits = %v", kw)
		}
	})
	t.Run("the filter applies to keyword hits", func(t *testing.T) {
		lang := func(doc string, i int) Metadata { return Metadata{"lang": []string{"en", "fr"}[i%2]} }
		ix, _, _ := chunkIndex(t, texts, lang)
		got, err := ix.QueryItems(ctxb, []float32{1, 0}, "search", 1, Filter{"lang": "fr"}, true)
		if err != nil {
			t.Fatal(err)
		}
		// fr chunks: d1#1 (the vector top 1) and d2#1; of these only d2#1 says "search".
		if ids := resultIDs(got); !slices.Equal(ids, []string{"d1#1", "d2#1"}) {
			t.Fatalf("results = %v", ids)
		}
	})
	t.Run("the default reader reads <documentId>.txt from the folder", func(t *testing.T) {
		ix, st := newCreatedIndex(t, CreateIndexConfig{})
		st.put(idxTestFolder+"/doc-1.txt", []byte("alpha beta gamma"))
		mustInsert(t, ix, "top", []float32{1, 0}, nil)
		mustInsert(t, ix, "c", []float32{0, 1}, Metadata{"documentId": "doc-1", "startPos": 6, "endPos": 9})
		got, err := ix.QueryItems(ctxb, []float32{1, 0}, "beta", 1, nil, true)
		if err != nil {
			t.Fatal(err)
		}
		if kw := keywordIDs(got); !slices.Equal(kw, []string{"c"}) {
			t.Fatalf("results = %v", resultIDs(got))
		}
		got, _ = ix.QueryItems(ctxb, []float32{1, 0}, "gamma", 1, nil, true) // outside the chunk's span
		if kw := keywordIDs(got); len(kw) != 0 {
			t.Fatalf("keyword hits = %v", kw)
		}
	})
	t.Run("positions are UTF-16 offsets", func(t *testing.T) {
		ix, _, _ := chunkIndex(t, map[string]string{"u": "😀😀 emoji first|then plain words"}, nil)
		mustInsert(t, ix, "top", []float32{1, 0}, nil)
		got, _ := ix.QueryItems(ctxb, []float32{1, 0}, "plain", 1, nil, true)
		if kw := keywordIDs(got); !slices.Equal(kw, []string{"u#1"}) {
			t.Fatalf("keyword hits = %v", kw)
		}
	})
}

// The keyword index is built once and then kept up to date by commits:
// documents are read once, never per query or per chunk.
func TestHybridIndexIsIncremental(t *testing.T) {
	ix, _, spy := chunkIndex(t, map[string]string{"a": "red apples|green pears|red cherries", "b": "blue berries"}, nil)
	for i := range 10 {
		mustInsert(t, ix, fmt.Sprint("top", i), []float32{1, 0}, nil)
	}
	query := func(q string) []string {
		t.Helper()
		got, err := ix.QueryItems(ctxb, []float32{1, 0}, q, 10, nil, true)
		if err != nil {
			t.Fatal(err)
		}
		return keywordIDs(got)
	}
	if kw := query("red"); !slices.Equal(kw, []string{"a#0", "a#2"}) {
		t.Fatalf("red = %v", kw)
	}
	if spy.calls["a"] != 1 || spy.calls["b"] != 1 {
		t.Fatalf("reads after the first query = %v; want one per document", spy.calls)
	}
	query("berries")
	query("pears")
	if spy.total() != 2 {
		t.Fatalf("later queries read documents: %v", spy.calls)
	}
	addChunks(t, ix, spy, "c", "red wine|white wine", nil)
	if spy.calls["c"] != 1 || spy.total() != 3 {
		t.Fatalf("reads after a commit = %v; want document c once", spy.calls)
	}
	if kw := query("red"); !slices.Equal(kw, []string{"a#0", "a#2", "c#0"}) {
		t.Fatalf("red after insert = %v", kw)
	}
	if err := ix.DeleteItems(ctxb, []string{"a#0"}); err != nil {
		t.Fatal(err)
	}
	if kw := query("red"); !slices.Equal(kw, []string{"a#2", "c#0"}) {
		t.Fatalf("red after delete = %v", kw)
	}
	// Replace a chunk's span: its terms change.
	spy.mu.Lock()
	spy.texts["b"] = "red berries"
	spy.mu.Unlock()
	if _, err := ix.UpsertItem(ctxb, IndexItem{ID: "b#0", Vector: []float32{0, 1}, Metadata: Metadata{"documentId": "b", "startPos": 0, "endPos": 10}}); err != nil {
		t.Fatal(err)
	}
	if kw := query("red"); !slices.Equal(kw, []string{"a#2", "b#0", "c#0"}) {
		t.Fatalf("red after replace = %v", kw)
	}
	if spy.total() != 4 {
		t.Fatalf("reads = %v", spy.calls)
	}
	// The incrementally kept index equals one built from scratch.
	s := ix.cur.Load()
	docs := make([]*bm25.Doc, s.len())
	var slots []int
	for i := range s.len() {
		if _, _, _, ok := ChunkSpan(s.meta[i]); ok && !s.isDead(i) {
			slots = append(slots, i)
		}
	}
	if err := ix.keywords.indexChunks(ctxb, s, slots, docs); err != nil {
		t.Fatal(err)
	}
	if inc, fresh := s.bm25.Load(), bm25.NewIndex(docs, s.serials); !inc.Equal(fresh) {
		t.Fatalf("the incrementally kept index %+v differs from one built from scratch %+v", inc, fresh)
	}
}

// BM25 scores are Okapi BM25 with k1 1.2 and b 0.75 over every chunk, and
// equal scores rank in storage order.
func TestBM25Scores(t *testing.T) {
	texts := map[string]string{"d": "alpha beta|alpha alpha gamma|beta gamma delta epsilon|alpha beta"}
	ix, _, _ := chunkIndex(t, texts, nil)
	for i := range 10 {
		mustInsert(t, ix, fmt.Sprint("top", i), []float32{1, 0}, nil)
	}
	got, err := ix.QueryItems(ctxb, []float32{1, 0}, "alpha beta", 10, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	// Expected, by hand: N=4 chunks, lengths 2,3,4,2, avgdl 11/4.
	docs := [][]string{{"alpha", "beta"}, {"alpha", "alpha", "gamma"}, {"beta", "gamma", "delta", "epsilon"}, {"alpha", "beta"}}
	idf := func(df float64) float64 { return math.Log((4-df+0.5)/(df+0.5) + 1) }
	score := func(d []string) float64 {
		var s float64
		for _, term := range []string{"alpha", "beta"} {
			tf, df := 0.0, 0.0
			for _, w := range d {
				if w == term {
					tf++
				}
			}
			for _, o := range docs {
				if slices.Contains(o, term) {
					df++
				}
			}
			s += idf(df) * tf * 2.2 / (tf + 1.2*(0.25+0.75*float64(len(d))/2.75))
		}
		return s
	}
	// The vector top 10 is the top items; every chunk is a keyword hit.
	want := []struct {
		id    string
		score float64
	}{{"d#0", score(docs[0])}, {"d#1", score(docs[1])}, {"d#2", score(docs[2])}, {"d#3", score(docs[3])}}
	slices.SortStableFunc(want, func(a, b struct {
		id    string
		score float64
	}) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return 0
	})
	kw := got[10:]
	if len(kw) != len(want) {
		t.Fatalf("keyword hits = %v", resultIDs(kw))
	}
	for i, w := range want {
		if kw[i].Item.ID != w.id || math.Abs(kw[i].Score-w.score) > 1e-12 {
			t.Fatalf("hit %d = %s %v; want %s %v", i, kw[i].Item.ID, kw[i].Score, w.id, w.score)
		}
	}
}

func TestHybridQueryCancelled(t *testing.T) {
	ix, _, _ := chunkIndex(t, map[string]string{"d": "one|two"}, nil)
	ctx, cancel := context.WithCancel(ctxb)
	ix.docReader = func(ctx context.Context, id string) (string, error) {
		cancel()
		return "", ctx.Err()
	}
	if _, err := ix.QueryItems(ctx, []float32{1, 0}, "one", 1, nil, true); !errors.Is(err, context.Canceled) {
		t.Fatalf("QueryItems = %v; want context.Canceled", err)
	}
	if ix.cur.Load().bm25.Load() != nil {
		t.Fatal("a cancelled build was kept")
	}
}
