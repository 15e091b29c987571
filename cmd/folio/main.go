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
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
