package main

import (
	"github.com/spf13/cobra"

	"github.com/foliovec/folio"
)

func (a *app) migrateCommand() *cobra.Command {
	var to string
	cmd := &cobra.Command{
		Use:     "migrate <index>",
		Short:   "Convert an index to another format (resumable if interrupted)",
		Example: "  folio migrate my-index --to protobuf\n  folio migrate big-index --to segmented",
		Args:    exactArgs(1, "<index>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if _, _, err := codecFor(to); err != nil {
				return err
			}
			storage, err := a.storage(cmd.Context())
			if err != nil {
				return err
			}
			folder := a.folderPath(args[0])
			if err := folio.MigrateIndex(cmd.Context(), folder, folio.MigrateOptions{To: to, Storage: storage}); err != nil {
				return err
			}
			a.show(migrateResult{Format: to, Index: folder})
			return nil
		},
	}
	cmd.Flags().StringVar(&to, "to", "", "the format to convert to (required): "+formatHelp)
	_ = cmd.MarkFlagRequired("to")
	return cmd
}
