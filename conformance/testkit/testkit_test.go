package testkit_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/foliovec/folio/conformance/embedtest"
	"github.com/foliovec/folio/conformance/testkit"
	"github.com/foliovec/folio/conformance/tokenizertest"
	"github.com/foliovec/folio/core"
)

// The kit's model and tokenizer pass their ports' own suites.
func TestConformance(t *testing.T) {
	embedtest.Run(t, func(testing.TB) core.EmbeddingsModel { return testkit.Words{Dims: 16} }, embedtest.Capabilities{})
	embedtest.Run(t, func(testing.TB) core.EmbeddingsModel { return &testkit.Recorder{} }, embedtest.Capabilities{})
	tokenizertest.Run(t, func(testing.TB) core.Tokenizer { return testkit.Chars{} }, tokenizertest.Capabilities{})
}

func TestWordVectorsAreUnitAndNearForSharedWords(t *testing.T) {
	a, b, c := testkit.WordVector("rivers of Europe", 16), testkit.WordVector("Rivers and lakes", 16), testkit.WordVector("quantum field theory", 16)
	dot := func(x, y []float32) (s float64) {
		for i := range x {
			s += float64(x[i] * y[i])
		}
		return s
	}
	if math.Abs(dot(a, a)-1) > 1e-6 || dot(a, b) <= dot(a, c) {
		t.Errorf("|a|² %v, a·b %v, a·c %v: want 1 and texts sharing a word nearer", dot(a, a), dot(a, b), dot(a, c))
	}
}

func TestRecorderCountsRecordsAndHolds(t *testing.T) {
	r := &testkit.Recorder{Gate: make(chan struct{}), Entered: make(chan struct{}, 1)}
	done := make(chan error, 1)
	go func() {
		_, err := r.CreateEmbeddings(context.Background(), []string{"one text", "another"})
		done <- err
	}()
	<-r.Entered
	select {
	case <-done:
		t.Fatal("the call did not wait at the gate")
	case <-time.After(20 * time.Millisecond):
	}
	close(r.Gate)
	if err := <-done; err != nil || r.Calls() != 1 || r.Inputs() != 2 || !r.Embedded("another") || r.Embedded("missing") {
		t.Errorf("err %v, %d calls, %d inputs", err, r.Calls(), r.Inputs())
	}
	r.Forget()
	if r.Embedded("another") || r.Calls() != 1 {
		t.Error("Forget kept the texts or reset the counts")
	}
	held := &testkit.Recorder{Gate: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var ee *core.EmbeddingsError
	if _, err := held.CreateEmbeddings(ctx, []string{"x"}); !errors.As(err, &ee) || ee.Status != core.EmbeddingsCancelled {
		t.Errorf("a held call whose context ended: %v, want EmbeddingsCancelled", err)
	}
}

func TestFixtureDir(t *testing.T) {
	if dir := testkit.FixtureDir(t); !strings.HasSuffix(dir, "vectra-0.15") || len(testkit.ReadFixture(t, "README.md")) == 0 {
		t.Errorf("FixtureDir = %q", dir)
	}
}
