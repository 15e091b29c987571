// Command folio-load load-tests a gRPC server speaking Vectra's service
// (folio serve, or Vectra's own server): a mix of calls from many clients,
// with the calls per second and the latency percentiles of each kind. It is
// the repository's benchmark tool (make server-bench), not one of folio's
// commands.
//
// Build it with go build ./cmd/folio/loadgen (the binary is loadgen; make
// server-bench names it folio-load). It exits 0 when the load ran, 2 on a
// usage error and 1 otherwise.
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/foliovec/folio/cmd/folio/internal/bearer"
)

// usageError is a command line that cannot run: exit status 2.
type usageError struct{ error }

func usageErrorf(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

func main() {
	err := command(os.Stdout, os.Stderr).Execute()
	var usage usageError
	switch {
	case err == nil:
	case errors.As(err, &usage):
		fmt.Fprintf(os.Stderr, "folio-load: %v\n", err)
		os.Exit(2)
	default:
		fmt.Fprintf(os.Stderr, "folio-load: %v\n", err)
		os.Exit(1)
	}
}

// command is folio-load's command line, writing to stdout and stderr.
func command(stdout, stderr io.Writer) *cobra.Command {
	var cfg loadConfig
	var mix []string
	var tokenFile string
	var jsonOut, quiet bool
	cmd := &cobra.Command{
		Use:   "folio-load",
		Short: "Load-test a Vectra-compatible gRPC server: calls per second and latency percentiles",
		Long: `folio-load sends a mix of calls to a gRPC server speaking Vectra's service (folio
serve, or Vectra's own server) from --concurrency clients for --duration (or
--requests calls in all), and prints, per kind of call and in all, the calls
per second and the 50th, 90th and 99th percentile and largest latencies.

Kinds, weighted by --mix kind=weight:
  query   QueryItems with a random unit vector of --dims dimensions, top --top-k
  filter  the same with the metadata filter --filter
  docs    QueryDocuments of --text on --doc-index
  insert  InsertItem of a random vector (it writes to the index)

Each client has its own connection, as separate users do.

With --create N the index is first created (replacing one of that name) and
filled with N random unit vectors of --dims dimensions, metadata "group"
0..9, over the same service (BatchInsertItems, 1,000 at a time), so the same
command prepares a benchmark on folio serve and on Vectra's own server.`,
		Example: `  folio-load --index vectors --dims 384 --concurrency 8 --duration 10s
  folio-load --index docs --mix docs=1 --text "how do I create an index"
  folio-load --index vectors --mix query=8 --mix filter=1 --mix insert=1 --filter '{"group": 1}'
  folio-load --index bench --create 100000 --format protobuf --concurrency 16`,
		Args:          cobra.NoArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			stats, err := prepareAndRun(cmd, &cfg, mix, tokenFile, quiet, stderr)
			if err != nil {
				return err
			}
			report(stdout, stderr, cfg, stats, jsonOut)
			return nil
		},
	}
	registerFlags(cmd, &cfg, &mix, &tokenFile, &jsonOut, &quiet)
	return cmd
}

// registerFlags binds folio-load's flags.
func registerFlags(cmd *cobra.Command, c *loadConfig, mix *[]string, tokenFile *string, jsonOut, quiet *bool) {
	f := cmd.Flags()
	f.StringVar(&c.address, "address", "127.0.0.1:50051", "the server's host:port")
	f.StringVar(&c.index, "index", "", "the index the calls go to (required)")
	f.StringVar(&c.docIndex, "doc-index", "", "the document index of docs calls (default --index)")
	f.IntVar(&c.concurrency, "concurrency", 8, "clients calling at once, each on its own connection")
	f.DurationVar(&c.duration, "duration", 10*time.Second, "how long to send calls (with --requests 0)")
	f.IntVar(&c.requests, "requests", 0, "calls to send in all (0: as many as --duration allows)")
	f.IntVar(&c.dims, "dims", 384, "dimensions of the random vectors")
	f.IntVar(&c.topK, "top-k", 10, "results per query")
	f.StringVar(&c.filter, "filter", `{"group": 1}`, "metadata filter of filter calls, as JSON")
	f.StringVar(&c.text, "text", "how do I create an index", "query text of docs calls")
	f.StringArrayVar(mix, "mix", []string{"query=1"}, "`KIND=WEIGHT`: query, filter, docs or insert and its share of the calls (several allowed)")
	f.StringVar(tokenFile, "token-file", "", "file holding the bearer token (else $"+bearer.Env+" if set)")
	f.Uint64Var(&c.seed, "seed", 1, "seed of the random vectors and the mix")
	f.IntVar(&c.create, "create", 0, "first create --index (replacing one of that name) with this many random items")
	f.StringVar(&c.format, "format", "json", "format of the index --create makes: json, protobuf or segmented")
	f.BoolVar(jsonOut, "json", false, "print one JSON document instead of the table")
	f.BoolVarP(quiet, "quiet", "q", false, "say nothing on stderr but errors")
}

// prepareAndRun checks cfg, creates the index when asked, and runs the load.
func prepareAndRun(cmd *cobra.Command, cfg *loadConfig, mix []string, tokenFile string, quiet bool, stderr io.Writer) ([]loadStats, error) {
	if cfg.index == "" {
		return nil, usageErrorf("--index is required")
	}
	if cfg.docIndex == "" {
		cfg.docIndex = cfg.index
	}
	if cfg.concurrency < 1 || cfg.dims < 1 || cfg.topK < 1 || cfg.requests < 0 || cfg.create < 0 {
		return nil, usageErrorf("--concurrency, --dims and --top-k must be at least 1, --requests and --create at least 0")
	}
	var err error
	if cfg.mix, err = parseMix(mix); err != nil {
		return nil, err
	}
	if cfg.token, err = bearer.Read(tokenFile); err != nil {
		return nil, err
	}
	if cfg.create > 0 {
		start := time.Now()
		if err := createLoadIndex(cmd.Context(), *cfg); err != nil {
			return nil, err
		}
		if !quiet {
			fmt.Fprintf(stderr, "created index %s: %d items of %d dimensions in %.1f s\n", cfg.index, cfg.create, cfg.dims, time.Since(start).Seconds())
		}
	}
	return runLoad(cmd.Context(), *cfg)
}

// report prints the stats as a table, or as JSON, and the first error of
// each kind that had errors on stderr.
func report(stdout, stderr io.Writer, cfg loadConfig, stats []loadStats, jsonOut bool) {
	if jsonOut {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(map[string]any{"address": cfg.address, "concurrency": cfg.concurrency, "stats": stats})
	} else {
		fmt.Fprintf(stdout, "%-8s %9s %7s %10s %9s %9s %9s %9s\n", "kind", "calls", "errors", "calls/s", "p50 ms", "p90 ms", "p99 ms", "max ms")
		for _, s := range stats {
			fmt.Fprintf(stdout, "%-8s %9d %7d %10.1f %9.3f %9.3f %9.3f %9.3f\n", s.Kind, s.Calls, s.Errors, s.PerSec, s.P50Ms, s.P90Ms, s.P99Ms, s.MaxMs)
		}
	}
	for _, s := range stats {
		if s.FirstErr != "" && s.Kind != "all" {
			fmt.Fprintf(stderr, "%s: %d errors, the first: %s\n", s.Kind, s.Errors, s.FirstErr)
		}
	}
}
