package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/foliovec/folio/adapters/watch"
	"github.com/foliovec/folio/core"
)

// watchOptions are watch's flags.
type watchOptions struct {
	uris       uriFlags
	model      modelFlags
	ix         indexFlags
	extensions []string
	chunking   core.ChunkingConfig
	debounce   int
	walk       walkFlags
}

func (a *app) watchCommand() *cobra.Command {
	var o watchOptions
	cmd := &cobra.Command{
		Use:   "watch <index>",
		Short: "Keep a document index in step with folders and files until stopped",
		Long: `watch syncs the index with the --uri folders and files (added, changed and deleted
files), then follows their changes until Ctrl-C or SIGTERM. Changes made
while it was stopped are caught when it starts. Files are stored under their
absolute paths, as add stores them. As add does, it stays inside the folders
named (symbolic links leading out are skipped unless --follow-links) and skips
files over --max-file-size unread.`,
		Example: "  folio watch my-index --uri docs/ notes/ --extensions .md .txt",
		Args:    exactArgs(1, "<index>"),
		RunE:    func(cmd *cobra.Command, args []string) error { return a.runWatch(cmd.Context(), &o, args[0]) },
	}
	o.uris.register(cmd, "folders or files to watch")
	o.model.register(cmd)
	o.ix.register(cmd)
	cmd.Flags().StringArrayVarP(&o.extensions, "extensions", "e", nil, "`EXT`: file extensions to sync, with or without the dot (e.g. -e .md .txt; default every text file)")
	registerChunking(cmd, &o.chunking)
	cmd.Flags().IntVar(&o.debounce, "debounce", 500, "milliseconds a file must stay quiet before it is synced")
	o.walk.register(cmd)
	return cmd
}

// runWatch syncs and follows the paths until ctx ends.
func (a *app) runWatch(ctx context.Context, o *watchOptions, index string) error {
	paths, err := o.uris.all()
	if err != nil {
		return err
	}
	_, ix, err := a.openForWriting(ctx, index, &o.model, o.chunking, &o.ix)
	if err != nil {
		return err
	}
	w, err := watch.New(&watch.Options{
		Index: ix, Paths: paths, Extensions: o.extensions,
		Debounce:    time.Duration(o.debounce) * time.Millisecond,
		FollowLinks: o.walk.followLinks, MaxFileBytes: o.walk.maxBytes(),
		OnSkip: func(path string, reason error) {
			fmt.Fprintf(a.stderr, "skipped: %s: %v\n", path, reason)
		},
		OnSync: a.printSync,
		OnError: func(err error, uri string) {
			fmt.Fprintf(a.stderr, "Error syncing %s: %v\n", uri, err)
		},
	})
	if err != nil {
		return err
	}
	if err := w.Start(ctx); err != nil {
		return err
	}
	if a.jsonOut {
		a.printJSON(map[string]any{"event": "ready", "tracked": w.TrackedFileCount()})
	} else {
		fmt.Fprintf(a.stdout, "watching %s; Ctrl-C stops\n", plural(w.TrackedFileCount(), "file"))
	}
	<-ctx.Done()
	w.Stop()
	return nil
}

// printSync prints one sync as a line of text, or a JSON document with
// --json.
func (a *app) printSync(uri string, action watch.SyncAction) {
	switch {
	case a.jsonOut:
		a.printJSON(map[string]any{"event": string(action), "uri": uri})
	case action == watch.SyncDeleted:
		fmt.Fprintf(a.stdout, "removed %s\n", uri)
	default:
		fmt.Fprintf(a.stdout, "%s %s\n", action, uri)
	}
}
