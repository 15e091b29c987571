//go:build !noserver

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"google.golang.org/grpc"

	grpcserver "github.com/foliovec/folio/adapters/grpc"
	"github.com/foliovec/folio/adapters/metrics"
)

// observability is what serve exposes to monitoring: with --metrics-addr,
// a Prometheus registry of the server's calls, its indexes, its models'
// calls and the Go runtime, served over HTTP.
type observability struct {
	o          *serveOptions
	stderr     io.Writer
	reg        *prometheus.Registry
	server     *metrics.Server
	embeddings *metrics.Embeddings
	addr       string // where the metrics are served, once they are
}

// newObservability prepares serve's metrics; with no --metrics-addr, it
// does nothing.
func newObservability(o *serveOptions, stderr io.Writer) *observability {
	obs := &observability{o: o, stderr: stderr}
	if o.metricsAddr == "" {
		return obs
	}
	obs.reg = prometheus.NewRegistry()
	obs.server, obs.embeddings = metrics.NewServer(), metrics.NewEmbeddings()
	obs.reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		obs.server, obs.embeddings,
	)
	o.instrument = obs.embeddings.Instrument
	return obs
}

// configure adds the interceptors and observers to the server's options.
func (obs *observability) configure(cfg *grpcserver.Options) {
	if obs.reg == nil {
		return
	}
	cfg.ServerOptions = append(cfg.ServerOptions,
		grpc.ChainUnaryInterceptor(obs.server.UnaryInterceptor()),
		grpc.ChainStreamInterceptor(obs.server.StreamInterceptor()))
	cfg.Observer = grpcserver.Observer{Batch: obs.server.ObserveBatch, Refused: obs.server.ObserveRefused}
	register := cfg.Register
	cfg.Register = func(g *grpc.Server) {
		if register != nil {
			register(g)
		}
		obs.server.Register(g)
	}
}

// serve starts serving the metrics of srv's indexes beside the rest; stop
// ends it. onDisk says the indexes' folders are on the local file system.
func (obs *observability) serve(ctx context.Context, srv *grpcserver.IndexServer, onDisk bool) (stop func(), err error) {
	if obs.reg == nil {
		return func() {}, nil
	}
	obs.reg.MustRegister(metrics.NewIndexCollector(metrics.ManagerIndexes(srv.Manager(), onDisk)))
	var lc net.ListenConfig
	lis, err := lc.Listen(ctx, "tcp", obs.o.metricsAddr)
	if err != nil {
		return nil, fmt.Errorf("--metrics-addr: %w", err)
	}
	obs.addr = lis.Addr().String()
	hs := &http.Server{Handler: metrics.Handler(obs.reg, obs.o.pprof), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		// The gRPC server goes on if this ends; scrapes then fail, visibly.
		if err := hs.Serve(lis); err != nil && !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintf(obs.stderr, "folio serve: metrics: %v\n", err)
		}
	}()
	return func() {
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = hs.Shutdown(sctx)
	}, nil
}
