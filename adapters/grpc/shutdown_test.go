package grpcserver_test

import (
	"context"
	"testing"
	"time"

	grpcserver "github.com/foliovec/folio/adapters/grpc"
	"github.com/foliovec/folio/adapters/grpc/vectrapb"
	"github.com/foliovec/folio/conformance/testkit"
)

// Shutdown does not wait for a call that ignores its cancelled context:
// after the drain period it cancels the calls still running, and after as
// long again it returns without them (SIGTERM once waited 13 minutes for
// such a call).
func TestShutdownDoesNotWaitForACallThatIgnoresItsContext(t *testing.T) {
	// A model that ignores its context and answers only when released,
	// like an encoding that never looks at its deadline.
	model := &testkit.Recorder{Entered: make(chan struct{}, 1), Gate: make(chan struct{}), IgnoreContext: true}
	defer close(model.Gate)
	ts := startServer(t, func(o *grpcserver.Options) { o.Embeddings = model })
	if _, err := ts.client.CreateIndex(t.Context(), &vectrapb.CreateIndexRequest{IndexName: "ix"}); err != nil {
		t.Fatal(err)
	}
	go ts.client.QueryItems(context.Background(), &vectrapb.QueryItemsRequest{IndexName: "ix", Text: "never answered", TopK: 1})
	<-model.Entered
	start := time.Now()
	done := make(chan error, 1)
	go func() { done <- ts.srv.Shutdown(context.Background()) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Shutdown: %v", err)
		}
		t.Logf("Shutdown returned after %v with a stuck call", time.Since(start).Round(time.Millisecond))
	case <-time.After(time.Minute): // not a speed assertion: without the bound it never returns
		t.Fatal("Shutdown is still waiting for a call that ignores its context after a minute")
	}
}
