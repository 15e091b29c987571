package embedtest_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/foliovec/folio/conformance/embedtest"
	"github.com/foliovec/folio/core"
)

// fakeModel embeds a text as the normalized histogram of its bytes over 16
// buckets. Its fields break it in the ways the suite must catch.
type fakeModel struct {
	maxTokens       int
	dropLast        bool          // returns one vector too few
	reverse         bool          // returns a batch's vectors in reverse order
	ignoreCtx       bool          // never looks at ctx
	bareCtxErr      bool          // returns ctx.Err() itself on cancellation
	noCause         bool          // the cancellation error does not wrap ctx.Err()
	deadlineFailed  bool          // an expired deadline is Status error
	statusMismatch  bool          // the response says success on failure
	partial         bool          // a cancelled call returns the vectors made so far
	unnormalized    bool          // vectors of length 2
	varyDim         bool          // dimension depends on the input
	drift           bool          // each call differs slightly from the last
	nan             bool          // a NaN component
	emptyListFails  bool          // an empty input list is an error
	emptyStringFail bool          // an empty string fails
	calls           *atomic.Int64 // counts calls when drift is set
}

func (m *fakeModel) MaxTokens() int { return m.maxTokens }

func (m *fakeModel) cancelled(ctx context.Context, out [][]float32) (core.EmbeddingsResponse, error) {
	err := ctx.Err()
	switch {
	case m.bareCtxErr:
		return core.EmbeddingsResponse{Status: core.EmbeddingsCancelled}, err
	case m.deadlineFailed && errors.Is(err, context.DeadlineExceeded):
		return core.EmbeddingsResponse{Status: core.EmbeddingsFailed, Message: err.Error()},
			&core.EmbeddingsError{Status: core.EmbeddingsFailed, Message: err.Error(), Err: err}
	}
	ee := &core.EmbeddingsError{Status: core.EmbeddingsCancelled, Message: err.Error(), Err: err}
	if m.noCause {
		ee.Err = nil
	}
	resp := core.EmbeddingsResponse{Status: ee.Status, Message: ee.Message}
	if m.statusMismatch {
		resp.Status = core.EmbeddingsSuccess
	}
	if m.partial {
		resp.Output = out
	}
	return resp, ee
}

func (m *fakeModel) CreateEmbeddings(ctx context.Context, inputs []string) (core.EmbeddingsResponse, error) {
	if len(inputs) == 0 && m.emptyListFails {
		return core.EmbeddingsResponse{Status: core.EmbeddingsFailed, Message: "no inputs"},
			&core.EmbeddingsError{Status: core.EmbeddingsFailed, Message: "no inputs"}
	}
	var call int64
	if m.drift {
		call = m.calls.Add(1)
	}
	out := make([][]float32, 0, len(inputs))
	for _, in := range inputs {
		if !m.ignoreCtx && ctx.Err() != nil && !(m.partial && len(out) == 0) {
			return m.cancelled(ctx, out)
		}
		if in == "" && m.emptyStringFail {
			return core.EmbeddingsResponse{Status: core.EmbeddingsFailed, Message: "empty input"},
				&core.EmbeddingsError{Status: core.EmbeddingsFailed, Message: "empty input"}
		}
		out = append(out, m.vector(in, call))
	}
	if m.dropLast && len(out) > 0 {
		out = out[:len(out)-1]
	}
	if m.reverse {
		for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
			out[i], out[j] = out[j], out[i]
		}
	}
	return core.EmbeddingsResponse{Status: core.EmbeddingsSuccess, Output: out}, nil
}

func (m *fakeModel) vector(in string, call int64) []float32 {
	dim := 16
	if m.varyDim && len(in)%2 == 1 {
		dim = 17
	}
	v := make([]float64, dim)
	v[0] = 1
	for i := 0; i < len(in); i++ {
		v[(int(in[i])*31+i)%dim] += float64(in[i]%7 + 1)
	}
	v[0] += float64(call) * 1e-3
	n := 0.0
	for _, x := range v {
		n += x * x
	}
	n = math.Sqrt(n)
	if m.unnormalized {
		n /= 2
	}
	out := make([]float32, dim)
	for i, x := range v {
		out[i] = float32(x / n)
	}
	if m.nan {
		out[1] = float32(math.NaN())
	}
	return out
}

var fullCaps = embedtest.Capabilities{Deterministic: true, Normalized: true, Dimensions: 16, EmbedsEmptyString: true}

func newFactory(proto fakeModel) func(testing.TB) core.EmbeddingsModel {
	return func(testing.TB) core.EmbeddingsModel {
		m := proto
		m.calls = new(atomic.Int64)
		if m.maxTokens == 0 {
			m.maxTokens = 500
		}
		return &m
	}
}

func TestRunPassesACorrectModel(t *testing.T) {
	embedtest.Run(t, newFactory(fakeModel{}), fullCaps)
}

func TestCheckPassesACorrectModel(t *testing.T) {
	if err := embedtest.Check(t.Context(), newFactory(fakeModel{}), fullCaps); err != nil {
		t.Fatalf("Check on a correct model: %v", err)
	}
	if err := embedtest.Check(t.Context(), newFactory(fakeModel{}), embedtest.Capabilities{}); err != nil {
		t.Fatalf("Check on a correct model claiming nothing: %v", err)
	}
}

func TestCheckCatchesBrokenModels(t *testing.T) {
	tests := []struct {
		name     string
		model    fakeModel
		caps     embedtest.Capabilities
		wantRule string
	}{
		{"a dropped vector breaks the count rule", fakeModel{dropLast: true}, embedtest.Capabilities{}, "a call returns one vector per input"},
		{"a reversed batch breaks the order rule", fakeModel{reverse: true}, fullCaps, "in input order"},
		{"ignoring ctx breaks the cancellation rule", fakeModel{ignoreCtx: true}, embedtest.Capabilities{}, "a cancelled context fails the call with status cancelled"},
		{"a bare ctx error is not an EmbeddingsError", fakeModel{bareCtxErr: true}, embedtest.Capabilities{}, "is not a *core.EmbeddingsError"},
		{"a cancellation must wrap the context's error", fakeModel{noCause: true}, embedtest.Capabilities{}, "the context's error must pass through"},
		{"an expired deadline is a cancellation", fakeModel{deadlineFailed: true}, embedtest.Capabilities{}, "an expired deadline fails the call with status cancelled"},
		{"the response must carry the error's status", fakeModel{statusMismatch: true}, embedtest.Capabilities{}, "differs from the error's Status"},
		{"a failed call returns no vectors", fakeModel{partial: true}, embedtest.Capabilities{}, "a failed call returned 1 vectors"},
		{"MaxTokens must be positive", fakeModel{maxTokens: -1}, embedtest.Capabilities{}, "MaxTokens is positive"},
		{"unit length is checked when claimed", fakeModel{unnormalized: true}, fullCaps, "vectors have unit length"},
		{"one dimension for every vector", fakeModel{varyDim: true}, embedtest.Capabilities{}, "has 17 dimensions"},
		{"the claimed dimension is checked", fakeModel{}, embedtest.Capabilities{Dimensions: 8}, "want 8"},
		{"determinism is checked when claimed", fakeModel{drift: true}, fullCaps, "repeated calls give the same vectors"},
		{"vectors are finite", fakeModel{nan: true}, embedtest.Capabilities{}, "is NaN"},
		{"an empty input list succeeds", fakeModel{emptyListFails: true}, embedtest.Capabilities{}, "an empty input list succeeds with no vectors"},
		{"an empty string succeeds when claimed", fakeModel{emptyStringFail: true}, fullCaps, "claims EmbedsEmptyString"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := embedtest.Check(t.Context(), newFactory(tc.model), tc.caps)
			if err == nil {
				t.Fatal("Check passed a broken model")
			}
			if !strings.Contains(err.Error(), tc.wantRule) {
				t.Fatalf("Check did not report %q; it reported:\n%v", tc.wantRule, err)
			}
		})
	}
}

func TestCheckAcceptsAFailingEmptyStringUnlessClaimed(t *testing.T) {
	err := embedtest.Check(t.Context(), newFactory(fakeModel{emptyStringFail: true}), embedtest.Capabilities{Deterministic: true})
	if err != nil {
		t.Fatalf("an empty string failing with Status error is allowed: %v", err)
	}
}

func TestCheckResponse(t *testing.T) {
	cancelled := &core.EmbeddingsError{Status: core.EmbeddingsCancelled, Message: "stop", Err: context.Canceled}
	tests := []struct {
		name    string
		inputs  []string
		resp    core.EmbeddingsResponse
		err     error
		wantErr string // "" when the call is valid
	}{
		{"a success with one vector per input is valid", []string{"a", "b"},
			core.EmbeddingsResponse{Status: core.EmbeddingsSuccess, Output: [][]float32{{1, 0}, {0, 1}}}, nil, ""},
		{"a success must say success", []string{"a"},
			core.EmbeddingsResponse{Output: [][]float32{{1}}}, nil, "has Status"},
		{"a success must not lack vectors", []string{"a", "b"},
			core.EmbeddingsResponse{Status: core.EmbeddingsSuccess, Output: [][]float32{{1}}}, nil, "got 1 vectors for 2 inputs"},
		{"vectors must not be empty", []string{"a"},
			core.EmbeddingsResponse{Status: core.EmbeddingsSuccess, Output: [][]float32{{}}}, nil, "vector 0 is empty"},
		{"vectors share one dimension", []string{"a", "b"},
			core.EmbeddingsResponse{Status: core.EmbeddingsSuccess, Output: [][]float32{{1}, {1, 0}}}, nil, "vector 1 has 2 dimensions"},
		{"infinite components are invalid", []string{"a"},
			core.EmbeddingsResponse{Status: core.EmbeddingsSuccess, Output: [][]float32{{float32(math.Inf(1))}}}, nil, "is +Inf"},
		{"a cancellation mirrored in the response is valid", []string{"a"},
			core.EmbeddingsResponse{Status: core.EmbeddingsCancelled, Message: "stop"}, cancelled, ""},
		{"a wrapped EmbeddingsError is valid", []string{"a"},
			core.EmbeddingsResponse{Status: core.EmbeddingsCancelled, Message: "stop"}, errors.Join(errors.New("ctx"), cancelled), ""},
		{"a failure must be an EmbeddingsError", []string{"a"},
			core.EmbeddingsResponse{Status: core.EmbeddingsFailed}, errors.New("boom"), "is not a *core.EmbeddingsError"},
		{"a failure's status must be a failure status", []string{"a"},
			core.EmbeddingsResponse{Status: core.EmbeddingsSuccess}, &core.EmbeddingsError{Status: core.EmbeddingsSuccess}, "is not error, rate_limited or cancelled"},
		{"the response carries the error's message", []string{"a"},
			core.EmbeddingsResponse{Status: core.EmbeddingsCancelled, Message: "other"}, cancelled, "Message"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := embedtest.CheckResponse(tc.inputs, tc.resp, tc.err)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("CheckResponse: %v, want nil", err)
			case tc.wantErr != "" && err == nil:
				t.Fatalf("CheckResponse: nil, want a violation containing %q", tc.wantErr)
			case tc.wantErr != "" && !strings.Contains(err.Error(), tc.wantErr):
				t.Fatalf("CheckResponse: %v, want a violation containing %q", err, tc.wantErr)
			}
		})
	}
}
