package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/foliovec/folio/adapters/watch"
	"github.com/foliovec/folio/core"
)

func (a *app) watchCommand() *cobra.Command {
	var uris uriFlags
	var model modelFlags
	var ixFlags indexFlags
	var extensions []string
	var chunking core.ChunkingConfig
	var debounce int
	var walk walkFlags
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
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			paths, err := uris.all()
			if err != nil {
				return err
			}
			_, ix, err := a.openForWriting(ctx, args[0], &model, chunking, &ixFlags)
			if err != nil {
				return err
			}
			events := 0
			w, err := watch.New(&watch.Options{
				Index: ix, Paths: paths, Extensions: extensions,
				Debounce:    time.Duration(debounce) * time.Millisecond,
				FollowLinks: walk.followLinks, MaxFileBytes: walk.maxBytes(),
				OnSkip: func(path string, reason error) {
					fmt.Fprintf(a.stderr, "skipped: %s: %v\n", path, reason)
				},
				OnSync: func(uri string, action watch.SyncAction) {
					events++
					if a.jsonOut {
						a.printJSON(map[string]any{"event": string(action), "uri": uri})
						return
					}
					if action == watch.SyncDeleted {
						fmt.Fprintf(a.stdout, "removed %s\n", uri)
					} else {
						fmt.Fprintf(a.stdout, "%s %s\n", action, uri)
					}
				},
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
		},
	}
	uris.register(cmd, "folders or files to watch")
	model.register(cmd)
	ixFlags.register(cmd)
	cmd.Flags().StringArrayVarP(&extensions, "extensions", "e", nil, "`EXT`: file extensions to sync, with or without the dot (e.g. -e .md .txt; default every text file)")
	registerChunking(cmd, &chunking)
	cmd.Flags().IntVar(&debounce, "debounce", 500, "milliseconds a file must stay quiet before it is synced")
	walk.register(cmd)
	return cmd
}
