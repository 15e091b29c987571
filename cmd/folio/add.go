package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/foliovec/folio/adapters/fetch"
	"github.com/foliovec/folio/core"
)

func (a *app) addCommand() *cobra.Command {
	var uris uriFlags
	var model modelFlags
	var ixFlags indexFlags
	var cookie string
	var chunkSize, concurrency, batchSize int
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "add <index>",
		Short: "Add files, folders and web pages to a document index",
		Long: `add reads every --uri (a file, a folder, walked recursively, or an http(s) page)
and upserts the documents in bulk: chunks of several documents share an
embeddings request, --concurrency requests are in flight, and documents are
committed --batch-size at a time. Unchanged documents are skipped. Ctrl-C
stops cleanly: every committed document is kept.`,
		Example: `  folio add my-index --hash-dims 384 --uri README.md --uri docs/
  folio add my-index --keys keys.json --list urls.txt --concurrency 8`,
		Args: exactArgs(1, "<index>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			list, err := uris.all()
			if err != nil {
				return err
			}
			if concurrency < 1 || batchSize < 1 {
				return usagef("--concurrency and --batch-size must be at least 1")
			}
			e, ix, err := a.openForWriting(ctx, args[0], &model, chunkSize, &ixFlags)
			if err != nil {
				return err
			}
			docs, failed := a.fetchAll(ctx, list, fetch.WebOptions{Timeout: timeout}, cookie)
			if err := ctx.Err(); err != nil {
				return err
			}
			bar := a.progress(len(docs), "embedding")
			var last core.UpsertProgress
			_, upsertErr := ix.UpsertDocuments(ctx, docs, &core.UpsertDocumentsOptions{
				Concurrency: concurrency, BatchSize: batchSize,
				Progress: func(p core.UpsertProgress) {
					last = p
					if bar != nil {
						bar.Describe(fmt.Sprintf("%d chunks, %d embeddings calls", p.Chunks, p.EmbeddingsCalls))
						_ = bar.Set(p.Documents)
					}
				},
			})
			if bar != nil {
				_ = bar.Finish()
				fmt.Fprintln(a.stderr)
			}
			out := map[string]any{
				"index": e.folder, "documents": last.Documents - last.Skipped, "skipped": last.Skipped,
				"chunks": last.Chunks, "embeddingsCalls": last.EmbeddingsCalls, "failed": failed,
			}
			if upsertErr != nil {
				if errors.Is(upsertErr, context.Canceled) {
					upsertErr = fmt.Errorf("interrupted: the documents committed before are kept: %w", upsertErr)
				}
				out["error"] = upsertErr.Error()
				a.result(out)
				a.jsonOut = false // the document is printed
				return upsertErr
			}
			a.printf("added %d documents (%d unchanged), %d chunks in %d embeddings calls\n",
				last.Documents-last.Skipped, last.Skipped, last.Chunks, last.EmbeddingsCalls)
			a.result(out)
			if len(failed) > 0 {
				a.jsonOut = false
				return fmt.Errorf("%d of %d URIs could not be read", len(failed), len(list))
			}
			return nil
		},
	}
	uris.register(cmd, "files, folders or http(s) pages to add")
	model.register(cmd)
	ixFlags.register(cmd)
	cmd.Flags().StringVarP(&cookie, "cookie", "c", "", "Cookie header sent with web requests")
	cmd.Flags().IntVar(&chunkSize, "chunk-size", 512, "tokens per chunk")
	cmd.Flags().SetNormalizeFunc(aliasFlags(map[string]string{"cs": "chunk-size"}))
	cmd.Flags().IntVar(&concurrency, "concurrency", 4, "embeddings requests in flight at once")
	cmd.Flags().IntVar(&batchSize, "batch-size", 100, "fewest documents per commit; a large index waits for more, or 10 s, between rewrites")
	cmd.Flags().DurationVar(&timeout, "timeout", fetch.DefaultTimeout, "longest wait for one web page, its redirects and body included (0: no limit)")
	return cmd
}

// fetchFailure is a URI add could not read.
type fetchFailure struct {
	URI   string `json:"uri"`
	Error string `json:"error"`
}

// fetchAll reads every URI: web pages with the web fetcher, the rest
// with the file fetcher. A URI that fails is printed and reported, and
// the others go on, as Vectra's add does.
func (a *app) fetchAll(ctx context.Context, uris []string, web fetch.WebOptions, cookie string) ([]core.DocumentInput, []fetchFailure) {
	if cookie != "" {
		web.Headers = map[string]string{"Cookie": cookie}
	}
	if web.Timeout == 0 {
		web.Timeout = -1 // --timeout 0: no limit
	}
	webFetcher := fetch.NewWebFetcher(&web)
	files := fetch.NewFileFetcher(nil)
	var docs []core.DocumentInput
	failed := []fetchFailure{}
	for _, uri := range uris {
		var f core.TextFetcher = files
		if strings.HasPrefix(uri, "http://") || strings.HasPrefix(uri, "https://") {
			f = webFetcher
		}
		_, err := f.Fetch(ctx, uri, func(_ context.Context, uri, text, docType string) (bool, error) {
			docs = append(docs, core.DocumentInput{URI: uri, Text: text, DocType: docType})
			return true, nil
		})
		if err != nil {
			if ctx.Err() != nil {
				return docs, failed
			}
			fmt.Fprintf(a.stderr, "Error adding: %s\n%v\n", uri, err)
			failed = append(failed, fetchFailure{URI: uri, Error: err.Error()})
		}
	}
	return docs, failed
}

// progress returns a progress bar of n steps on stderr when it is a
// terminal, else nil.
func (a *app) progress(n int, what string) *progressbar.ProgressBar {
	if !a.stderrIsTerminal || n == 0 {
		return nil
	}
	return progressbar.NewOptions(n,
		progressbar.OptionSetWriter(a.stderr),
		progressbar.OptionSetDescription(what),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionSetItsString("docs"),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionThrottle(100e6),
	)
}
