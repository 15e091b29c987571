package grpcserver_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	grpcserver "github.com/foliovec/folio/adapters/grpc"
	"github.com/foliovec/folio/adapters/grpc/vectrapb"
	"github.com/foliovec/folio/conformance/reference"
	"github.com/foliovec/folio/conformance/testkit"
	"github.com/foliovec/folio/core"
	"github.com/foliovec/folio/core/manager"
)

// pbCodec stands for the protobuf format: the reference codec under the
// extension ".pb", so format detection has two formats to tell apart.
type pbCodec struct{ reference.Codec }

func (pbCodec) Extension() string { return ".pb" }

var formats = map[string]core.IndexCodec{manager.FormatJSON: reference.Codec{}, manager.FormatProtobuf: pbCodec{}}

// testServer is a server over reference storage, started on 127.0.0.1:0,
// and a client connected to it.
type testServer struct {
	srv     *grpcserver.IndexServer
	client  vectrapb.VectraServiceClient
	conn    *grpc.ClientConn
	port    int
	storage *core.MemoryStorage
	emb     *testkit.Recorder
}

func startServer(t testing.TB, edit func(*grpcserver.Options)) *testServer {
	t.Helper()
	ts := &testServer{storage: core.NewMemoryStorage(), emb: &testkit.Recorder{Model: testkit.Words{}}}
	cfg := grpcserver.Options{
		Config: manager.Config{RootDir: "root", Formats: formats, Embeddings: ts.emb, Tokenizer: testkit.Chars{}, ScanInterval: -1, IndexOptions: core.IndexOptions{Storage: ts.storage}},
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
