package embedhash

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/foliovec/folio/conformance/embedtest"
	"github.com/foliovec/folio/conformance/testkit"
	"github.com/foliovec/folio/core"
)

func TestMatchesTheFixturesFakeEmbeddingsBitForBit(t *testing.T) {
	fake := testkit.ReadInputs(t).FakeEmbeddings
	dims, maxTokens, entries := fake.Dims, fake.MaxTokens, fake.Reference
	if len(entries) == 0 {
		t.Fatal("inputs.json has no fakeEmbeddings.reference")
	}
	if dims != 32 || maxTokens != 500 {
		t.Fatalf("fixtures use %d dimensions and maxTokens %d; this test expects 32 and 500", dims, maxTokens)
	}
	m := New(&Options{Dimensions: dims})
	if m.MaxTokens() != maxTokens {
		t.Errorf("MaxTokens() = %d, want the fixtures' %d", m.MaxTokens(), maxTokens)
	}
	for _, e := range entries {
		t.Run(e.Input, func(t *testing.T) {
			var words []string
			var hashes []uint32
			eachWord(e.Input, func(start, end int, h uint32) {
				words = append(words, strings.Map(func(r rune) rune {
					if 'A' <= r && r <= 'Z' {
						return r + 'a' - 'A'
					}
					return r
				}, e.Input[start:end]))
				hashes = append(hashes, h)
			})
			if !slices.Equal(words, e.Tokens) && !(len(words) == 0 && len(e.Tokens) == 0) {
				t.Errorf("words %q, want %q", words, e.Tokens)
			}
			if !slices.Equal(hashes, e.FNV1a32) && !(len(hashes) == 0 && len(e.FNV1a32) == 0) {
				t.Errorf("hashes %v, want %v", hashes, e.FNV1a32)
			}
			if got := vector(e.Input, dims); !slices.Equal(got, e.Vector) {
				t.Errorf("float64 vector\n got %v\nwant %v", got, e.Vector)
			}
			resp, err := m.CreateEmbeddings(t.Context(), []string{e.Input})
			if err != nil {
				t.Fatal(err)
			}
			for i, x := range resp.Output[0] {
				if want := float32(e.Vector[i]); x != want {
					t.Errorf("component %d = %v, want %v", i, x, want)
				}
			}
		})
	}
}

func TestConformance(t *testing.T) {
	for _, dims := range []int{32, 384} {
		embedtest.Run(t, func(testing.TB) core.EmbeddingsModel { return New(&Options{Dimensions: dims}) },
			embedtest.Capabilities{Deterministic: true, Normalized: true, Dimensions: dims, EmbedsEmptyString: true})
	}
}

func TestOptions(t *testing.T) {
	tests := []struct {
		name          string
		opts          Options
		dims, maxToks int
	}{
		{"zero options give 384 dimensions and 500 tokens", Options{}, 384, 500},
		{"negative values mean the defaults", Options{Dimensions: -3, MaxTokens: -1}, 384, 500},
		{"explicit values are kept", Options{Dimensions: 7, MaxTokens: 8191}, 7, 8191},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := New(&tc.opts)
			if m.Dimensions() != tc.dims || m.MaxTokens() != tc.maxToks {
				t.Fatalf("Dimensions() = %d, MaxTokens() = %d, want %d, %d", m.Dimensions(), m.MaxTokens(), tc.dims, tc.maxToks)
			}
			resp, err := m.CreateEmbeddings(t.Context(), []string{"some words"})
			if err != nil {
				t.Fatal(err)
			}
			if len(resp.Output[0]) != tc.dims {
				t.Fatalf("vector has %d dimensions, want %d", len(resp.Output[0]), tc.dims)
			}
		})
	}
}

func TestEmbeddingRules(t *testing.T) {
	m := New(&Options{Dimensions: 64})
	embed := func(text string) []float32 {
		t.Helper()
		resp, err := m.CreateEmbeddings(context.Background(), []string{text})
		if err != nil {
			t.Fatal(err)
		}
		return resp.Output[0]
	}
	tests := []struct {
		name string
		a, b string
		same bool
	}{
		{"ASCII case is ignored", "Vector Search", "vector search", true},
		{"punctuation and whitespace separate words only", "vector, search!", "vector\tsearch", true},
		{"word order is ignored", "search vector", "vector search", true},
		{"non-ASCII letters are not case-folded", "ÉCOLE", "école", false},
		{"different words give different vectors", "vector search", "banana bread", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := dot(embed(tc.a), embed(tc.b)) // unit vectors: the cosine
			if same := math.Abs(c-1) < 1e-6; same != tc.same {
				t.Fatalf("cosine(%q, %q) = %v, want same=%v", tc.a, tc.b, c, tc.same)
			}
		})
	}
	if v := embed("!!! ---"); v[0] != 1 || slices.ContainsFunc(v[1:], func(x float32) bool { return x != 0 }) {
		t.Errorf("a text without words gives %v, want [1, 0, …]", v)
	}
}

func TestCancelledContextFailsWithStatusCancelled(t *testing.T) {
	m := New(nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	resp, err := m.CreateEmbeddings(ctx, []string{"a", "b"})
	var ee *core.EmbeddingsError
	if !errors.As(err, &ee) || ee.Status != core.EmbeddingsCancelled {
		t.Fatalf("err = %v, want a cancelled *core.EmbeddingsError", err)
	}
	if !errors.Is(err, context.Canceled) || !errors.Is(err, core.ErrEmbeddingsCancelled) {
		t.Fatalf("err = %v does not match context.Canceled and core.ErrEmbeddingsCancelled", err)
	}
	if resp.Status != core.EmbeddingsCancelled || resp.Message != ee.Message || resp.Output != nil {
		t.Fatalf("response = %+v, want Status cancelled, the error's Message and no vectors", resp)
	}
}

func FuzzEmbedding(f *testing.F) {
	for _, s := range []string{"", "Hello, World! café 👋", "x1 x2\tx3\nx4", "\xff\xfe", "ÀÉÎ àéî ß İ"} {
		f.Add(s)
	}
	m := New(&Options{Dimensions: 32})
	f.Fuzz(func(t *testing.T, text string) {
		resp, err := m.CreateEmbeddings(context.Background(), []string{text})
		if err != nil {
			t.Fatal(err)
		}
		v := resp.Output[0]
		sum := 0.0
		for _, x := range v {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				t.Fatalf("component %v", x)
			}
			sum += float64(x) * float64(x)
		}
		if math.Abs(math.Sqrt(sum)-1) > 1e-5 {
			t.Fatalf("length %v, want 1", math.Sqrt(sum))
		}
	})
}

func dot(a, b []float32) float64 {
	s := 0.0
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}
