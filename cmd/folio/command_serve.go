//go:build !noserver

package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/foliovec/folio"
	codecjson "github.com/foliovec/folio/adapters/codec-json"
	codecpb "github.com/foliovec/folio/adapters/codec-pb"
	grpcserver "github.com/foliovec/folio/adapters/grpc"
	tokenizertiktoken "github.com/foliovec/folio/adapters/tokenizer-tiktoken"
	"github.com/foliovec/folio/cmd/folio/internal/bearer"
	"github.com/foliovec/folio/core"
	"github.com/foliovec/folio/core/manager"
)

// tokenEnv is the environment variable serve reads its bearer token from
// when --token-file is not given.
const tokenEnv = bearer.Env

// listeningLine starts the line serve prints once it accepts calls.
const listeningLine = "Folio gRPC server listening on "

// serveOptions are serve's flags.
type serveOptions struct {
	root, address, pidFile, tokenFile, tlsCert, tlsKey, ranking string
	port                                                        int
	daemon, vectraChunking                                      bool
	model                                                       modelFlags
	ix                                                          indexFlags
	maxQuery                                                    byteSize
	compactInterval                                             time.Duration
	metricsAddr                                                 string
	pprof                                                       bool
	// instrument, set when metrics are served, counts a model's calls.
	instrument func(name string, m core.EmbeddingsModel) core.EmbeddingsModel
}

func (a *app) serveCommand() *cobra.Command {
	o := serveOptions{maxQuery: byteSize(grpcserver.DefaultMaxQueryBytes)}
	cmd := &cobra.Command{
		Use:   "serve [index]",
		Short: "Serve one index, or every index below --root, over Vectra's gRPC service",
		Example: `  folio serve my-index
  folio serve --root ./indexes --port 50051 --daemon --pid-file folio.pid
  FOLIO_TOKEN=secret folio serve my-index --tls-cert cert.pem --tls-key key.pem`,
		Args: func(_ *cobra.Command, args []string) error { return o.checkArgs(args) },
		RunE: func(cmd *cobra.Command, args []string) error { return a.runServe(cmd.Context(), &o, args) },
	}
	o.register(cmd)
	return cmd
}

func (o *serveOptions) register(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&o.root, "root", "", "serve every index folder below this folder, or below this bucket URL (s3://…, gs://…, azblob://…; in a folio built with -tags objectstorage)")
	f.IntVarP(&o.port, "port", "p", grpcserver.DefaultPort, "TCP port")
	f.StringVar(&o.address, "address", "", "address to bind (default 127.0.0.1)")
	f.BoolVar(&o.daemon, "daemon", false, "run in the background and write its PID to --pid-file")
	f.StringVar(&o.pidFile, "pid-file", "", "PID file of --daemon (default .vectra.pid beside the index, or in --root)")
	f.StringVar(&o.tokenFile, "token-file", "", "file holding the bearer token every call must carry (else $"+tokenEnv+")")
	f.StringVar(&o.tlsCert, "tls-cert", "", "TLS certificate (PEM); with --tls-key, serve TLS")
	f.StringVar(&o.tlsKey, "tls-key", "", "TLS private key (PEM)")
	f.StringVar(&o.ranking, "ranking", rankingFusion, "how QueryDocuments ranks: fusion (vector and keyword matches ranked together by reciprocal rank fusion, as folio query does by default; scores of about 1/60) or vectra (Vectra's server exactly: the request's use_bm25 picks vector or hybrid search, scores as Vectra's clients read them)")
	f.Var(&o.maxQuery, "max-query-size", "`SIZE` of the longest query text a call may send (e.g. 16KiB; 0: no cap); a longer one is INVALID_ARGUMENT")
	o.model.register(cmd)
	o.ix.register(cmd)
	f.BoolVar(&o.vectraChunking, "vectra-chunking", false, vectraChunkingHelp)
	f.StringVar(&o.metricsAddr, "metrics-addr", "", "serve Prometheus metrics at http://`HOST:PORT`/metrics (e.g. 127.0.0.1:9464); off by default")
	f.BoolVar(&o.pprof, "pprof", false, "with --metrics-addr, also serve Go's profiles at /debug/pprof/")
	f.DurationVar(&o.compactInterval, "compact-interval", 0, "how often each segmented index served is compacted in the background when enough of its rows are deleted or replaced, or its segments many (0: 30s; negative: never)")
}

func (o *serveOptions) checkArgs(args []string) error {
	switch {
	case len(args) > 1:
		return usagef("expected at most one <index>")
	case len(args) == 0 && o.root == "":
		return usagef("you must provide either an <index> path or --root <dir>")
	case len(args) == 1 && o.root != "":
		return usagef("<index> and --root are mutually exclusive")
	}
	return nil
}

// runServe serves until ctx ends or the server stops, or starts the
// server in the background with --daemon.
func (a *app) runServe(ctx context.Context, o *serveOptions, args []string) error {
	if err := o.model.check(); err != nil {
		return err
	}
	var docRanking string
	switch o.ranking {
	case "vectra":
	case rankingFusion:
		docRanking = grpcserver.RankingFusion
	default:
		return usagef("--ranking %q: want vectra or %s", o.ranking, rankingFusion)
	}
	if o.daemon {
		return a.daemonize(o.root, args, o.pidFile)
	}
	if o.pprof && o.metricsAddr == "" {
		return usagef("--pprof needs --metrics-addr")
	}
	obs := newObservability(o, a.stderr)
	var tr *tracing
	if tracesWanted() {
		exp, err := exporterFromEnv(ctx, a.stdout)
		if err != nil {
			return err
		}
		if tr, err = newTracing(exp); err != nil {
			return err
		}
		defer func() {
			sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer cancel()
			if err := tr.shutdown(sctx); err != nil {
				fmt.Fprintf(a.stderr, "folio serve: %v\n", err)
			}
		}()
	}
	srv, err := a.newServer(ctx, o, args, docRanking, obs, tr)
	if err != nil {
		return err
	}
	// A folder is a path on this machine only on local storage without a
	// --storage-root bucket, and below a --root that is no bucket URL.
	onDisk := (a.storageKind == "local" || a.storageKind == "") && a.storageRoot == "" && !isBucketURL(o.root)
	stopMetrics, err := obs.serve(ctx, srv, onDisk)
	if err != nil {
		return err
	}
	defer stopMetrics()
	port, err := srv.Start(ctx)
	if err != nil {
		return err
	}
	a.announce(srv, o.address, port)
	if o.metricsAddr != "" {
		fmt.Fprintf(a.stdout, "metrics at http://%s/metrics\n", obs.addr)
	}
	select {
	case <-ctx.Done():
		why := "a signal"
		if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
			why = cause.Error()
		}
		fmt.Fprintf(a.stderr, "folio serve: stopping on %s: finishing the calls in progress (at most %v)\n", why, shutdownGrace)
	case <-srv.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownGrace)
	defer cancel()
	err = srv.Shutdown(sctx)
	if err != nil {
		fmt.Fprintf(a.stderr, "folio serve: stopped: %v\n", err)
	} else {
		fmt.Fprintln(a.stderr, "folio serve: stopped")
	}
	return err
}

// newServer makes the server the flags describe, with its metrics (obs)
// and its tracing (tr, nil when off).
func (a *app) newServer(ctx context.Context, o *serveOptions, args []string, docRanking string, obs *observability, tr *tracing) (*grpcserver.IndexServer, error) {
	if tr != nil {
		o.instrument = chain(o.instrument, tr.instrument)
		a.transport = tr.transport(http.DefaultTransport)
	}
	cfg, err := a.serverOptions(ctx, o, args)
	if err != nil {
		return nil, err
	}
	cfg.DocumentRanking = docRanking
	if cfg.AuthToken, err = bearer.Read(o.tokenFile); err != nil {
		return nil, err
	}
	obs.configure(&cfg)
	if tr != nil {
		tr.configure(&cfg)
	}
	return grpcserver.New(&cfg)
}

// shutdownGrace is how long serve lets the calls in progress finish once
// asked to stop.
const shutdownGrace = 10 * time.Second

// serverOptions is the server's configuration from the flags: one index
// (args[0]) with its model, or every index below --root, each with the
// model it remembers.
func (a *app) serverOptions(ctx context.Context, o *serveOptions, args []string) (grpcserver.Options, error) {
	var storage core.FileStorage
	var err error
	rootDir := a.folderPath(o.root)
	if isBucketURL(o.root) {
		// Every index below the bucket URL's top (or prefix).
		storage, err = openStorage(ctx, o.root)
		rootDir = "."
	} else {
		storage, err = a.storage(ctx)
	}
	if err != nil {
		return grpcserver.Options{}, err
	}
	cfg := grpcserver.Options{
		Port: o.port, Address: o.address, TLSCertFile: o.tlsCert, TLSKeyFile: o.tlsKey,
		MaxQueryBytes: int(o.maxQuery),
		Config: manager.Config{
			Formats:         map[string]core.IndexCodec{folio.FormatJSON: codecjson.New(), folio.FormatProtobuf: codecpb.New()},
			Tokenizer:       tokenizertiktoken.New(),
			IndexOptions:    o.ix.with(storage, nil), // every index served gets the flags' options
			VectraChunking:  o.vectraChunking,
			CompactInterval: o.compactInterval,
		},
	}
	if o.maxQuery == 0 {
		cfg.MaxQueryBytes = -1 // --max-query-size 0: no cap
	}
	// The log (warnings by default: a folder a rescan cannot open, …) goes
	// to stderr, as --log-format and --log-level say; every index served
	// logs there too.
	if cfg.Logger, err = a.logger(); err != nil {
		return grpcserver.Options{}, err
	}
	cfg.IndexOptions.Logger = cfg.Logger
	if len(args) == 0 {
		cfg.RootDir = rootDir
		cfg.EmbeddingsFor = a.embeddingsFor(storage, &o.model, o.instrument)
		return cfg, nil
	}
	cfg.IndexPath = a.folderPath(args[0])
	if _, err := folio.DetectCodec(ctx, cfg.IndexPath, storage); err != nil {
		if isNotFound(err) {
			return cfg, noIndexError{cfg.IndexPath}
		}
		return cfg, err
	}
	var rec modelRecord
	cfg.Embeddings, rec, err = o.model.resolve(ctx, a, storage, cfg.IndexPath)
	if cfg.Embeddings != nil && o.instrument != nil {
		cfg.Embeddings = o.instrument(rec.String(), cfg.Embeddings)
	}
	return cfg, err
}

// embeddingsFor gives each index below --root the model it remembers (or
// the flags' model, which must then be the same); an index whose model
// cannot be made is served for vector calls, its text calls failing with
// the reason.
func (a *app) embeddingsFor(storage core.FileStorage, model *modelFlags, instrument func(string, core.EmbeddingsModel) core.EmbeddingsModel) func(context.Context, string) (core.EmbeddingsModel, error) {
	return func(ctx context.Context, folder string) (core.EmbeddingsModel, error) {
		m, rec, err := model.resolve(ctx, a, storage, folder)
		var usage usageError
		switch {
		case errors.As(err, &usage):
			// A hosted model needs its keys.
			return a.noModel(folder, err.Error()), nil
		case err != nil:
			return nil, err
		case m == nil:
			return a.noModel(folder, "no embeddings model: serve it with --hash-dims N, --keys FILE or --model DIR|ID"), nil
		}
		if instrument != nil {
			m = instrument(rec.String(), m)
		}
		return m, nil
	}
}

// announce prints where the server listens and what it serves.
func (a *app) announce(srv *grpcserver.IndexServer, address string, port int) {
	if address == "" {
		address = grpcserver.DefaultAddress
	}
	fmt.Fprintf(a.stdout, "%s%s:%d\n", listeningLine, address, port)
	for _, mi := range srv.Manager().ListIndexes() {
		kind := "item"
		if mi.IsDocumentIndex() {
			kind = "document"
		}
		fmt.Fprintf(a.stdout, "- %s (%s, %s)\n", mi.Name, mi.Format, kind)
		if mi.Embeddings == nil {
			fmt.Fprintf(a.stderr, "index %s has no embeddings model: its text calls (text items and queries, documents) fail; name one with --keys FILE, --model DIR|ID or --hash-dims N\n", mi.Name)
		}
	}
}

func (a *app) stopCommand() *cobra.Command {
	var pidFile string
	cmd := &cobra.Command{
		Use:     "stop",
		Short:   "Stop a server started with serve --daemon",
		Example: "  folio stop --pid-file folio.pid",
		Args:    exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			raw, err := os.ReadFile(pidFile)
			if err != nil {
				return fmt.Errorf("pid file: %w", err)
			}
			pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
			if err != nil || pid <= 0 {
				return fmt.Errorf("pid file %s holds no valid PID", pidFile)
			}
			held, err := serverHolds(pidFile)
			if err != nil {
				return fmt.Errorf("pid file: %w", err)
			}
			if !held {
				// The server is gone (killed, or the machine restarted) and
				// the PID may be another process's now: signal nothing.
				if err := os.Remove(pidFile); err != nil {
					return err
				}
				return fmt.Errorf("no server holds pid file %s: it was stale and is removed; process %d was not signalled", pidFile, pid)
			}
			proc, err := os.FindProcess(pid)
			running := err == nil
			if running {
				if running, err = terminate(proc); err != nil {
					return err
				}
			}
			if !running {
				a.show(notRunning(pid))
				return os.Remove(pidFile)
			}
			forced := false
			for deadline := time.Now().Add(10 * time.Second); alive(proc); time.Sleep(100 * time.Millisecond) {
				if time.Now().After(deadline) {
					_ = proc.Kill()
					forced = true
					break
				}
			}
			a.show(stopped(pid, forced))
			return os.Remove(pidFile)
		},
	}
	cmd.Flags().StringVar(&pidFile, "pid-file", "", "PID file written by serve --daemon (required)")
	_ = cmd.MarkFlagRequired("pid-file")
	return cmd
}

// noModel reports at start-up that the index in folder has no embeddings
// model, and why, and returns a model whose every call fails saying so
// (FAILED_PRECONDITION to gRPC clients): the index's vector calls work.
func (a *app) noModel(folder, why string) core.EmbeddingsModel {
	fmt.Fprintf(a.stderr, "index %s: %s; its text calls fail until then\n", folder, why)
	msg := fmt.Sprintf("index %s: %s", folder, why)
	return missingModel{err: &core.EmbeddingsError{Status: core.EmbeddingsFailed, Message: msg, Err: core.ErrEmbeddingsNotConfigured}}
}

// missingModel stands for the embeddings model an index served lacks.
type missingModel struct{ err *core.EmbeddingsError }

func (m missingModel) MaxTokens() int { return 8000 }

func (m missingModel) CreateEmbeddings(context.Context, []string) (core.EmbeddingsResponse, error) {
	return core.EmbeddingsResponse{Status: m.err.Status, Message: m.err.Message}, m.err
}
