package grpcserver

import (
	"context"
	"crypto/subtle"
	"crypto/tls"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/reflection"
	"google.golang.org/grpc/status"

	"github.com/foliovec/folio/adapters/grpc/vectrapb"
	"github.com/foliovec/folio/core"
	"github.com/foliovec/folio/core/manager"
)

// DefaultPort is the port Vectra's server listens on unless told otherwise.
const DefaultPort = 50051

// DefaultAddress is the address the server binds: the loopback interface
// only, as Vectra's server does.
const DefaultAddress = "127.0.0.1"

// drainTimeout is how long Shutdown lets in-flight calls finish before it
// stops the server, as Vectra's server does.
const drainTimeout = 5 * time.Second

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
}

// The values of Options.DocumentRanking.
const (
	RankingVectra = ""
	RankingFusion = "fusion"
)

// DefaultMaxQueryBytes is Options.MaxQueryBytes when it is 0: 64 KiB, twice
// the text the hosted embeddings models take in one input (8,191 tokens,
// about 32 KB of English), so no query a model can embed is refused while
// one caller cannot make the server embed megabytes a call.
const DefaultMaxQueryBytes = 64 << 10

// IndexServer serves Vectra's gRPC service (vectra.VectraService) over the
// indexes of a manager.Manager, with the standard health service and
// server reflection. Clients generated from Vectra's proto work unchanged;
// see the package documentation for where it differs from Vectra.
//
// An IndexServer is safe for concurrent use; it serves once: Start, then
// Shutdown.
type IndexServer struct {
	cfg     Options
	log     *slog.Logger
	manager *manager.Manager
	grpc    *grpc.Server
	health  *health.Server
	started time.Time
	writes  writeLocks
	docs    sync.Map // *core.LocalDocumentIndex → its QueryDocuments coalescer

	mu      sync.Mutex
	state   serverState
	stopped chan struct{} // closed once the server has stopped
}

// serverState is where an IndexServer is in its one life.
type serverState int

const (
	stateNew serverState = iota
	stateStarted
	stateStopped
)

// New checks opts and returns a server that Start runs. IndexPath
// together with RootDir, a negative port, only one of the TLS files, or a
// missing Storage or Formats is core.ErrInvalidArgument.
func New(opts *Options) (*IndexServer, error) {
	const op = "grpcserver: new index server"
	if opts == nil {
		return nil, fmt.Errorf("%s: options with Storage and Formats are required: %w", op, core.ErrInvalidArgument)
	}
	cfg := *opts
	switch {
	case cfg.IndexPath != "" && cfg.RootDir != "":
		return nil, fmt.Errorf("%s: IndexPath and RootDir are exclusive: %w", op, core.ErrInvalidArgument)
	case cfg.Port < 0 || cfg.Port > 65535:
		return nil, fmt.Errorf("%s: port %d is out of range: %w", op, cfg.Port, core.ErrInvalidArgument)
	case (cfg.TLSCertFile == "") != (cfg.TLSKeyFile == ""):
		return nil, fmt.Errorf("%s: TLS needs both a certificate and a key file: %w", op, core.ErrInvalidArgument)
	case cfg.DocumentRanking != RankingVectra && cfg.DocumentRanking != RankingFusion:
		return nil, fmt.Errorf("%s: DocumentRanking %q: want %q or %q: %w", op, cfg.DocumentRanking, RankingVectra, RankingFusion, core.ErrInvalidArgument)
	case cfg.MaxMessageBytes < 0:
		return nil, fmt.Errorf("%s: MaxMessageBytes %d is negative: %w", op, cfg.MaxMessageBytes, core.ErrInvalidArgument)
	case cfg.AuthToken != "" && strings.TrimSpace(cfg.AuthToken) != cfg.AuthToken:
		// An all-space token would be no token; one with spaces around it
		// could never match what a client sends.
		return nil, fmt.Errorf("%s: AuthToken has leading or trailing white space: %w", op, core.ErrInvalidArgument)
	}
	if cfg.Address == "" {
		cfg.Address = DefaultAddress
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	m, err := manager.New(cfg.Config)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", op, err)
	}
	return &IndexServer{cfg: cfg, log: log, manager: m, stopped: make(chan struct{})}, nil
}

// Manager returns the manager whose indexes the server answers from.
func (s *IndexServer) Manager() *manager.Manager { return s.manager }

// Start loads the indexes, binds Address:Port and serves in the
// background. It returns the bound port. A server can be started once.
func (s *IndexServer) Start(ctx context.Context) (int, error) {
	const op = "grpcserver: start"
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state != stateNew {
		return 0, fmt.Errorf("%s: the server was already started: %w", op, core.ErrInvalidArgument)
	}
	opts := []grpc.ServerOption{grpc.ChainUnaryInterceptor(s.logCall, s.authenticate)}
	if s.cfg.TLSCertFile != "" {
		cert, err := tls.LoadX509KeyPair(s.cfg.TLSCertFile, s.cfg.TLSKeyFile)
		if err != nil {
			return 0, fmt.Errorf("%s: TLS certificate: %w", op, err)
		}
		opts = append(opts, grpc.Creds(credentials.NewTLS(&tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})))
	}
	if n := s.cfg.MaxMessageBytes; n > 0 {
		opts = append(opts, grpc.MaxRecvMsgSize(n), grpc.MaxSendMsgSize(n))
	}
	if err := s.manager.Initialize(ctx); err != nil {
		return 0, fmt.Errorf("%s: %w", op, err)
	}
	var lc net.ListenConfig
	lis, err := lc.Listen(ctx, "tcp", net.JoinHostPort(s.cfg.Address, strconv.Itoa(s.cfg.Port)))
	if err != nil {
		s.manager.Shutdown()
		return 0, fmt.Errorf("%s: %w", op, err)
	}
	s.grpc = grpc.NewServer(opts...)
	vectrapb.RegisterVectraServiceServer(s.grpc, &service{s: s})
	s.health = health.NewServer()
	healthpb.RegisterHealthServer(s.grpc, s.health)
	reflection.Register(s.grpc)
	if s.cfg.Register != nil {
		s.cfg.Register(s.grpc)
	}
	s.started = time.Now()
	s.state = stateStarted
	go func() {
		if err := s.grpc.Serve(lis); err != nil {
			s.log.Warn("grpcserver: serve ended", "err", err)
		}
	}()
	return lis.Addr().(*net.TCPAddr).Port, nil
}

// Shutdown stops the server: it stops accepting calls, lets the calls in
// flight finish for at most 5 seconds (or until ctx ends), then ends the
// rest, and stops the index manager. It may be called more than once and
// concurrently; every call returns once the server has stopped. The
// Shutdown RPC calls it after replying.
func (s *IndexServer) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	prev := s.state
	s.state = stateStopped
	s.mu.Unlock()
	switch prev {
	case stateNew:
		close(s.stopped)
	case stateStarted:
		s.stop(ctx)
		close(s.stopped)
	}
	select {
	case <-s.stopped:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// stop drains the calls in flight for at most drainTimeout (or until ctx
// ends), ends the rest and stops the index manager.
func (s *IndexServer) stop(ctx context.Context) {
	s.health.Shutdown()
	drained := make(chan struct{})
	go func() {
		s.grpc.GracefulStop()
		close(drained)
	}()
	timer := time.NewTimer(drainTimeout)
	defer timer.Stop()
	select {
	case <-drained:
	case <-timer.C:
		go s.grpc.Stop()
	case <-ctx.Done():
		go s.grpc.Stop()
	}
	// Stop closes the listeners and connections, cancelling the contexts
	// of the calls still running, and then (like GracefulStop) waits for
	// their handlers; a call that does not return soon after is left
	// behind rather than holding up the shutdown (the process is usually
	// about to exit).
	select {
	case <-drained:
	case <-time.After(drainTimeout):
		s.log.Warn("grpcserver: calls still running after their contexts were cancelled; shutting down without them")
	}
	s.manager.Shutdown()
}

// Done is closed once the server has stopped, whether by Shutdown or by the
// Shutdown RPC.
func (s *IndexServer) Done() <-chan struct{} { return s.stopped }

// logCall writes one debug line per call.
func (s *IndexServer) logCall(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	start := time.Now()
	resp, err := handler(ctx, req)
	s.log.LogAttrs(ctx, slog.LevelDebug, "grpcserver: call",
		slog.String("method", info.FullMethod),
		slog.String("code", status.Code(err).String()),
		slog.Duration("duration", time.Since(start)))
	return resp, err
}

// authenticate checks the bearer token when one is configured; the health
// service is exempt.
func (s *IndexServer) authenticate(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	if s.cfg.AuthToken == "" || strings.HasPrefix(info.FullMethod, "/grpc.health.v1.Health/") {
		return handler(ctx, req)
	}
	if !s.authorized(ctx) {
		return nil, status.Error(codes.Unauthenticated, "a valid bearer token is required")
	}
	return handler(ctx, req)
}

func (s *IndexServer) authorized(ctx context.Context) bool {
	md, _ := metadata.FromIncomingContext(ctx)
	for _, v := range md.Get("authorization") {
		// The scheme is case-insensitive (RFC 9110 §11.1): "bearer x" is
		// "Bearer x".
		scheme, token, ok := strings.Cut(strings.TrimSpace(v), " ")
		if ok && strings.EqualFold(scheme, "Bearer") &&
			subtle.ConstantTimeCompare([]byte(strings.TrimSpace(token)), []byte(s.cfg.AuthToken)) == 1 {
			return true
		}
	}
	return false
}

// writeLocks serialises the mutating calls on each index, so concurrent
// clients wait their turn instead of failing (Vectra answers INTERNAL
// "Update already in progress"). The lock gives up when the call's context
// ends.
type writeLocks struct {
	m sync.Map // *core.LocalIndex → chan struct{} (capacity 1)
}

func (w *writeLocks) lock(ctx context.Context, ix *core.LocalIndex) (unlock func(), err error) {
	v, _ := w.m.LoadOrStore(ix, make(chan struct{}, 1))
	ch := v.(chan struct{})
	select {
	case ch <- struct{}{}:
		return func() { <-ch }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// documentQueries returns the coalescer of d's QueryDocuments calls.
func (s *IndexServer) documentQueries(d *core.LocalDocumentIndex) *coalescer[core.DocumentQuery, []*core.LocalDocumentResult] {
	if v, ok := s.docs.Load(d); ok {
		return v.(*coalescer[core.DocumentQuery, []*core.LocalDocumentResult])
	}
	v, _ := s.docs.LoadOrStore(d, documentCoalescer(d))
	return v.(*coalescer[core.DocumentQuery, []*core.LocalDocumentResult])
}

// forget drops the lock of a deleted index.
func (w *writeLocks) forget(ix *core.LocalIndex) { w.m.Delete(ix) }
