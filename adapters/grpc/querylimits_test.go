package grpcserver_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	channelzpb "google.golang.org/grpc/channelz/grpc_channelz_v1"
	channelzsvc "google.golang.org/grpc/channelz/service"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	grpcserver "github.com/foliovec/folio/adapters/grpc"
	"github.com/foliovec/folio/adapters/grpc/vectrapb"
	"github.com/foliovec/folio/conformance/testkit"
	"github.com/foliovec/folio/core"
)

// A query text over the cap is INVALID_ARGUMENT before anything is
// embedded, for items and documents alike; MaxQueryBytes moves the cap.
func TestQueryTextIsCapped(t *testing.T) {
	for _, tc := range []struct {
		name  string
		limit int
		ok    int // a length accepted
		over  int // a length refused, or 0
	}{
		{"the default cap", 0, grpcserver.DefaultMaxQueryBytes, grpcserver.DefaultMaxQueryBytes + 1},
		{"a cap of 100", 100, 100, 101},
		{"no cap", -1, 200_000, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := t.Context()
			ts := startServer(t, func(o *grpcserver.Options) { o.MaxQueryBytes = tc.limit })
			c := ts.client
			must[*vectrapb.CreateIndexResponse](t, "CreateIndex")(c.CreateIndex(ctx, &vectrapb.CreateIndexRequest{IndexName: "docs", IsDocumentIndex: true}))
			must[*vectrapb.UpsertDocumentResponse](t, "UpsertDocument")(c.UpsertDocument(ctx, &vectrapb.UpsertDocumentRequest{IndexName: "docs", Uri: "a", Text: "some text to find"}))
			calls := map[string]func(text string) error{
				"QueryDocuments": func(text string) error {
					_, err := c.QueryDocuments(ctx, &vectrapb.QueryDocumentsRequest{IndexName: "docs", Query: text})
					return err
				},
				"QueryItems": func(text string) error {
					_, err := c.QueryItems(ctx, &vectrapb.QueryItemsRequest{IndexName: "docs", Text: text, TopK: 1})
					return err
				},
			}
			for name, call := range calls {
				if err := call(strings.Repeat("a ", tc.ok/2)); err != nil {
					t.Errorf("%s of %d bytes: %v", name, tc.ok, err)
				}
				if tc.over == 0 {
					continue
				}
				before := ts.emb.Calls()
				err := call(strings.Repeat("b", tc.over))
				if status.Code(err) != codes.InvalidArgument || !strings.Contains(status.Convert(err).Message(), "bytes") {
					t.Errorf("%s of %d bytes: %v, want INVALID_ARGUMENT naming the size", name, tc.over, err)
				}
				if after := ts.emb.Calls(); after != before {
					t.Errorf("%s: a refused query was embedded", name)
				}
			}
		})
	}
}

// The reproduction of callers that give up: 40 QueryDocuments calls with
// long texts and a 5 ms deadline. Before, every one of them was embedded
// and searched after its caller had gone (one batch, run to the end), and
// the next small query waited behind them; now a caller that leaves takes
// its query with it, so few of the 40 are ever embedded.
func TestCallersThatGiveUpLeaveNoWork(t *testing.T) {
	ctx := t.Context()
	ts := startServer(t, nil)
	c := ts.client
	must[*vectrapb.CreateIndexResponse](t, "CreateIndex")(c.CreateIndex(ctx, &vectrapb.CreateIndexRequest{IndexName: "docs", IsDocumentIndex: true}))
	for i := range 20 {
		must[*vectrapb.UpsertDocumentResponse](t, "UpsertDocument")(c.UpsertDocument(ctx, &vectrapb.UpsertDocumentRequest{IndexName: "docs", Uri: string(rune('a' + i)), Text: strings.Repeat("words to find again ", 50)}))
	}
	long := strings.Repeat("a long query text ", grpcserver.DefaultMaxQueryBytes/18)
	before := ts.emb.Inputs()
	var wg sync.WaitGroup
	for range 40 {
		wg.Go(func() {
			short, cancel := context.WithTimeout(ctx, 5*time.Millisecond)
			defer cancel()
			c.QueryDocuments(short, &vectrapb.QueryDocumentsRequest{IndexName: "docs", Query: long, UseBm25: true}) // gives up
		})
	}
	wg.Wait()
	// The server's own deadlines (5 ms from each call's arrival) have passed
	// well before this; whatever was still to run has been dropped.
	time.Sleep(300 * time.Millisecond)
	embedded := ts.emb.Inputs() - before
	if embedded >= 20 {
		t.Errorf("%d of 40 queries whose callers gave up were embedded anyway", embedded)
	}
	start := time.Now()
	if _, err := c.QueryDocuments(ctx, &vectrapb.QueryDocumentsRequest{IndexName: "docs", Query: "words"}); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d of 40 abandoned queries were embedded; the next small query took %v", embedded, time.Since(start))
}

// Options.Register puts another service on the server's port, behind the
// same bearer token.
func TestRegisterAnotherService(t *testing.T) {
	ts := startServer(t, func(o *grpcserver.Options) {
		o.AuthToken = "secret"
		o.Register = func(s *grpc.Server) { channelzsvc.RegisterChannelzServiceToServer(s) }
	})
	client := channelzpb.NewChannelzClient(ts.conn)
	if _, err := client.GetTopChannels(t.Context(), &channelzpb.GetTopChannelsRequest{}); status.Code(err) != codes.Unauthenticated {
		t.Errorf("the other service without the token: %v, want UNAUTHENTICATED", err)
	}
	ctx := metadata.AppendToOutgoingContext(t.Context(), "authorization", "Bearer secret")
	if _, err := client.GetTopChannels(ctx, &channelzpb.GetTopChannelsRequest{}); err != nil {
		t.Errorf("the other service with the token: %v", err)
	}
}

// Options.Observer hears each refused call and each batch of concurrent
// document queries; Options.ServerOptions' interceptors see every call.
func TestObserverAndServerOptions(t *testing.T) {
	var mu sync.Mutex
	var refused []string
	var batches, batched int
	var intercepted []string
	phases := map[string]int{}
	ts := startServer(t, func(o *grpcserver.Options) {
		o.MaxQueryBytes = 100
		// Each embeddings call takes 200 ms, so that the concurrent
		// queries below queue behind the first and form a batch.
		o.Embeddings = slowModel{testkit.Words{}, 200 * time.Millisecond}
		o.Observer = grpcserver.Observer{
			Refused: func(method, reason string) {
				mu.Lock()
				defer mu.Unlock()
				refused = append(refused, method+" "+reason)
			},
			Batch: func(index string, calls, waiting int) {
				mu.Lock()
				defer mu.Unlock()
				if index != "docs" || calls < 1 || waiting < 0 {
					t.Errorf("batch of %d on %q, %d waiting", calls, index, waiting)
				}
				batches++
				batched += calls
			},
			Phase: func(ctx context.Context, name string) (context.Context, func(error)) {
				mu.Lock()
				phases[name+" started"]++
				mu.Unlock()
				return ctx, func(error) {
					mu.Lock()
					phases[name+" ended"]++
					mu.Unlock()
				}
			},
		}
		o.ServerOptions = []grpc.ServerOption{grpc.ChainUnaryInterceptor(func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
			mu.Lock()
			intercepted = append(intercepted, info.FullMethod)
			mu.Unlock()
			return h(ctx, req)
		})}
	})
	ctx, c := t.Context(), ts.client
	must[*vectrapb.CreateIndexResponse](t, "CreateIndex")(c.CreateIndex(ctx, &vectrapb.CreateIndexRequest{IndexName: "docs", IsDocumentIndex: true}))
	must[*vectrapb.UpsertDocumentResponse](t, "UpsertDocument")(c.UpsertDocument(ctx, &vectrapb.UpsertDocumentRequest{IndexName: "docs", Uri: "a", Text: "some text to find"}))
	c.QueryDocuments(ctx, &vectrapb.QueryDocumentsRequest{IndexName: "docs", Query: strings.Repeat("x", 101)})
	c.QueryItems(ctx, &vectrapb.QueryItemsRequest{IndexName: "docs", Text: strings.Repeat("x", 101), TopK: 1})
	if _, err := c.QueryItems(ctx, &vectrapb.QueryItemsRequest{IndexName: "docs", Text: "text", TopK: 1}); err != nil {
		t.Fatal(err)
	}
	// Enough concurrent queries that some queue behind a running one.
	var wg sync.WaitGroup
	for range 64 {
		wg.Go(func() {
			if _, err := c.QueryDocuments(ctx, &vectrapb.QueryDocumentsRequest{IndexName: "docs", Query: "text"}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	want := []string{vectrapb.VectraService_QueryDocuments_FullMethodName + " query_too_large", vectrapb.VectraService_QueryItems_FullMethodName + " query_too_large"}
	if strings.Join(refused, ",") != strings.Join(want, ",") {
		t.Errorf("refused: %v, want %v", refused, want)
	}
	if batches == 0 || batched == 0 {
		t.Errorf("64 concurrent queries made no batch")
	}
	t.Logf("%d batches of %d queries in all", batches, batched)
	// 64 QueryDocuments and one QueryItems with a text ran.
	for _, want := range []struct {
		phase string
		n     int
	}{{"folio.query", 65}, {"folio.read_texts", 64}, {"folio.embed", 1}} {
		if phases[want.phase+" started"] != want.n || phases[want.phase+" ended"] != want.n {
			t.Errorf("phase %s: %v, want %d started and ended", want.phase, phases, want.n)
		}
	}
	if len(intercepted) < 69 || intercepted[0] != "/vectra.VectraService/CreateIndex" {
		t.Errorf("the interceptor saw %d calls, starting %v", len(intercepted), intercepted[:min(len(intercepted), 2)])
	}
}

// slowModel answers as its model does, after a delay.
type slowModel struct {
	core.EmbeddingsModel
	delay time.Duration
}

func (m slowModel) CreateEmbeddings(ctx context.Context, in []string) (core.EmbeddingsResponse, error) {
	time.Sleep(m.delay)
	return m.EmbeddingsModel.CreateEmbeddings(ctx, in)
}
