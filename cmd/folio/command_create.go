package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/foliovec/folio"
	"github.com/foliovec/folio/core"
)

func (a *app) createCommand() *cobra.Command {
	var format string
	var force bool
	var model modelFlags
	cmd := &cobra.Command{
		Use:   "create <index>",
		Short: "Create an empty document index (an error if one is there, unless --force)",
		Example: `  folio create my-index
  folio create my-index --format protobuf --hash-dims 384
  folio create big-index --format segmented`,
		Args: exactArgs(1, "<index>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			codec, layout, err := codecFor(format)
			if err != nil {
				return err
			}
			if err := model.check(); err != nil {
				return err
			}
			storage, err := a.storage(ctx)
			if err != nil {
				return err
			}
			folder := a.folderPath(args[0])
			// The model first (a model named by id may need fetching), so
			// that a model that fails leaves no index behind; "" because
			// the index's own record, if any, is about to go.
			_, rec, err := model.resolve(ctx, a, storage, "")
			if err != nil {
				return err
			}
			if force {
				// Also an index of the other format, and the model file.
				if err := storage.DeleteFolder(ctx, folder); err != nil {
					return err
				}
			} else if _, err := folio.DetectCodec(ctx, folder, storage); err == nil || !isNotFound(err) {
				return fmt.Errorf("an index exists at %s (use --force to replace it): %w", folder, core.ErrIndexExists)
			}
			ix, err := folio.NewLocalDocumentIndex(folio.DocumentIndexConfig{FolderPath: folder, IndexOptions: core.IndexOptions{Storage: storage, Codec: codec}})
			if err != nil {
				return err
			}
			if err := ix.CreateIndex(ctx, core.CreateIndexConfig{Version: 1, Layout: layout}); err != nil {
				return err
			}
			if rec.Kind != "" {
				if err := rememberModel(ctx, storage, folder, rec); err != nil {
					return err
				}
			}
			a.show(createResult{Format: format, Index: folder, Model: recordJSON(rec)})
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", folio.FormatJSON, "index format: "+formatHelp)
	cmd.Flags().BoolVar(&force, "force", false, "replace an index already there (Vectra always did)")
	model.register(cmd)
	return cmd
}

func isNotFound(err error) bool { return err != nil && errors.Is(err, core.ErrIndexNotFound) }

// recordJSON is a model record as --json prints it; nil for none.
func recordJSON(rec modelRecord) any {
	if rec.Kind == "" {
		return nil
	}
	return rec
}
