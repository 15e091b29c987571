package folio

import (
	"context"
	"log/slog"
	"time"

	codecjson "github.com/foliovec/folio/adapters/codec-json"
	storagefs "github.com/foliovec/folio/adapters/storage-fs"
	"github.com/foliovec/folio/core"
)

// IndexOptions configures NewLocalIndex: the fields of core.IndexOptions,
// every one optional.
type IndexOptions struct {
	// IndexName is the index file's name in the folder; "" means "index"
	// plus the codec's extension (index.json).
	IndexName string
	// Storage holds the folder; nil means the local file system
	// (storagefs.New()).
	Storage core.FileStorage
	// Codec reads and writes the index; nil means JSON (codecjson.New()),
	// Vectra's default. Use codecpb.New() for protobuf.
	Codec core.IndexCodec
	// Logger receives warnings core cannot return; nil is silent.
	Logger *slog.Logger
	// DocReader returns a document's text for hybrid (BM25) queries; nil
	// reads "<documentId>.txt" in the folder, as Vectra does.
	DocReader func(ctx context.Context, documentID string) (string, error)
	// StrictFilters makes a filter on a key that is not indexed an error
	// (core.ErrInvalidFilter) instead of matching nothing.
	StrictFilters bool
	// FreshnessInterval is how often readers check whether another process
	// has committed to the folder; 0 means 250 ms, negative never (see
	// core.IndexOptions).
	FreshnessInterval time.Duration
	// QuantizedScan scans int8 codes of the vectors, then re-ranks the
	// best RerankFactor×topK candidates exactly (0: 10); see
	// core.IndexOptions.
	QuantizedScan bool
	RerankFactor  int
	// RetainDropped is how long files a commit stops naming are kept for
	// readers on the previous state; see core.IndexOptions.
	RetainDropped time.Duration
}

// NewLocalIndex returns the index stored in folderPath, by default as
// index.json on the local file system. Nothing is read or written until
// first use: call CreateIndex to make a new one. opts may be nil.
func NewLocalIndex(folderPath string, opts *IndexOptions) (*core.LocalIndex, error) {
	var o IndexOptions
	if opts != nil {
		o = *opts
	}
	if o.Storage == nil {
		o.Storage = storagefs.New()
	}
	if o.Codec == nil {
		o.Codec = codecjson.New()
	}
	return core.NewLocalIndex(folderPath, core.IndexOptions{
		IndexName: o.IndexName,
		Storage:   o.Storage,
		Codec:     o.Codec,
		Logger:    o.Logger,
		DocReader: o.DocReader,

		StrictFilters:     o.StrictFilters,
		FreshnessInterval: o.FreshnessInterval,
		QuantizedScan:     o.QuantizedScan,
		RerankFactor:      o.RerankFactor,
		RetainDropped:     o.RetainDropped,
	})
}
