package core

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// ChunkSpan reads positions by JavaScript's Number(), and every reader of a
// chunk's span agrees on odd metadata: rendering, keyword search and
// ChunkTexts (which the folio command and the gRPC server print).
func TestOddSpansReadAlikeEverywhere(t *testing.T) {
	ctx := context.Background()
	const text = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima"
	//            0         1         2         3         4         5         6
	//            0123456789012345678901234567890123456789012345678901234567890123456789
	tests := []struct {
		start, end any
		want       [2]int
	}{
		{"0x10", " 30 ", [2]int{16, 30}},    // "rlie delta echo"
		{"", 12.0, [2]int{0, 12}},           // "alpha bravo c"
		{" 12 ", "0b11111", [2]int{12, 31}}, // "charlie delta echo "
		{12.0, "36", [2]int{12, 36}},
	}
	for _, tc := range tests {
		env := newCreatedDocEnv(t, nil)
		doc := mustUpsertDoc(t, env.ix, "doc", "placeholder", "", nil)
		// Replace the document's chunks with one of odd metadata over text.
		if err := env.st.UpsertFile(ctx, env.path(doc.ID()+".txt"), []byte(text)); err != nil {
			t.Fatal(err)
		}
		for _, c := range docChunks(t, env.ix, doc.ID()) {
			if err := env.ix.DeleteItem(ctx, c.ID); err != nil {
				t.Fatal(err)
			}
		}
		md := Metadata{"documentId": doc.ID(), "startPos": tc.start, "endPos": tc.end}
		if _, err := env.ix.InsertItem(ctx, IndexItem{Vector: docTestVector(text), Metadata: md}); err != nil {
			t.Fatal(err)
		}
		want := text[tc.want[0] : tc.want[1]+1]
		if id, s, e, ok := ChunkSpan(md); !ok || id != doc.ID() || s != tc.want[0] || e != tc.want[1] {
			t.Fatalf("ChunkSpan(%v, %v) = %v %d %d %v, want %v", tc.start, tc.end, id, s, e, ok, tc.want)
		}
		ix := env.open(t) // a new process: nothing cached
		res, err := ix.QueryDocuments(ctx, "delta", &DocumentQueryOptions{IsBm25: true})
		if err != nil || len(res) != 1 {
			t.Fatalf("query: %v, %v", res, err)
		}
		texts, err := res[0].ChunkTexts(ctx)
		if err != nil || !slices.Contains(texts, want) {
			t.Errorf("%v–%v: ChunkTexts %q, want %q", tc.start, tc.end, texts, want)
		}
		// A budget under the text's 72 tokens: not the whole text.
		sections, err := res[0].Render(ctx, &RenderOptions{MaxTokens: 40, VectraSections: true, NoOverlap: true})
		if err != nil || len(sections) == 0 || sections[0].Text != want {
			t.Errorf("%v–%v: rendered %+v (%v), want %q", tc.start, tc.end, sections, err, want)
		}
		// Keyword search indexes the same span: a word inside it is found,
		// one outside is not.
		inside, outside := strings.Fields(want)[1], "lima"
		for word, found := range map[string]bool{inside: true, outside: false} {
			kw, err := ix.Query(ctx, ItemQuery{Vector: docTestVector("zzz"), Query: word, TopK: 1, IsBm25: true, fusion: true})
			if err != nil {
				t.Fatal(err)
			}
			got := false
			for _, r := range kw {
				if _, isKW := r.Item.Metadata["isBm25"]; isKW {
					got = true
				}
			}
			if got != found {
				t.Errorf("%v–%v: keyword %q found %v, want %v", tc.start, tc.end, word, got, found)
			}
		}
	}
}
