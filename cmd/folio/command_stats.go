package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/foliovec/folio"
	"github.com/foliovec/folio/core"
)

func (a *app) statsCommand() *cobra.Command {
	return &cobra.Command{
		Use:     "stats <index>",
		Short:   "Print an index's format, version, metadata config and counts",
		Example: "  folio stats my-index --json",
		Args:    exactArgs(1, "<index>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			e, err := a.openExisting(ctx, args[0])
			if err != nil {
				return err
			}
			out, err := statsOf(ctx, e)
			if err != nil {
				return err
			}
			if a.jsonOut {
				a.printJSON(out)
				return nil
			}
			for _, k := range []string{"index", "kind", "format", "layout", "segments", "tombstones", "version", "documents", "chunks", "items", "model"} {
				if v, ok := out[k]; ok {
					fmt.Fprintf(a.stdout, "%s: %v\n", k, v)
				}
			}
			fmt.Fprintf(a.stdout, "indexed metadata: %v\n", out["metadataConfig"].(map[string][]string)["indexed"])
			return nil
		},
	}
}

// statsOf gathers what stats prints of an index: its kind, format and
// layout, version, counts, metadata config and model.
func statsOf(ctx context.Context, e *existingIndex) (map[string]any, error) {
	out := map[string]any{"index": e.folder}
	if rec, ok, err := readModelRecord(ctx, e.storage, e.folder); err != nil {
		return nil, err
	} else if ok {
		out["model"] = rec
	}
	if e.documents {
		ix, err := e.documentIndex(nil, core.ChunkingConfig{}, nil)
		if err != nil {
			return nil, err
		}
		st, err := ix.GetCatalogStats(ctx)
		if err != nil {
			return nil, err
		}
		out["kind"], out["version"], out["documents"], out["chunks"] = "documents", st.Version, st.Documents, st.Chunks
		out["metadataConfig"] = metadataConfigJSON(st.MetadataConfig)
		is, err := ix.GetIndexStats(ctx)
		if err != nil {
			return nil, err
		}
		storageStats(out, e.codec, is.Storage)
	} else {
		ix, err := folio.NewLocalIndex(e.folder, &folio.IndexOptions{Storage: e.storage, Codec: e.codec})
		if err != nil {
			return nil, err
		}
		st, err := ix.GetIndexStats(ctx)
		if err != nil {
			return nil, err
		}
		out["kind"], out["version"], out["items"] = "items", st.Version, st.Items
		out["metadataConfig"] = metadataConfigJSON(st.MetadataConfig)
		storageStats(out, e.codec, st.Storage)
	}
	return out, nil
}

// storageStats adds how the index is stored to out: its format and
// layout, and on the segmented layout its segments and tombstones (rows of
// deleted or replaced items that Vacuum's compaction removes).
func storageStats(out map[string]any, c core.IndexCodec, st core.LayoutStats) {
	out["format"], out["layout"] = formatOf(c, st.Layout), string(st.Layout)
	if st.Layout == core.LayoutSegmented {
		out["segments"], out["tombstones"] = st.Segments, st.Tombstones
	}
}

// metadataConfigJSON is an index's metadata config as stats prints it,
// in the index file's own spelling: {"indexed": [...]}, [] for none.
func metadataConfigJSON(c core.MetadataConfig) map[string][]string {
	indexed := c.Indexed
	if indexed == nil {
		indexed = []string{}
	}
	return map[string][]string{"indexed": indexed}
}
