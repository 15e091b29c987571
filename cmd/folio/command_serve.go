package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/foliovec/folio"
	codecjson "github.com/foliovec/folio/adapters/codec-json"
	codecpb "github.com/foliovec/folio/adapters/codec-pb"
	grpcserver "github.com/foliovec/folio/adapters/grpc"
	tokenizertiktoken "github.com/foliovec/folio/adapters/tokenizer-tiktoken"
	"github.com/foliovec/folio/core"
	"github.com/foliovec/folio/core/manager"
)

// tokenEnv is the environment variable serve reads its bearer token from
// when --token-file is not given. A token is never taken from argv, where
// other users of the machine could read it.
const tokenEnv = "FOLIO_TOKEN"

// listeningLine starts the line serve prints once it accepts calls.
const listeningLine = "Folio gRPC server listening on "

func (a *app) serveCommand() *cobra.Command {
	var root, address, pidFile, tokenFile, tlsCert, tlsKey, ranking string
	var port int
	var daemon bool
	var model modelFlags
	var ixFlags indexFlags
	var vectraChunking bool
	maxQuery := byteSize(grpcserver.DefaultMaxQueryBytes)
	cmd := &cobra.Command{
		Use:   "serve [index]",
		Short: "Serve one index, or every index below --root, over Vectra's gRPC service",
		Example: `  folio serve my-index
  folio serve --root ./indexes --port 50051 --daemon --pid-file folio.pid
  FOLIO_TOKEN=secret folio serve my-index --tls-cert cert.pem --tls-key key.pem`,
		Args: func(_ *cobra.Command, args []string) error {
			switch {
			case len(args) > 1:
				return usagef("expected at most one <index>")
			case len(args) == 0 && root == "":
				return usagef("you must provide either an <index> path or --root <dir>")
			case len(args) == 1 && root != "":
				return usagef("<index> and --root are mutually exclusive")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if err := model.check(); err != nil {
				return err
			}
			var docRanking string
			switch ranking {
			case "vectra":
			case rankingFusion:
				docRanking = grpcserver.RankingFusion
			default:
				return usagef("--ranking %q: want vectra or %s", ranking, rankingFusion)
			}
			if daemon {
				return a.daemonize(root, args, pidFile)
			}
			var storage core.FileStorage
			var err error
			rootDir := a.folderPath(root)
			if isBucketURL(root) {
				// Every index below the bucket URL's top (or prefix).
				storage, err = openStorage(ctx, root)
				rootDir = "."
			} else {
				storage, err = a.storage(ctx)
			}
			if err != nil {
				return err
			}
			cfg := grpcserver.Options{
				Port: port, Address: address, TLSCertFile: tlsCert, TLSKeyFile: tlsKey,
				MaxQueryBytes: int(maxQuery), DocumentRanking: docRanking,
				Config: manager.Config{
					Formats:        map[string]core.IndexCodec{folio.FormatJSON: codecjson.New(), folio.FormatProtobuf: codecpb.New()},
					Tokenizer:      tokenizertiktoken.New(),
					IndexOptions:   ixFlags.with(storage, nil), // every index served gets the flags' options
					VectraChunking: vectraChunking,
				},
			}
			if maxQuery == 0 {
				cfg.MaxQueryBytes = -1 // --max-query-size 0: no cap
			}
			// Warnings (a folder a rescan cannot open, …) go to stderr.
			cfg.Logger = slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
			if len(args) == 1 {
				cfg.IndexPath = a.folderPath(args[0])
				if _, err := folio.DetectCodec(ctx, cfg.IndexPath, storage); err != nil {
					if isNotFound(err) {
						return noIndexError{cfg.IndexPath}
					}
					return err
				}
				if cfg.Embeddings, _, err = model.resolve(ctx, storage, cfg.IndexPath); err != nil {
					return err
				}
			} else {
				cfg.RootDir = rootDir
				// Each index with the model it remembers (or the flags'
				// model, which must then be the same).
				if err := model.check(); err != nil {
					return err
				}
				cfg.EmbeddingsFor = func(ctx context.Context, folder string) (core.EmbeddingsModel, error) {
					m, _, err := model.resolve(ctx, storage, folder)
					var usage usageError
					switch {
					case errors.As(err, &usage):
						// A hosted model needs its keys: the index is served
						// for vector calls, and says why text calls fail.
						return a.noModel(folder, err.Error()), nil
					case err != nil:
						return nil, err
					case m == nil:
						return a.noModel(folder, "no embeddings model: serve it with --hash-dims N, --keys FILE or --model DIR|ID"), nil
					}
					return m, nil
				}
			}
			if cfg.AuthToken, err = readToken(tokenFile); err != nil {
				return err
			}
			srv, err := grpcserver.New(&cfg)
			if err != nil {
				return err
			}
			got, err := srv.Start(ctx)
			if err != nil {
				return err
			}
			host := address
			if host == "" {
				host = grpcserver.DefaultAddress
			}
			fmt.Fprintf(a.stdout, "%s%s:%d\n", listeningLine, host, got)
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
			select {
			case <-ctx.Done():
			case <-srv.Done():
			}
			sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
			defer cancel()
			return srv.Shutdown(sctx)
		},
	}
	f := cmd.Flags()
	f.StringVar(&root, "root", "", "serve every index folder below this folder, or below this bucket URL (s3://…, gs://…, azblob://…; in a folio built with -tags objectstorage)")
	f.IntVarP(&port, "port", "p", grpcserver.DefaultPort, "TCP port")
	f.StringVar(&address, "address", "", "address to bind (default 127.0.0.1)")
	f.BoolVar(&daemon, "daemon", false, "run in the background and write its PID to --pid-file")
	f.StringVar(&pidFile, "pid-file", "", "PID file of --daemon (default .vectra.pid beside the index, or in --root)")
	f.StringVar(&tokenFile, "token-file", "", "file holding the bearer token every call must carry (else $"+tokenEnv+")")
	f.StringVar(&tlsCert, "tls-cert", "", "TLS certificate (PEM); with --tls-key, serve TLS")
	f.StringVar(&tlsKey, "tls-key", "", "TLS private key (PEM)")
	f.StringVar(&ranking, "ranking", "vectra", "how QueryDocuments ranks: vectra (the request's use_bm25 picks Vectra's vector or hybrid search, scores as Vectra's clients read them) or fusion (vector and keyword matches ranked together by reciprocal rank fusion, as folio query does; scores of about 1/60)")
	f.Var(&maxQuery, "max-query-size", "`SIZE` of the longest query text a call may send (e.g. 16KiB; 0: no cap); a longer one is INVALID_ARGUMENT")
	model.register(cmd)
	ixFlags.register(cmd)
	cmd.Flags().BoolVar(&vectraChunking, "vectra-chunking", false, vectraChunkingHelp)
	return cmd
}

// readToken returns the bearer token from file, else from $FOLIO_TOKEN
// (surrounding white space trimmed). A token file, or a set $FOLIO_TOKEN,
// that yields an empty token is an error: serving without authentication
// must be asked for by giving neither, never by an empty file.
func readToken(file string) (string, error) {
	if file == "" {
		v, set := os.LookupEnv(tokenEnv)
		if !set {
			return "", nil
		}
		if t := strings.TrimSpace(v); t != "" {
			return t, nil
		}
		return "", fmt.Errorf("$%s is set but empty: unset it to serve without a token, or give the token", tokenEnv)
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("token file: %w", err)
	}
	t := strings.TrimSpace(string(raw))
	if t == "" {
		return "", fmt.Errorf("token file %s is empty: it must hold the bearer token", file)
	}
	return t, nil
}

// daemonize starts this command again without --daemon, detached, with its
// output in "<pid file>.log", waits until it listens (or fails), writes its
// PID to pidFile and returns.
func (a *app) daemonize(root string, args []string, pidFile string) error {
	if pidFile == "" {
		dir := root
		switch {
		case isBucketURL(root) || root == "" && isBucketURL(a.storageRoot):
			dir = "." // the index is in a bucket: the PID file goes here
		case dir == "":
			dir = filepath.Dir(a.folderPath(args[0]))
		}
		pidFile = filepath.Join(dir, ".vectra.pid")
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	var childArgs []string
	for _, arg := range os.Args[1:] {
		if arg != "--daemon" && arg != "--daemon=true" {
			childArgs = append(childArgs, arg)
		}
	}
	// The server holds the PID file's lock as long as it lives, so folio
	// stop can tell it from a process that took its PID after it died.
	lock, err := lockPIDFile(pidFile)
	if errors.Is(err, errPIDFileHeld) {
		return fmt.Errorf("a server started with pid file %s is running: stop it first (folio stop --pid-file %s)", pidFile, pidFile)
	}
	if err != nil {
		return fmt.Errorf("pid file: %w", err)
	}
	defer lock.Close()
	logPath := pidFile + ".log"
	logFile, err := os.Create(logPath)
	if err != nil {
		return err
	}
	defer logFile.Close()
	child := exec.Command(self, childArgs...)
	child.Stdout, child.Stderr = logFile, logFile
	child.ExtraFiles = []*os.File{lock} // the server's copy holds the lock
	detach(child)
	if err := child.Start(); err != nil {
		return err
	}
	exited := make(chan error, 1)
	go func() { exited <- child.Wait() }()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case err := <-exited:
			out, _ := os.ReadFile(logPath)
			return fmt.Errorf("the server ended at start (%v): %s", err, strings.TrimSpace(string(out)))
		case <-deadline:
			_ = child.Process.Kill()
			return errors.New("the server did not start listening within 30 s")
		case <-time.After(50 * time.Millisecond):
		}
		if line, ok := firstLineWith(logPath, listeningLine); ok {
			if err := os.WriteFile(pidFile, []byte(strconv.Itoa(child.Process.Pid)+"\n"), 0o644); err != nil {
				return err
			}
			a.printf("%s (pid %d, pid file %s, log %s)\n", line, child.Process.Pid, pidFile, logPath)
			a.result(map[string]any{"pid": child.Process.Pid, "pidFile": pidFile, "log": logPath, "listening": strings.TrimPrefix(line, listeningLine)})
			return child.Process.Release()
		}
	}
}

// errPIDFileHeld says a running server holds the PID file's lock.
var errPIDFileHeld = errors.New("a server holds the pid file")

// firstLineWith returns the first line of the file that starts with prefix.
func firstLineWith(path, prefix string) (string, bool) {
	f, err := os.Open(path)
	if err != nil {
		return "", false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), prefix) {
			return sc.Text(), true
		}
	}
	return "", false
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
				a.printf("server %d is not running\n", pid)
				a.result(map[string]any{"pid": pid, "running": false})
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
			a.printf("stopped server %d\n", pid)
			a.result(map[string]any{"pid": pid, "stopped": true, "killed": forced})
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
