package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/foliovec/folio"
	"github.com/foliovec/folio/core"
)

func (a *app) statsCommand() *cobra.Command {
	var flags indexFlags
	cmd := &cobra.Command{
		Use:   "stats <index>",
		Short: "Print an index's format, version, metadata config and counts",
		Long: "Print an index's format, version, metadata config and counts. With --codes int4 (or int4+int8)\n" +
			"it also counts the outliers: rows far outside the grid of their 4-bit codes, which every query\n" +
			"scores exactly. With --partitions it reports the partitions (trained, or read from the\n" +
			"index's partitions file), the partitions a query probes on average, the share of the rows\n" +
			"they hold and the recall the calibration measured.",
		Example: "  folio stats my-index --json\n  folio stats my-index --codes int4\n  folio stats my-index --partitions",
		Args:    exactArgs(1, "<index>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			e, err := a.openExisting(ctx, args[0])
			if err != nil {
				return err
			}
			out, err := statsOf(ctx, e, &flags)
			if err != nil {
				return err
			}
			a.show(statsResult(out))
			return nil
		},
	}
	flags.register(cmd)
	return cmd
}

// statsOf gathers what stats prints of an index: its kind, format and
// layout, version, counts, metadata config and model.
func statsOf(ctx context.Context, e *existingIndex, flags *indexFlags) (map[string]any, error) {
	out := map[string]any{"index": e.shown}
	if rec, ok, err := readModelRecord(ctx, e.storage, e.folder); err != nil {
		return nil, err
	} else if ok {
		out["model"] = rec
	}
	if e.documents {
		ix, err := e.documentIndex(nil, core.ChunkingConfig{}, flags)
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
		storageStats(out, e.codec, is)
	} else {
		opts := e.options(flags)
		ix, err := folio.NewLocalIndex(e.folder, &opts)
		if err != nil {
			return nil, err
		}
		st, err := ix.GetIndexStats(ctx)
		if err != nil {
			return nil, err
		}
		out["kind"], out["version"], out["items"] = "items", st.Version, st.Items
		out["metadataConfig"] = metadataConfigJSON(st.MetadataConfig)
		storageStats(out, e.codec, st)
	}
	if codes := flags.opts.ScanCodes; codes == core.CodesInt4 || codes == core.CodesInt4Int8 {
		if _, ok := out["outliers"]; !ok {
			out["outliers"] = 0
		}
	}
	return out, nil
}

// storageStats adds how the index is stored to out: its format and
// layout, on the segmented layout its segments and tombstones (rows of
// deleted or replaced items that Vacuum's compaction removes), the
// outliers of its 4-bit codes when it has some, the memory its scan
// codes take when it keeps codes, and its partitions when --partitions
// made some: how many, the mean probed and share of the rows read, and the
// recall the calibration measured.
func storageStats(out map[string]any, c core.IndexCodec, is core.IndexStats) {
	st := is.Storage
	out["format"], out["layout"] = formatOf(c, st.Layout), string(st.Layout)
	if st.Layout == core.LayoutSegmented {
		out["segments"], out["tombstones"] = st.Segments, st.Tombstones
	}
	if is.Outliers > 0 {
		out["outliers"] = is.Outliers
	}
	if is.CodeBytes > 0 {
		out["codeBytes"] = is.CodeBytes
	}
	if is.Partitions > 0 {
		out["partitions"], out["probes"], out["rowsRead"], out["expectedRecall"] = is.Partitions, is.Probes, is.RowsRead, is.ExpectedRecall
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
