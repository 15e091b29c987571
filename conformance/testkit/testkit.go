// Package testkit holds what the tests of Folio's modules share, so that
// each exists once: the folders Vectra 0.15 wrote (FixtureDir), what
// Vectra reads back from them and what wrote them (ReadDump, ReadInputs,
// CheckDecodedItems), embeddings models to count, record and hold calls
// with (Words, Recorder), an OpenAI-compatible embeddings server on
// 127.0.0.1 (NewEmbeddingsServer), the test binary started again as a
// child process to kill or to share a folder with (StartChild), a
// one-token-per-character tokenizer (Chars), and the benchmark data set
// (BenchIndex). It is for tests: its helpers fail the test they are given
// rather than return errors, but for StartChild and Child's methods, which
// return them so that goroutines may call them.
//
// # Concurrency
//
// Words and Chars are stateless; a Recorder and an EmbeddingsServer are
// safe for concurrent use.
package testkit

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/foliovec/folio/core"
)

// FixtureDir returns the repository's testdata/vectra-0.15, the index
// folders real Vectra wrote, found by walking up from the test's working
// directory (its package's folder).
func FixtureDir(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		p := filepath.Join(dir, "testdata", "vectra-0.15")
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			return p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("testdata/vectra-0.15 not found above the package directory")
		}
		dir = parent
	}
}

// RealTempDir is t.TempDir with symbolic links resolved (on macOS the
// temporary folder is behind one), for tests that compare paths a walker
// or a watcher reports.
func RealTempDir(t testing.TB) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// ReadFixture reads a file under testdata/vectra-0.15.
func ReadFixture(t testing.TB, elem ...string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(append([]string{FixtureDir(t)}, elem...)...))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// UnitVector is a random direction: dim Gaussian components from r, scaled
// to length 1 (the test and benchmark data sets' vectors).
func UnitVector(r *rand.Rand, dim int) []float32 {
	v := make([]float32, dim)
	var sum float64
	for i := range v {
		x := r.NormFloat64()
		v[i] = float32(x)
		sum += x * x
	}
	scale := float32(1 / math.Sqrt(sum))
	for i := range v {
		v[i] *= scale
	}
	return v
}

// BenchIndex is the benchmark data set, the same on every run (a fixed
// seed): n items with uuid-shaped ids, dims-dimension Gaussian vectors
// scaled to length 1 (their Norm computed from the stored values), and two
// indexed metadata fields, so that no item has a side-car: "category",
// one of ten words, and "year", a number from 1990 to 2024. The vectors
// share one array, one row after another.
func BenchIndex(n, dims int) core.IndexData {
	categories := [10]string{"news", "sports", "tech", "science", "arts", "travel", "food", "health", "business", "music"}
	r := rand.New(rand.NewPCG(20260524, 15))
	d := core.IndexData{
		Version:        1,
		MetadataConfig: core.MetadataConfig{Indexed: []string{"category", "year"}},
		Items:          make([]core.IndexItem, n),
	}
	arena := make([]float32, n*dims)
	for i := range d.Items {
		v := arena[i*dims : (i+1)*dims : (i+1)*dims]
		var sum float64
		for j := range v {
			x := r.NormFloat64()
			v[j] = float32(x)
			sum += x * x
		}
		scale := 1 / math.Sqrt(sum)
		var norm float64
		for j := range v {
			v[j] = float32(float64(v[j]) * scale)
			norm += float64(v[j]) * float64(v[j])
		}
		d.Items[i] = core.IndexItem{
			ID: fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x",
				r.Uint32(), r.Uint32()&0xffff, r.Uint32()&0xfff, r.Uint32()&0xfff, r.Uint64()&0xffffffffffff),
			Metadata: core.Metadata{
				"category": categories[r.IntN(len(categories))],
				"year":     float64(1990 + r.IntN(35)),
			},
			Vector: v,
			Norm:   math.Sqrt(norm),
		}
	}
	return d
}

// WordVector embeds text as its words (split at white space, lowercased)
// hashed with FNV-32a into dims components, plus 0.01 in the first so that
// no vector is zero, normalised to length 1. Texts sharing words are near.
func WordVector(text string, dims int) []float32 {
	v := make([]float32, dims)
	v[0] = 0.01
	for _, w := range strings.Fields(strings.ToLower(text)) {
		h := fnv.New32a()
		h.Write([]byte(w))
		v[h.Sum32()%uint32(dims)]++
	}
	var n float64
	for _, x := range v {
		n += float64(x * x)
	}
	for i := range v {
		v[i] /= float32(math.Sqrt(n))
	}
	return v
}

// Words is an embeddings model of WordVector: Dims components (0 means 8)
// and MaxTokens Tokens (0 means 1000).
type Words struct {
	Dims   int
	Tokens int
}

// MaxTokens is Tokens, 1000 when 0.
func (w Words) MaxTokens() int {
	if w.Tokens == 0 {
		return 1000
	}
	return w.Tokens
}

// CreateEmbeddings embeds each input with WordVector; a call whose
// context has ended answers EmbeddingsCancelled.
func (w Words) CreateEmbeddings(ctx context.Context, inputs []string) (core.EmbeddingsResponse, error) {
	if err := ctx.Err(); err != nil {
		return cancelled(err)
	}
	dims := w.Dims
	if dims == 0 {
		dims = 8
	}
	out := make([][]float32, len(inputs))
	for i, text := range inputs {
		out[i] = WordVector(text, dims)
	}
	return core.EmbeddingsResponse{Status: core.EmbeddingsSuccess, Output: out}, nil
}

// Recorder wraps an embeddings model: it counts calls and inputs, keeps the
// texts embedded, and can hold each call at a gate.
type Recorder struct {
	// Model answers the calls; nil means Words{}.
	Model core.EmbeddingsModel
	// Entered, when not nil, receives a value as each call starts.
	Entered chan struct{}
	// Gate, when not nil, holds each call until it receives a value or is
	// closed; a call whose context ends first answers EmbeddingsCancelled,
	// unless IgnoreContext, with which it waits for the gate alone (a model
	// that ignores its context).
	Gate          chan struct{}
	IgnoreContext bool

	calls, inputs atomic.Int64
	mu            sync.Mutex
	texts         []string
}

func (r *Recorder) model() core.EmbeddingsModel {
	if r.Model == nil {
		return Words{}
	}
	return r.Model
}

// MaxTokens is the model's.
func (r *Recorder) MaxTokens() int { return r.model().MaxTokens() }

// CreateEmbeddings records the call, waits at the gate if there is one, and
// answers what the model does.
func (r *Recorder) CreateEmbeddings(ctx context.Context, inputs []string) (core.EmbeddingsResponse, error) {
	r.calls.Add(1)
	r.inputs.Add(int64(len(inputs)))
	r.mu.Lock()
	r.texts = append(r.texts, inputs...)
	r.mu.Unlock()
	if r.Entered != nil {
		r.Entered <- struct{}{}
	}
	if r.Gate != nil {
		if r.IgnoreContext {
			<-r.Gate
		} else {
			select {
			case <-r.Gate:
			case <-ctx.Done():
				return cancelled(ctx.Err())
			}
		}
	}
	return r.model().CreateEmbeddings(ctx, inputs)
}

// cancelled is the answer to a call whose context ended.
func cancelled(err error) (core.EmbeddingsResponse, error) {
	ee := &core.EmbeddingsError{Status: core.EmbeddingsCancelled, Message: err.Error(), Err: err}
	return core.EmbeddingsResponse{Status: ee.Status, Message: ee.Message}, ee
}

// Calls is the number of calls so far.
func (r *Recorder) Calls() int64 { return r.calls.Load() }

// Inputs is the number of texts embedded so far.
func (r *Recorder) Inputs() int64 { return r.inputs.Load() }

// Forget forgets the texts embedded so far (Embedded then reports only
// later ones); the counts go on.
func (r *Recorder) Forget() {
	r.mu.Lock()
	r.texts = nil
	r.mu.Unlock()
}

// Embedded reports whether a text containing s was embedded.
func (r *Recorder) Embedded(s string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, t := range r.texts {
		if strings.Contains(t, s) {
			return true
		}
	}
	return false
}

// Chars is a tokenizer of one token per character (rune).
type Chars struct{}

// Encode returns the characters of text.
func (Chars) Encode(text string) []int {
	out := make([]int, 0, len(text))
	for _, r := range text {
		out = append(out, int(r))
	}
	return out
}

// Decode returns the text of the characters.
func (Chars) Decode(tokens []int) string {
	rs := make([]rune, len(tokens))
	for i, t := range tokens {
		rs[i] = rune(t)
	}
	return string(rs)
}
