package grpcserver

import (
	"context"

	"google.golang.org/grpc"

	"github.com/foliovec/folio/core/manager"
)

// Options configures an IndexServer. Set IndexPath to serve one index or
// RootDir to serve every index folder below it; Storage, Formats and, for
// document indexes, Tokenizer are the adapters the indexes are opened with
// (the folio command passes the local file system, codec-json and codec-pb,
// and o200k_base).
type Options struct {
	// Port is the TCP port to listen on; 0 picks a free one, which Start
	// returns. Vectra's default is DefaultPort.
	Port int
	// Address is the interface to bind; "" means DefaultAddress.
	Address string

	// Config is what the server serves and how it opens each
	// index: IndexPath or RootDir, Storage and Formats (required),
	// Tokenizer, Embeddings (which embed the text of items and queries,
	// and the chunks of documents; without them, calls that need them
	// fail with FAILED_PRECONDITION), ScanInterval, and the IndexOptions
	// every index gets (QuantizedScan, StrictFilters, …). Its Logger also
	// receives one debug line per call (method, code, duration) and the
	// server's warnings; nil is silent.
	manager.Config

	// TLSCertFile and TLSKeyFile, both set, serve TLS with that
	// certificate and key (PEM). Off by default, as Vectra serves
	// plaintext.
	TLSCertFile, TLSKeyFile string
	// AuthToken, when set, is required of every call as the metadata
	// "authorization: Bearer <token>" (compared in constant time); a call
	// without it, or with another, fails with UNAUTHENTICATED. The health
	// service answers without it, for load balancers.
	AuthToken string
	// MaxMessageBytes caps the size of a request the server accepts and of
	// a response it sends; 0 means gRPC's defaults (4 MiB received).
	MaxMessageBytes int
	// Register, when set, is called with the gRPC server before it serves,
	// to register other services on the same port beside Vectra's, the
	// health service and reflection. They get the same interceptors: the
	// debug log line per call and AuthToken's check.
	Register func(*grpc.Server)
	// MaxQueryBytes caps the query text of QueryItems and QueryDocuments;
	// a longer one is INVALID_ARGUMENT, answered before anything is
	// embedded. 0 means DefaultMaxQueryBytes; a negative value means no
	// cap.
	MaxQueryBytes int
	// DocumentRanking says how QueryDocuments ranks. "" (RankingVectra)
	// is Vectra's: the request's use_bm25 picks vector search or Vectra's
	// hybrid search (keyword matches appended with their raw BM25 scores),
	// and scores are cosine similarities (BM25 scores for keyword
	// matches), as Vectra's clients read them. RankingFusion ranks every
	// document query by reciprocal rank fusion of vector and keyword
	// matches (core.FusionRRF), whatever use_bm25 says: the better ranking
	// (make eval: hit@3 0.93 against 0.60 for vector search on Go's package
	// docs), with scores of about 1/60 that a client thresholding cosine
	// scores would misread, so a server opts into it (folio serve
	// --ranking fusion).
	DocumentRanking string

	// ServerOptions are added after the server's own gRPC options: more
	// interceptors (grpc.ChainUnaryInterceptor; they run after the
	// server's logging and AuthToken check), a stats handler (such as
	// OpenTelemetry's otelgrpc.NewServerHandler), … Metrics and tracing
	// come in this way, so the adapter itself depends on neither.
	ServerOptions []grpc.ServerOption
	// Observer, when its functions are set, is told what the server does
	// beyond each call's code and time, for metrics.
	Observer Observer
}

// Observer's functions, each optional, are called as the server works.
// They must be quick and safe for concurrent use.
type Observer struct {
	// Batch is told each batch of concurrent QueryDocuments calls that
	// the server answers together: the index, the calls in it and the
	// calls still waiting behind it. A call that finds its index idle is
	// answered alone, in no batch.
	Batch func(index string, calls, waiting int)
	// Refused is told each call refused before any work, by the server's
	// own caps: the method's full name and the reason ("query_too_large").
	Refused func(method, reason string)
	// Phase, when set, is told each phase of a query as it starts:
	// "folio.embed" (a QueryItems text embedded), "folio.query" (the
	// engine's query; a QueryDocuments query embeds inside it),
	// "folio.read_texts" (the chunk texts of QueryDocuments' results). The
	// context it returns is the phase's (a tracing span's); end is called
	// with the phase's error when it ends.
	Phase func(ctx context.Context, name string) (phaseCtx context.Context, end func(error))
}

// phase starts a phase for the Observer; end must be called.
func (o Observer) phase(ctx context.Context, name string) (context.Context, func(error)) {
	if o.Phase == nil {
		return ctx, func(error) {}
	}
	return o.Phase(ctx, name)
}

// DefaultMaxQueryBytes is Options.MaxQueryBytes when it is 0: 64 KiB, twice
// the text the hosted embeddings models take in one input (8,191 tokens,
// about 32 KB of English), so no query a model can embed is refused while
// one caller cannot make the server embed megabytes a call.
const DefaultMaxQueryBytes = 64 << 10

// The values of Options.DocumentRanking.
const (
	RankingVectra = ""
	RankingFusion = "fusion"
)
