package main

import (
	"github.com/spf13/cobra"
)

func (a *app) deleteCommand() *cobra.Command {
	return &cobra.Command{
		Use:     "delete <index>",
		Short:   "Delete an index folder and everything in it",
		Example: "  folio delete my-index",
		Args:    exactArgs(1, "<index>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			ix, err := a.openExisting(ctx, args[0])
			if err != nil {
				return err
			}
			if err := ix.storage.DeleteFolder(ctx, ix.folder); err != nil {
				return err
			}
			a.show(deleteResult{Deleted: true, Index: ix.folder})
			return nil
		},
	}
}
