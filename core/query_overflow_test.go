package core

import (
	"math"
	"testing"
)

func TestQueryScoresStayCosinesWhenTheFloat32DotProductOverflows(t *testing.T) {
	const big = 3e38
	tests := []struct {
		name    string
		items   map[string][]float32
		order   []string // insertion order
		query   []float32
		wantIDs []string
		want    map[string]float64
	}{
		{
			name:    "an overflowing positive dot product scores its cosine and ranks below a perfect match",
			items:   map[string][]float32{"a": {1, 0}, "big": {big, big}},
			order:   []string{"a", "big"},
			query:   []float32{big, 0},
			wantIDs: []string{"a", "big"},
			want:    map[string]float64{"a": 1, "big": math.Sqrt(0.5)},
		},
		{
			name:    "an overflowing negative dot product scores its cosine, not -Inf",
			items:   map[string][]float32{"neg": {-big, 0}, "a": {0, 1}},
			order:   []string{"neg", "a"},
			query:   []float32{big, 0},
			wantIDs: []string{"a", "neg"},
			want:    map[string]float64{"a": 0, "neg": -1},
		},
		{
			name:    "an overflow of opposite signs (NaN in float32) scores its cosine",
			items:   map[string][]float32{"x": {big, big}, "a": {1, 0}},
			order:   []string{"x", "a"},
			query:   []float32{big, -big / 2},
			wantIDs: []string{"a", "x"},
			want:    map[string]float64{"a": 2 / math.Sqrt(5), "x": 1 / math.Sqrt(10)},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ix, _ := newCreatedIndex(t, CreateIndexConfig{})
			for _, id := range tc.order {
				mustInsert(t, ix, id, tc.items[id], nil)
			}
			res, err := ix.QueryItems(ctxb, tc.query, "", len(tc.order), nil, false)
			if err != nil {
				t.Fatal(err)
			}
			if got := resultIDs(res); len(got) != len(tc.wantIDs) || got[0] != tc.wantIDs[0] || got[1] != tc.wantIDs[1] {
				t.Fatalf("ids = %v; want %v", got, tc.wantIDs)
			}
			for _, r := range res {
				if want := tc.want[r.Item.ID]; math.Abs(r.Score-want) > 1e-6 {
					t.Errorf("score of %s = %v; want %v", r.Item.ID, r.Score, want)
				}
			}
		})
	}
}
