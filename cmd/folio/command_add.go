package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/foliovec/folio/adapters/fetch"
	"github.com/foliovec/folio/core"
)

// addOptions are add's flags.
type addOptions struct {
	uris                   uriFlags
	model                  modelFlags
	ix                     indexFlags
	cookie                 string
	chunking               core.ChunkingConfig
	concurrency, batchSize int
	timeout                time.Duration
	walk                   walkFlags
}

func (a *app) addCommand() *cobra.Command {
	var o addOptions
	cmd := &cobra.Command{
		Use:   "add <index>",
		Short: "Add files, folders and web pages to a document index",
		Long: `add reads every --uri (a file, a folder, walked recursively, or an http(s) page)
and upserts the documents in bulk: chunks of several documents share an
embeddings request, --concurrency requests are in flight, and documents are
committed --batch-size at a time. Unchanged documents are skipped.

A local file is stored under its absolute path (symbolic links resolved), as
watch stores it, so any spelling of one file is one document. Every path
named is accounted for: one that is missing, unreadable, binary or not a
file is reported on stderr with the reason, the others are still added, and
the exit status is then 1 (binary files found below a folder are skipped and
listed, without failing). A folder's walk stays inside it: a symbolic link
leading out is skipped and listed with its target unless --follow-links.
Files over --max-file-size are skipped unread. Ctrl-C stops cleanly: every
committed document is kept.`,
		Example: `  folio add my-index --hash-dims 384 --uri README.md docs/
  folio add my-index --keys keys.json --list urls.txt --concurrency 8`,
		Args: exactArgs(1, "<index>"),
		RunE: func(cmd *cobra.Command, args []string) error { return a.runAdd(cmd.Context(), &o, args[0]) },
	}
	o.register(cmd)
	return cmd
}

func (o *addOptions) register(cmd *cobra.Command) {
	o.uris.register(cmd, "files, folders or http(s) pages to add")
	o.model.register(cmd)
	o.ix.register(cmd)
	cmd.Flags().StringVarP(&o.cookie, "cookie", "c", "", "Cookie header sent with web requests")
	registerChunking(cmd, &o.chunking)
	cmd.Flags().IntVar(&o.concurrency, "concurrency", 4, "embeddings requests in flight at once")
	cmd.Flags().IntVar(&o.batchSize, "batch-size", 100, "fewest documents per commit; a large index waits for more, or 10 s, between rewrites")
	cmd.Flags().DurationVar(&o.timeout, "timeout", fetch.DefaultTimeout, "longest wait for one web page, its redirects and body included (0: no limit)")
	o.walk.register(cmd)
}

// runAdd adds every path and URL named and reports what became of each.
func (a *app) runAdd(ctx context.Context, o *addOptions, index string) error {
	list, err := o.uris.all()
	if err != nil {
		return err
	}
	if o.concurrency < 1 || o.batchSize < 1 {
		return usagef("--concurrency and --batch-size must be at least 1")
	}
	e, ix, err := a.openForWriting(ctx, index, &o.model, o.chunking, &o.ix)
	if err != nil {
		return err
	}
	ad, err := a.newAdder(ctx, e.folder, ix, fetch.WebOptions{Timeout: o.timeout}, o.cookie)
	if err != nil {
		return err
	}
	ad.opts = core.UpsertDocumentsOptions{Concurrency: o.concurrency, BatchSize: o.batchSize}
	ad.walk = o.walk
	addErr := ad.addAll(ctx, list)
	rep := ad.rep
	if addErr == nil && ctx.Err() != nil {
		addErr = ctx.Err()
	}
	if addErr != nil {
		a.result(&rep)    // what was done before the failure, with --json
		a.jsonOut = false // the document is printed
		if errors.Is(addErr, context.Canceled) {
			return interrupted{kept: len(rep.Added) + len(rep.Updated), err: addErr}
		}
		return addErr
	}
	a.show(&rep)
	if n := len(rep.Failed) + rep.namedSkipped; n > 0 {
		a.jsonOut = false
		return fmt.Errorf("%d of %d paths and URLs named could not be added", n, len(ad.named))
	}
	return nil
}

// interrupted is the error of a command stopped by Ctrl-C or SIGTERM.
type interrupted struct {
	kept int
	err  error
}

func (e interrupted) Error() string {
	return fmt.Sprintf("interrupted: the %s committed before are kept", plural(e.kept, "document"))
}

func (e interrupted) Unwrap() error { return e.err }

// Documents read are upserted in groups of at most addGroupFiles documents
// or addGroupBytes of text, so that a large tree is never held in memory
// at once.
const (
	addGroupFiles = 1000
	addGroupBytes = 32 << 20
)
