package main

import (
	"log/slog"

	"github.com/spf13/cobra"

	"github.com/foliovec/folio/core"
)

// indexFlags binds the engine's index options, core.IndexOptions, to the
// flags of every command that opens indexes to read or write them (query,
// add, watch, serve), in one place: a new option gets its flag here, or a
// reason in indexOptionsWithoutFlag (a test checks every field).
type indexFlags struct {
	opts core.IndexOptions
	// logger, when set, receives the engine's warnings (a list of dropped
	// files that cannot be written, a document that cannot be read).
	logger *slog.Logger
}

// indexOptionFlags names the flag of each field of core.IndexOptions that
// has one.
var indexOptionFlags = map[string]string{
	"QuantizedScan":     "quantized",
	"RerankFactor":      "rerank-factor",
	"NarrowFactor":      "narrow-factor",
	"ScanCodes":         "codes",
	"StrictFilters":     "strict-filters",
	"FreshnessInterval": "freshness-interval",
	"RetainDropped":     "retain-dropped",
	"ResidentVectors":   "resident-vectors",
	"FieldWeights":      "field-weights",
	"Partitions":        "partitions",
	"TargetRecall":      "target-recall",
}

// indexOptionsWithoutFlag says why the other fields have none.
var indexOptionsWithoutFlag = map[string]string{
	"IndexName":     "the index file's name follows the format (index.json, index.pb), as in Vectra's CLI",
	"Storage":       "--storage and --storage-root choose it",
	"Codec":         "create's --format chooses it; other commands detect it",
	"Logger":        "the command reports on stdout and stderr; add, watch and serve log the engine's warnings there",
	"DocReader":     "a function; document indexes read their documents' texts themselves",
	"KeywordScorer": "a program's own object; the command's hybrid queries use the built-in BM25",
}

func (f *indexFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.BoolVar(&f.opts.QuantizedScan, "quantized", false, "scan int8 codes of the vectors, then re-rank the best candidates exactly: the same results for a quarter of the memory reads")
	fl.IntVar(&f.opts.RerankFactor, "rerank-factor", 0, "candidates per result that --quantized or --codes re-ranks exactly (0: 10 for int8 and int4+int8, 40 for int4)")
	fl.IntVar(&f.opts.NarrowFactor, "narrow-factor", 0, "with --codes int4+int8, candidates per result the 4-bit pass hands the int8 codes to narrow (0: 40)")
	fl.StringVar((*string)(&f.opts.ScanCodes), "codes", "", "the codes a quantized scan reads first: int8 (as --quantized), int4 (half a byte a dimension, twice as fast, more candidates re-ranked) or int4+int8 (both: the int8 codes narrow the 4-bit candidates)")
	fl.BoolVar(&f.opts.Partitions, "partitions", false, "group the rows of an index of 50,000 rows or more by nearest centroid, so that a query reads the codes of the few partitions nearest it (every score stays exact; implies --codes int4 unless --codes says otherwise)")
	fl.Float64Var(&f.opts.TargetRecall, "target-recall", 0, "with --partitions, the share of the top 10 of a scan of every row that a query finds on average (0: 0.99)")
	fl.BoolVar(&f.opts.StrictFilters, "strict-filters", false, "a filter on a metadata key that is not indexed is an error instead of matching nothing")
	fl.DurationVar(&f.opts.FreshnessInterval, "freshness-interval", 0, "how often readers look for other processes' commits (0: 250ms; negative: never)")
	fl.BoolVar(&f.opts.ResidentVectors, "resident-vectors", false, "read a segmented index's vectors into memory instead of mapping its large segments' files")
	fl.DurationVar(&f.opts.RetainDropped, "retain-dropped", 0, "how long files a commit stops naming are kept for readers still on the previous state (0: 5s; negative: deleted at once)")
	fl.Var(&fieldWeightsFlag{&f.opts.FieldWeights}, "field-weights", "how much a query word in a chunk's headings, its document's title or its document's name counts beside one in its text, in rank fusion's keyword ranking (default "+core.DefaultFieldWeights().String()+"; all 0: the text alone)")
}

// fieldWeightsFlag is --field-weights: core.ParseFieldWeights' form,
// setting IndexOptions.FieldWeights.
type fieldWeightsFlag struct{ w **core.FieldWeights }

func (f *fieldWeightsFlag) String() string {
	if f.w == nil || *f.w == nil {
		return ""
	}
	return (*f.w).String()
}

func (f *fieldWeightsFlag) Set(s string) error {
	w, err := core.ParseFieldWeights(s)
	if err != nil {
		return err
	}
	*f.w = &w
	return nil
}

func (*fieldWeightsFlag) Type() string { return "weights" }

// with returns the options for an index on storage with codec.
func (f *indexFlags) with(storage core.FileStorage, codec core.IndexCodec) core.IndexOptions {
	o := f.opts
	o.Storage, o.Codec, o.Logger = storage, codec, f.logger
	return o
}
