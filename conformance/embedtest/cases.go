package embedtest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/foliovec/folio/core"
)

// sampleInputs are distinct, short texts (well under any model's token
// budget together) in several scripts.
var sampleInputs = []string{
	"The quick brown fox jumps over the lazy dog.",
	"Vector databases store embeddings for similarity search.",
	"Der schnelle braune Fuchs springt über den faulen Hund.",
	"東京は日本の首都です。",
	"emoji 🎉 party and symbols #1 @home",
	"go test -race ./...",
}

func cases() []testCase {
	return []testCase{
		rule("MaxTokens is positive", caseMaxTokens),
		rule("a call returns one vector per input", caseCount),
		rule("a batch's vectors are its inputs' vectors in input order", caseOrder),
		rule("every vector of every call has one dimension", caseDimension),
		rule("repeated calls give the same vectors", caseRepeatable),
		rule("vectors have unit length", caseNormalized),
		rule("an empty input list succeeds with no vectors", caseEmptyList),
		rule("an empty string is embedded or fails with status error", caseEmptyString),
		rule("a cancelled context fails the call with status cancelled", caseCancelled),
		rule("an expired deadline fails the call with status cancelled", caseDeadline),
		rule("a context cancelled during a call ends it complete or cancelled", caseCancelMidCall),
		rule("concurrent calls are safe and give each caller its own vectors", caseConcurrent),
	}
}

// embed calls the model and reports every violation of CheckResponse.
func embed(ctx context.Context, t testing.TB, m core.EmbeddingsModel, inputs []string) (core.EmbeddingsResponse, error) {
	t.Helper()
	resp, err := m.CreateEmbeddings(ctx, inputs)
	if verr := CheckResponse(inputs, resp, err); verr != nil {
		t.Errorf("CreateEmbeddings(%d inputs): %v", len(inputs), verr)
	}
	return resp, err
}

// mustEmbed is embed for calls that must succeed.
func mustEmbed(ctx context.Context, t testing.TB, m core.EmbeddingsModel, inputs []string) [][]float32 {
	t.Helper()
	resp, err := embed(ctx, t, m, inputs)
	if err != nil {
		t.Fatalf("CreateEmbeddings(%d inputs): %v", len(inputs), err)
	}
	if len(resp.Output) != len(inputs) {
		t.FailNow()
	}
	return resp.Output
}

// maxDiff is the largest absolute difference between components of a and b,
// +Inf when their lengths differ.
func maxDiff(a, b []float32) float64 {
	if len(a) != len(b) {
		return math.Inf(1)
	}
	d := 0.0
	for i := range a {
		d = max(d, math.Abs(float64(a[i])-float64(b[i])))
	}
	return d
}

func caseMaxTokens(_ context.Context, t testing.TB, newModel func(testing.TB) core.EmbeddingsModel, _ Capabilities) {
	if n := newModel(t).MaxTokens(); n <= 0 {
		t.Errorf("MaxTokens() = %d, want > 0", n)
	}
}

func caseCount(ctx context.Context, t testing.TB, newModel func(testing.TB) core.EmbeddingsModel, _ Capabilities) {
	m := newModel(t)
	for _, inputs := range [][]string{sampleInputs[:1], sampleInputs[:2], sampleInputs} {
		mustEmbed(ctx, t, m, inputs)
	}
	// The same input twice in one batch is two inputs.
	mustEmbed(ctx, t, m, []string{sampleInputs[0], sampleInputs[0]})
}

func caseOrder(ctx context.Context, t testing.TB, newModel func(testing.TB) core.EmbeddingsModel, caps Capabilities) {
	if !caps.Deterministic {
		t.Skip("order is checked only for models that claim Deterministic")
	}
	m := newModel(t)
	alone := make([][]float32, len(sampleInputs))
	for i, in := range sampleInputs {
		alone[i] = mustEmbed(ctx, t, m, []string{in})[0]
	}
	for i := range alone {
		for j := i + 1; j < len(alone); j++ {
			if maxDiff(alone[i], alone[j]) <= caps.Tolerance {
				t.Errorf("distinct inputs %q and %q give the same vector, so a batch's order cannot be told",
					sampleInputs[i], sampleInputs[j])
			}
		}
	}
	reversed := make([]string, len(sampleInputs))
	for i, in := range sampleInputs {
		reversed[len(reversed)-1-i] = in
	}
	for _, batch := range []struct {
		name  string
		order []int // indexes into sampleInputs
	}{
		{"in order", []int{0, 1, 2, 3, 4, 5}},
		{"reversed", []int{5, 4, 3, 2, 1, 0}},
		{"shuffled", []int{3, 0, 5, 1, 4, 2}},
	} {
		inputs := make([]string, len(batch.order))
		for k, i := range batch.order {
			inputs[k] = sampleInputs[i]
		}
		out := mustEmbed(ctx, t, m, inputs)
		for k, i := range batch.order {
			if d := maxDiff(out[k], alone[i]); d > caps.Tolerance {
				t.Errorf("batch %s: vector %d differs from input %q embedded alone by %g (tolerance %g)",
					batch.name, k, inputs[k], d, caps.Tolerance)
			}
		}
	}
}

func caseDimension(ctx context.Context, t testing.TB, newModel func(testing.TB) core.EmbeddingsModel, caps Capabilities) {
	m := newModel(t)
	dim := caps.Dimensions
	for _, inputs := range [][]string{{"a"}, sampleInputs, {sampleInputs[3]}, {"word " + sampleInputs[1] + " " + sampleInputs[2]}} {
		for i, v := range mustEmbed(ctx, t, m, inputs) {
			if dim <= 0 {
				dim = len(v)
			}
			if len(v) != dim {
				t.Errorf("input %q: vector has %d dimensions, want %d", inputs[i], len(v), dim)
			}
		}
	}
}

func caseRepeatable(ctx context.Context, t testing.TB, newModel func(testing.TB) core.EmbeddingsModel, caps Capabilities) {
	if !caps.Deterministic {
		t.Skip("repeatability is checked only for models that claim Deterministic")
	}
	m := newModel(t)
	first := mustEmbed(ctx, t, m, sampleInputs)
	for round := range 2 {
		again := mustEmbed(ctx, t, m, sampleInputs)
		for i := range first {
			if d := maxDiff(first[i], again[i]); d > caps.Tolerance {
				t.Errorf("call %d: input %q differs from the first call by %g (tolerance %g)",
					round+2, sampleInputs[i], d, caps.Tolerance)
			}
		}
	}
	// A fresh model gives the same vectors too.
	other := mustEmbed(ctx, t, newModel(t), sampleInputs)
	for i := range first {
		if d := maxDiff(first[i], other[i]); d > caps.Tolerance {
			t.Errorf("a second model: input %q differs by %g (tolerance %g)", sampleInputs[i], d, caps.Tolerance)
		}
	}
}

func caseNormalized(ctx context.Context, t testing.TB, newModel func(testing.TB) core.EmbeddingsModel, caps Capabilities) {
	if !caps.Normalized {
		t.Skip("unit length is checked only for models that claim Normalized")
	}
	m := newModel(t)
	for i, v := range mustEmbed(ctx, t, m, sampleInputs) {
		sum := 0.0
		for _, x := range v {
			sum += float64(x) * float64(x)
		}
		if n := math.Sqrt(sum); math.Abs(n-1) > unitTolerance {
			t.Errorf("input %q: vector length %g, want 1", sampleInputs[i], n)
		}
	}
}

func caseEmptyList(ctx context.Context, t testing.TB, newModel func(testing.TB) core.EmbeddingsModel, _ Capabilities) {
	m := newModel(t)
	for _, tc := range []struct {
		name   string
		inputs []string
	}{{"nil", nil}, {"empty", []string{}}} {
		resp, err := embed(ctx, t, m, tc.inputs)
		if err != nil {
			t.Errorf("%s input list: %v, want success", tc.name, err)
			continue
		}
		if len(resp.Output) != 0 {
			t.Errorf("%s input list: %d vectors, want none", tc.name, len(resp.Output))
		}
	}
}

func caseEmptyString(ctx context.Context, t testing.TB, newModel func(testing.TB) core.EmbeddingsModel, caps Capabilities) {
	m := newModel(t)
	dim := caps.Dimensions
	if dim <= 0 {
		dim = len(mustEmbed(ctx, t, m, sampleInputs[:1])[0])
	}
	for _, inputs := range [][]string{{""}, {sampleInputs[0], ""}} {
		resp, err := embed(ctx, t, m, inputs)
		if err != nil {
			var ee *core.EmbeddingsError
			switch {
			case caps.EmbedsEmptyString:
				t.Errorf("inputs %q: %v, want success (the model claims EmbedsEmptyString)", inputs, err)
			case errors.As(err, &ee) && ee.Status != core.EmbeddingsFailed:
				t.Errorf("inputs %q: Status %q, want %q", inputs, ee.Status, core.EmbeddingsFailed)
			}
			continue
		}
		for i, v := range resp.Output {
			if len(v) != dim {
				t.Errorf("inputs %q: vector %d has %d dimensions, want %d", inputs, i, len(v), dim)
			}
		}
	}
}

// wantCancelled reports unless err is a cancellation carrying cause.
func wantCancelled(t testing.TB, what string, resp core.EmbeddingsResponse, err, cause error) {
	t.Helper()
	var ee *core.EmbeddingsError
	switch {
	case err == nil:
		t.Errorf("%s: the call succeeded, want Status %q", what, core.EmbeddingsCancelled)
	case !errors.As(err, &ee):
		// CheckResponse has reported it.
	case ee.Status != core.EmbeddingsCancelled:
		t.Errorf("%s: Status %q, want %q", what, ee.Status, core.EmbeddingsCancelled)
	default:
		if !errors.Is(err, core.ErrEmbeddingsCancelled) {
			t.Errorf("%s: errors.Is(err, core.ErrEmbeddingsCancelled) is false", what)
		}
		if !errors.Is(err, cause) {
			t.Errorf("%s: errors.Is(err, %v) is false: the context's error must pass through (set EmbeddingsError.Err)", what, cause)
		}
		if resp.Status != core.EmbeddingsCancelled {
			t.Errorf("%s: response Status %q, want %q", what, resp.Status, core.EmbeddingsCancelled)
		}
	}
}

func caseCancelled(ctx context.Context, t testing.TB, newModel func(testing.TB) core.EmbeddingsModel, _ Capabilities) {
	m := newModel(t)
	for _, inputs := range [][]string{sampleInputs[:1], sampleInputs} {
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		resp, err := embed(cctx, t, m, inputs)
		wantCancelled(t, fmt.Sprintf("%d inputs", len(inputs)), resp, err, context.Canceled)
	}
	// The model still works afterwards.
	mustEmbed(ctx, t, m, sampleInputs[:1])
}

func caseDeadline(ctx context.Context, t testing.TB, newModel func(testing.TB) core.EmbeddingsModel, _ Capabilities) {
	m := newModel(t)
	dctx, cancel := context.WithDeadline(ctx, time.Now().Add(-time.Second))
	defer cancel()
	resp, err := embed(dctx, t, m, sampleInputs)
	wantCancelled(t, "past deadline", resp, err, context.DeadlineExceeded)
}

func caseCancelMidCall(ctx context.Context, t testing.TB, newModel func(testing.TB) core.EmbeddingsModel, _ Capabilities) {
	m := newModel(t)
	for _, delay := range []time.Duration{0, 50 * time.Microsecond, 500 * time.Microsecond, 5 * time.Millisecond} {
		cctx, cancel := context.WithCancel(ctx)
		timer := time.AfterFunc(delay, cancel)
		resp, err := embed(cctx, t, m, sampleInputs)
		timer.Stop()
		cancel()
		if err != nil {
			wantCancelled(t, fmt.Sprintf("cancelled after %v", delay), resp, err, context.Canceled)
		}
	}
}

func caseConcurrent(ctx context.Context, t testing.TB, newModel func(testing.TB) core.EmbeddingsModel, caps Capabilities) {
	m := newModel(t)
	var want [][]float32
	if caps.Deterministic {
		want = make([][]float32, len(sampleInputs))
		for i, in := range sampleInputs {
			want[i] = mustEmbed(ctx, t, m, []string{in})[0]
		}
	}
	const goroutines, calls = 8, 3
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for c := range calls {
				// Each caller embeds its own rotation of the samples.
				idx := make([]int, 1+(g+c)%len(sampleInputs))
				inputs := make([]string, len(idx))
				for k := range idx {
					idx[k] = (g + c + k) % len(sampleInputs)
					inputs[k] = sampleInputs[idx[k]]
				}
				resp, err := embed(ctx, t, m, inputs)
				if err != nil {
					t.Errorf("goroutine %d call %d: %v", g, c, err)
					continue
				}
				if want == nil || len(resp.Output) != len(inputs) {
					continue
				}
				for k, i := range idx {
					if d := maxDiff(resp.Output[k], want[i]); d > caps.Tolerance {
						t.Errorf("goroutine %d call %d: vector %d differs from input %q embedded alone by %g",
							g, c, k, inputs[k], d)
					}
				}
			}
		})
	}
	wg.Wait()
}
