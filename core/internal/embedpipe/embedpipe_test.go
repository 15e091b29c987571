package embedpipe

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
)

func TestBatches(t *testing.T) {
	tokens := []int{3, 3, 5, 20, 1, 1}
	at := func(i int) int { return tokens[i] }
	for _, tc := range []struct {
		limit int
		want  [][2]int
	}{
		{10, [][2]int{{0, 2}, {2, 3}, {3, 4}, {4, 6}}}, // 20 goes alone
		{0, [][2]int{{0, 6}}},
		{100, [][2]int{{0, 6}}},
	} {
		if got := Batches(len(tokens), tc.limit, at); !slices.Equal(got, tc.want) {
			t.Errorf("limit %d: %v, want %v", tc.limit, got, tc.want)
		}
	}
	if got := Batches(0, 10, at); got != nil {
		t.Errorf("no inputs: %v", got)
	}
}

// Run embeds every chunk of every document in requests within the token
// limit, reports each document once with its vectors in order, and stops
// with the first error.
func TestRun(t *testing.T) {
	docs := [][]string{{"a1", "a2", "a3"}, {}, {"c1"}, {"d1", "d2"}}
	var mu sync.Mutex
	var requests [][]string
	cfg := Config{
		Concurrency: 2,
		MaxTokens:   2,
		Split: func(_ context.Context, i int) (Doc, error) {
			return Doc{Texts: docs[i], Tokens: slices.Repeat([]int{1}, len(docs[i]))}, nil
		},
		Embed: func(_ context.Context, inputs []string) ([][]float32, error) {
			mu.Lock()
			requests = append(requests, inputs)
			mu.Unlock()
			out := make([][]float32, len(inputs))
			for i, in := range inputs {
				out[i] = []float32{float32(len(in)), float32(in[1] - '0')}
			}
			return out, nil
		},
	}
	ready := map[int][][]float32{}
	calls, chunks := 0, 0
	for e := range Run(context.Background(), cfg, []int{0, 1, 2, 3}) {
		switch {
		case e.Err != nil:
			t.Fatal(e.Err)
		case e.Call:
			calls++
			chunks += e.Chunks
		case e.Doc >= 0:
			if _, dup := ready[e.Doc]; dup {
				t.Fatalf("document %d reported twice", e.Doc)
			}
			ready[e.Doc] = e.Vectors
		}
	}
	if len(ready) != 4 || chunks != 6 || calls != len(requests) || calls != 3 {
		t.Fatalf("%d documents, %d chunks in %d calls (%d requests)", len(ready), chunks, calls, len(requests))
	}
	for _, r := range requests {
		if len(r) > 2 {
			t.Fatalf("a request of %d inputs passes the limit of 2 tokens", len(r))
		}
	}
	if v := ready[0]; len(v) != 3 || v[2][1] != 3 {
		t.Fatalf("document 0's vectors out of order: %v", v)
	}
	boom := errors.New("boom")
	cfg.Embed = func(context.Context, []string) ([][]float32, error) { return nil, boom }
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var got error
	for e := range Run(ctx, cfg, []int{0, 3}) {
		if e.Err != nil && got == nil {
			got = e.Err
			cancel()
		}
	}
	if got != boom {
		t.Fatalf("first error %v, want %v", got, boom)
	}
}
