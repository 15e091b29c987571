package testkit_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net/http"
	"slices"
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

func TestEmbeddingsServerAnswersAsOpenAIDoes(t *testing.T) {
	srv := testkit.NewEmbeddingsServer(t, testkit.EmbeddingsServerOptions{APIKey: "k"})
	post := func(path, key, body string) (*http.Response, []byte) {
		t.Helper()
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, srv.URL+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp, b
	}
	if resp, _ := post("/v1/embeddings", "wrong", `{"input":["a"]}`); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a wrong key: status %d, want 401", resp.StatusCode)
	}
	if resp, _ := post("/v1/other", "k", `{"input":["a"]}`); resp.StatusCode != http.StatusNotFound {
		t.Errorf("another path: status %d, want 404", resp.StatusCode)
	}
	resp, body := post("/v1/embeddings", "k", `{"input":["red fox","blue sky"],"model":"m"}`)
	var out struct {
		Data []struct {
			Embedding []float32 `json:"embedding"`
			Index     int       `json:"index"`
		} `json:"data"`
		Model string `json:"model"`
	}
	if err := json.Unmarshal(body, &out); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d, %v: %s", resp.StatusCode, err, body)
	}
	if len(out.Data) != 2 || out.Model != "m" || out.Data[1].Index != 1 ||
		!slices.Equal(out.Data[1].Embedding, testkit.WordVector("blue sky", 16)) {
		t.Errorf("answer %s", body)
	}
	if n := srv.Calls.Load(); n != 1 {
		t.Errorf("Calls = %d, want the 1 answered", n)
	}
}
