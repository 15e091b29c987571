// Command folio is Folio's command line: Vectra's CLI commands (create,
// delete, add, remove, stats, migrate, query, watch, serve, stop,
// generate) on Folio's engine, with --json output on every command, an
// offline embeddings model (--hash-dims), and indexes that remember the
// model that built them.
//
// Exit status: 0 on success, 1 on failure, 2 on a usage error.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	// The first interrupt or terminate signal ends the command's context,
	// its cause naming the signal (serve says it); a second one, while the
	// command winds down, ends the process at once.
	ctx, cancel := context.WithCancelCause(context.Background())
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	go func() {
		if sig, ok := <-signals; ok {
			signal.Stop(signals)
			cancel(fmt.Errorf("signal %v", sig))
		}
	}()
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	signal.Stop(signals)
	cancel(nil)
	os.Exit(code)
}
