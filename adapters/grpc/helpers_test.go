package grpcserver_test

import (
	"context"
	"hash/fnv"
	"math"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	grpcserver "github.com/foliovec/folio/adapters/grpc"
	"github.com/foliovec/folio/adapters/grpc/vectrapb"
	"github.com/foliovec/folio/conformance/reference"
	"github.com/foliovec/folio/core"
	"github.com/foliovec/folio/core/manager"
)

// pbCodec stands for the protobuf format: the reference codec under the
// extension ".pb", so format detection has two formats to tell apart.
type pbCodec struct{ reference.Codec }

func (pbCodec) Extension() string { return ".pb" }

var formats = map[string]core.IndexCodec{manager.FormatJSON: reference.Codec{}, manager.FormatProtobuf: pbCodec{}}

// charTokenizer is one token per code point.
type charTokenizer struct{}

func (charTokenizer) Encode(text string) []int {
	out := make([]int, 0, len(text))
	for _, r := range text {
		out = append(out, int(r))
	}
	return out
}

func (charTokenizer) Decode(tokens []int) string {
	rs := make([]rune, len(tokens))
	for i, t := range tokens {
		rs[i] = rune(t)
	}
	return string(rs)
}

// hashEmbeddings embeds a text as its words hashed into 8 dimensions,
// normalised; it counts its calls, and when gate is set each call waits
// for it.
type hashEmbeddings struct {
	maxTokens int
	calls     atomic.Int64
	inputs    atomic.Int64
	gate      chan struct{}
	entered   chan struct{}
}

func (e *hashEmbeddings) MaxTokens() int { return e.maxTokens }

func (e *hashEmbeddings) CreateEmbeddings(ctx context.Context, inputs []string) (core.EmbeddingsResponse, error) {
	e.calls.Add(1)
	e.inputs.Add(int64(len(inputs)))
	if e.gate != nil {
		if e.entered != nil {
			e.entered <- struct{}{}
		}
		select {
		case <-e.gate:
		case <-ctx.Done():
			return core.EmbeddingsResponse{}, &core.EmbeddingsError{Status: core.EmbeddingsCancelled, Message: "cancelled", Err: ctx.Err()}
		}
	}
	out := make([][]float32, len(inputs))
	for i, text := range inputs {
		out[i] = hashVector(text)
	}
	return core.EmbeddingsResponse{Status: core.EmbeddingsSuccess, Output: out}, nil
}

func hashVector(text string) []float32 {
	v := make([]float32, 8)
	v[0] = 0.01
	for _, w := range strings.Fields(strings.ToLower(text)) {
		h := fnv.New32a()
		h.Write([]byte(w))
		v[h.Sum32()%8]++
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

// testServer is a server over reference storage, started on 127.0.0.1:0,
// and a client connected to it.
type testServer struct {
	srv     *grpcserver.IndexServer
	client  vectrapb.VectraServiceClient
	conn    *grpc.ClientConn
	port    int
	storage *core.MemoryStorage
	emb     *hashEmbeddings
}

func startServer(t testing.TB, edit func(*grpcserver.Options)) *testServer {
	t.Helper()
	ts := &testServer{storage: core.NewMemoryStorage(), emb: &hashEmbeddings{maxTokens: 1000}}
	cfg := grpcserver.Options{
		Config: manager.Config{RootDir: "root", Formats: formats, Embeddings: ts.emb, Tokenizer: charTokenizer{}, ScanInterval: -1, IndexOptions: core.IndexOptions{Storage: ts.storage}},
	}
	if edit != nil {
		edit(&cfg)
	}
	srv, err := grpcserver.New(&cfg)
	if err != nil {
		t.Fatal(err)
	}
	port, err := srv.Start(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	ts.srv, ts.port = srv, port
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
	})
	if cfg.TLSCertFile == "" {
		ts.conn = dial(t, port, grpc.WithTransportCredentials(insecure.NewCredentials()))
		ts.client = vectrapb.NewVectraServiceClient(ts.conn)
	}
	return ts
}

func dial(t testing.TB, port int, opts ...grpc.DialOption) *grpc.ClientConn {
	t.Helper()
	conn, err := grpc.NewClient("127.0.0.1:"+strconv.Itoa(port), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

func str(s string) *vectrapb.MetadataValue {
	return &vectrapb.MetadataValue{Value: &vectrapb.MetadataValue_StringValue{StringValue: s}}
}

func num(n float64) *vectrapb.MetadataValue {
	return &vectrapb.MetadataValue{Value: &vectrapb.MetadataValue_NumberValue{NumberValue: n}}
}

func boolean(b bool) *vectrapb.MetadataValue {
	return &vectrapb.MetadataValue{Value: &vectrapb.MetadataValue_BoolValue{BoolValue: b}}
}

func filter(json string) *vectrapb.MetadataFilter { return &vectrapb.MetadataFilter{FilterJson: json} }

// waitFor polls cond until it holds or 10 seconds pass.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}
