package grpcserver

import (
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/reflection"

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
	opts = append(opts, s.cfg.ServerOptions...)
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

// documentQueries returns the coalescer of d's QueryDocuments calls.
func (s *IndexServer) documentQueries(name string, d *core.LocalDocumentIndex) *coalescer[core.DocumentQuery, []*core.LocalDocumentResult] {
	if v, ok := s.docs.Load(d); ok {
		return v.(*coalescer[core.DocumentQuery, []*core.LocalDocumentResult])
	}
	var observe func(n, waiting int)
	if f := s.cfg.Observer.Batch; f != nil {
		observe = func(n, waiting int) { f(name, n, waiting) }
	}
	v, _ := s.docs.LoadOrStore(d, documentCoalescer(d, observe))
	return v.(*coalescer[core.DocumentQuery, []*core.LocalDocumentResult])
}
