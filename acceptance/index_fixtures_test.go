package acceptance_test

import (
	"context"
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"testing"

	codecjson "github.com/foliovec/folio/adapters/codec-json"
	codecpb "github.com/foliovec/folio/adapters/codec-pb"
	"github.com/foliovec/folio/conformance/testkit"
	"github.com/foliovec/folio/core"
)

// Acceptance: the item folders Vectra 0.15 wrote open in Folio, and their
// queries and filters (inputs.json) return what an exact float64
// brute-force scan over Vectra's own read-back (dumps/) returns.

// fakeTokens and fakeEmbed implement the fixtures' fake embeddings model
// (testdata/vectra-0.15/README.md), independently of adapters/embed-hash.
func fakeTokens(text string) []string {
	var out []string
	b := []byte(text)
	start := -1
	for i := 0; i <= len(b); i++ {
		word := false
		if i < len(b) {
			c := b[i]
			if 'A' <= c && c <= 'Z' {
				b[i] = c + 'a' - 'A'
				c = b[i]
			}
			word = 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c >= 0x80
		}
		switch {
		case word && start < 0:
			start = i
		case !word && start >= 0:
			out = append(out, string(b[start:i]))
			start = -1
		}
	}
	return out
}

func fnv1a32(s string) uint32 {
	h := uint32(0x811C9DC5)
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= 0x01000193
	}
	return h
}

func fakeEmbed(text string, dims int) []float64 {
	v := make([]float64, dims)
	for _, tok := range fakeTokens(text) {
		h := fnv1a32(tok)
		sign := 1.0
		if h>>31 == 1 {
			sign = -1
		}
		v[h%uint32(dims)] += sign * (1 + float64((h>>8)&0xFF)/256)
	}
	var sum float64
	for _, x := range v {
		sum += x * x
	}
	n := math.Sqrt(sum)
	if n == 0 {
		v[0] = 1
		return v
	}
	for i := range v {
		v[i] /= n
	}
	return v
}

func toFloat32(v []float64) []float32 {
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(x)
	}
	return out
}

func TestFakeEmbeddingsMatchTheReference(t *testing.T) {
	in := testkit.ReadInputs(t)
	if len(in.FakeEmbeddings.Reference) == 0 {
		t.Fatal("no reference vectors")
	}
	for _, ref := range in.FakeEmbeddings.Reference {
		toks := fakeTokens(ref.Input)
		if !slices.Equal(toks, ref.Tokens) && !(len(toks) == 0 && len(ref.Tokens) == 0) {
			t.Fatalf("tokens(%q) = %q; want %q", ref.Input, toks, ref.Tokens)
		}
		for i, tok := range toks {
			if fnv1a32(tok) != ref.FNV1a32[i] {
				t.Fatalf("fnv1a32(%q) = %d; want %d", tok, fnv1a32(tok), ref.FNV1a32[i])
			}
		}
		if got := fakeEmbed(ref.Input, in.FakeEmbeddings.Dims); !slices.Equal(got, ref.Vector) {
			t.Fatalf("embed(%q) = %v; want %v (bit for bit)", ref.Input, got, ref.Vector)
		}
	}
}

// refSelect evaluates the fixture filters on inline metadata with Folio's
// semantics (design §5: $in/$nin are membership, numbers match numbers), an
// implementation independent of core's.
func refSelect(md map[string]any, f map[string]any) bool {
	for key, cond := range f {
		switch key {
		case "$and":
			for _, sub := range cond.([]any) {
				if !refSelect(md, sub.(map[string]any)) {
					return false
				}
			}
		case "$or":
			ok := false
			for _, sub := range cond.([]any) {
				ok = ok || refSelect(md, sub.(map[string]any))
			}
			if !ok {
				return false
			}
		default:
			v, present := md[key]
			if !present || v == nil {
				return false
			}
			ops, isOps := cond.(map[string]any)
			if !isOps {
				ops = map[string]any{"$eq": cond}
			}
			for op, x := range ops {
				if !refOp(v, op, x) {
					return false
				}
			}
		}
	}
	return true
}

func refOp(v any, op string, x any) bool {
	num := func(a any) (float64, bool) { f, ok := a.(float64); return f, ok }
	switch op {
	case "$eq":
		return v == x
	case "$ne":
		return v != x
	case "$gt", "$gte", "$lt", "$lte":
		a, ok1 := num(v)
		b, ok2 := num(x)
		if !ok1 || !ok2 {
			return false
		}
		return map[string]bool{"$gt": a > b, "$gte": a >= b, "$lt": a < b, "$lte": a <= b}[op]
	case "$in", "$nin":
		in := slices.Contains(x.([]any), v)
		return in == (op == "$in")
	}
	panic("operator " + op + " not used by the fixtures")
}

type fixtureCase struct {
	folder string
	codec  core.IndexCodec
}

var itemFixtures = []fixtureCase{
	{"items-json", codecjson.New()},
	{"items-protobuf", codecpb.New()},
	{"items-migrated-protobuf", codecpb.New()},
}

func TestVectraItemFixtures(t *testing.T) {
	fx := testkit.FixtureDir(t)
	in := testkit.ReadInputs(t)
	if len(in.ItemQueries) == 0 || len(in.ListFilters) == 0 {
		t.Fatal("inputs.json has no item queries or filters")
	}
	ctx := context.Background()
	for _, fc := range itemFixtures {
		t.Run(fc.folder, func(t *testing.T) {
			dump := testkit.ReadDump(t, fc.folder)
			ix := openFixture(t, filepath.Join(fx, fc.folder), fc.codec)

			t.Run("stats and every item read back as Vectra reads them", func(t *testing.T) {
				stats, err := ix.GetIndexStats(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if stats.Items != dump.Stats.Items || stats.Version != dump.Stats.Version ||
					!slices.Equal(stats.MetadataConfig.Indexed, dump.Stats.MetadataConfig.Indexed) {
					t.Fatalf("stats = %+v; want %+v", stats, dump.Stats)
				}
				items, err := ix.ListItems(ctx)
				if err != nil {
					t.Fatal(err)
				}
				byID := map[string]core.IndexItem{}
				for _, it := range items {
					byID[it.ID] = it
				}
				for _, want := range dump.Items {
					got, ok := byID[want.ID]
					if !ok {
						t.Fatalf("item %s missing", want.ID)
					}
					if !reflect.DeepEqual(map[string]any(got.Metadata), nonNil(want.Metadata)) || got.MetadataFile != want.MetadataFile || got.Norm != want.Norm {
						t.Fatalf("item %s = %+v; want %+v", want.ID, got, want)
					}
					if !slices.Equal(got.Vector, toFloat32(want.Vector)) {
						t.Fatalf("item %s vector differs", want.ID)
					}
				}
			})

			t.Run("item queries return the brute-force ranking with side-car metadata", func(t *testing.T) {
				for qi, q := range in.ItemQueries {
					vec := fakeEmbed(q.Text, in.FakeEmbeddings.Dims)
					for _, filter := range []map[string]any{nil, q.Filter} {
						for _, k := range []int{1, 3, 10, 50} {
							got, err := ix.QueryItems(ctx, toFloat32(vec), q.Text, k, core.Filter(filter), false)
							if err != nil {
								t.Fatal(err)
							}
							want := bruteForceDump(dump, toFloat32(vec), k, filter)
							if ids := queryIDs(got); !slices.Equal(ids, want) {
								t.Fatalf("query %d %q filter %v top %d:\n got %v\nwant %v", qi, q.Text, filter, k, ids, want)
							}
							for _, r := range got {
								d := dump.Item(t, r.Item.ID)
								wantMD := d.Metadata
								if d.MetadataFile != "" {
									wantMD = d.SidecarMetadata
								}
								if !reflect.DeepEqual(map[string]any(r.Item.Metadata), nonNil(wantMD)) {
									t.Fatalf("result %s metadata = %v; want %v", r.Item.ID, r.Item.Metadata, wantMD)
								}
							}
						}
					}
				}
			})

			t.Run("list filters select what the reference filter selects", func(t *testing.T) {
				for fi, f := range in.ListFilters {
					got, err := ix.ListItemsByMetadata(ctx, core.Filter(f))
					if err != nil {
						t.Fatalf("filter %d %v: %v", fi, f, err)
					}
					var want []string
					for _, d := range dump.Items {
						if refSelect(nonNil(d.Metadata), f) {
							want = append(want, d.ID)
						}
					}
					var ids []string
					for _, it := range got {
						ids = append(ids, it.ID)
					}
					if !slices.Equal(ids, want) {
						t.Fatalf("filter %d %v:\n got %v\nwant %v", fi, f, ids, want)
					}
				}
			})
		})
	}
}

// bruteForceDump ranks the dump's items (in id order, which is their
// insertion order) by exact float64 cosine similarity to q over the inline
// metadata filter: zero-norm items last, ties in insertion order.
func bruteForceDump(dump testkit.Dump, q []float32, k int, filter map[string]any) []string {
	type hit struct {
		id    string
		score float64
		def   bool
		pos   int
	}
	var qn float64
	for _, x := range q {
		qn += float64(x) * float64(x)
	}
	qn = math.Sqrt(qn)
	var hits []hit
	for i, d := range dump.Items {
		if filter != nil && !refSelect(nonNil(d.Metadata), filter) {
			continue
		}
		var dot, n float64
		for j, x := range d.Vector {
			v := float64(float32(x)) // the vector as an index holds it
			dot += float64(q[j]) * v
			n += v * v
		}
		n = math.Sqrt(n)
		h := hit{id: d.ID, pos: i}
		if n > 0 && qn > 0 {
			h.score, h.def = dot/(qn*n), true
		}
		hits = append(hits, h)
	}
	sort.SliceStable(hits, func(a, b int) bool {
		if hits[a].def != hits[b].def {
			return hits[a].def
		}
		return hits[a].score > hits[b].score
	})
	var out []string
	for i := 0; i < len(hits) && i < k; i++ {
		out = append(out, hits[i].id)
	}
	return out
}

func queryIDs(rs []core.QueryResult) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Item.ID)
	}
	return out
}

func nonNil(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}
