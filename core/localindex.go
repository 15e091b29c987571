package core

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"math"
	"runtime/debug"
	"slices"
	"sync/atomic"
	"time"

	"github.com/foliovec/folio/core/internal/chanlock"
	"github.com/foliovec/folio/core/internal/scan"
	"github.com/foliovec/folio/core/internal/share"
	"github.com/foliovec/folio/core/pathutil"
)

// IndexOptions configures a LocalIndex. Storage and Codec are required.
type IndexOptions struct {
	// IndexName is the index file's name inside the folder, used verbatim
	// whatever the codec; "" means "index" + Codec.Extension(). It must
	// stay inside the folder (no "..", no absolute path).
	IndexName string
	// Storage reads and writes the folder's files. Required.
	Storage FileStorage
	// Codec serialises the index file and side-cars. Required.
	Codec IndexCodec
	// Logger receives warnings about work that cannot fail a call (removing
	// stale side-car files, reading a document for BM25) and about filters
	// on keys that are not indexed. nil is silent.
	Logger *slog.Logger
	// StrictFilters makes a filter on a key that is not stored inline an
	// error wrapping ErrInvalidFilter. With MetadataConfig.Indexed set,
	// only the indexed keys are inline, so a filter on another key matches
	// nothing, silently by default, as in Vectra.
	StrictFilters bool
	// DocReader returns the full text of a document for the BM25 keyword
	// search of hybrid queries (Vectra's options.docReader). Chunk items
	// carry documentId, startPos and endPos in their inline metadata; the
	// chunk text is the document text between those inclusive UTF-16
	// offsets. nil reads "<documentId>.txt" in the index folder through
	// Storage, as Vectra does. It is called once per document when the
	// first hybrid query builds the keyword index, then once per document
	// whose chunks a later commit adds or changes; never per chunk, and not
	// again per query (see QueryItems).
	DocReader func(ctx context.Context, documentID string) (string, error)
	// KeywordScorer, when set, scores the keyword half of hybrid queries
	// in place of the built-in BM25 (Vectra's options.bm25Factory): each
	// hybrid query gives it the text of every chunk the query may match
	// (read through DocReader, each document once) and ranks the chunks by
	// its scores, highest first, equal scores in storage order; a score of
	// 0 or less, or NaN, is no match. Meant for tests and experiments: it
	// reads every chunk's text per query, where the built-in BM25 (nil,
	// the default: Okapi BM25 over lowercased words, English stop words
	// out, Porter stems, kept up to date by commits and in .folio-keywords)
	// reads them once.
	KeywordScorer KeywordScorer
	// FieldWeights are how much a query word found in a chunk's fields
	// counts beside one in its text, in the keyword half of rank fusion
	// (DocumentQueryOptions.Fusion), which ranks chunks by BM25F: the
	// headings above and in the chunk, its document's title (front
	// matter's title, HTML <title>, first heading, else file name) and its
	// document's name (its file name and folder). nil means
	// DefaultFieldWeights(); a zero weight leaves its field out (all zero:
	// BM25 over the chunk's text alone). Vectra's hybrid search (IsBm25
	// without fusion) always scores the text alone, as Vectra does. The
	// fields are kept with the keyword index, in Folio's own keyword file,
	// never in Vectra's files.
	FieldWeights *FieldWeights
	// FreshnessInterval is how often readers check whether another process
	// has committed to the folder, when the storage can tell
	// (FileVersioner): at most one check per interval, a stat of the index
	// file (and of a document index's catalog), and a reload only when one
	// changed. 0 means DefaultFreshnessInterval (250 ms); a negative value
	// turns the readers' checks off (commits still rebase on what other
	// processes wrote).
	FreshnessInterval time.Duration
	// QuantizedScan makes QueryItems scan int8 codes of the vectors
	// instead of the float32 vectors, then score the best RerankFactor×topK
	// candidates exactly: a query reads a quarter of the memory, and every
	// score it returns is exact. The codes (one byte per dimension, each
	// vector scaled by its largest magnitude) are derived when the index
	// is loaded and kept up to date by every commit, in memory only: the
	// index file is unchanged. An item outside the candidates is missed
	// only when int8 rounding moves it out of them, which the default
	// factor makes rare (recall@10 measured 1.0; see
	// DefaultRerankFactor). Filters and BM25 work as in the exact scan.
	// Off by default; indexes whose vectors differ in length always scan
	// exactly.
	QuantizedScan bool
	// ScanCodes chooses the codes a quantized scan reads, and sets
	// QuantizedScan when not empty. CodesInt8 is QuantizedScan's. CodesInt4
	// keeps half a byte a dimension: each dimension coded on 16 steps
	// across its spread among the rows (its mean ± 2.5 standard
	// deviations, over the rows but those far longer than most), so the
	// first pass reads an eighth of the float32 rows and half of the int8
	// codes, then RerankFactor×topK candidates (DefaultRerankFactorInt4 by
	// default) are scored exactly, as for int8, and so are the rows far
	// outside the grid (IndexStats.Outliers), whatever their codes say.
	// The coarser codes need more candidates for the same recall: on
	// clustered 384-dimension data at 1M rows, recall@10 measured 0.96 at
	// 50 candidates, 0.99 at 100, 0.999 at 200 and 1.0 at 400; tight
	// clusters need the most. On the segmented layout such an index writes
	// its codes into every segment it writes; opening one through a
	// mapping (FileMapper) it reads them, not the vectors, which stay in
	// the file: the rows it re-ranks are read through the mapping's
	// io.ReaderAt, out of the process's memory (see BulkLoad to build an
	// index larger than memory). On storage that does not map but reads
	// parts of files (FileRangeReader: the in-memory and object storages)
	// it reads likewise the codes, ids and metadata, and then each row it
	// re-ranks or hands out; the writes that rewrite such rows (a rebuild
	// of the columns after many deletes, a compaction, a merge of large
	// segments, a conversion) read them first. Such an index builds its map from ids to
	// items at its first write or GetItem rather than beside its first
	// queries. CodesInt4Int8 keeps the int8 codes too (a byte a dimension
	// more in memory, coded from the vectors at the open): the 4-bit pass
	// keeps NarrowFactor×topK candidates, their int8 scores keep
	// RerankFactor×topK of them (DefaultRerankFactor by default), and only
	// those rows are read and scored exactly. Anything else is
	// ErrInvalidArgument.
	ScanCodes ScanCodes
	// RerankFactor is the candidates per requested result that the
	// quantized scan re-ranks exactly; 0 means DefaultRerankFactor.
	// Negative is ErrInvalidArgument. Recall trades against speed here: a
	// query misses an item of the exact top k only when more than
	// RerankFactor×k rows score above it in int8, as a group of that many
	// near-duplicates can; a larger factor re-ranks more rows exactly
	// (RerankFactor×k dot products of float32 rows, small beside the int8
	// pass over every row at the default).
	RerankFactor int
	// NarrowFactor is the candidates per requested result that the 4-bit
	// pass hands the int8 codes to narrow, with ScanCodes CodesInt4Int8;
	// 0 means DefaultNarrowFactor. Negative is ErrInvalidArgument; other
	// codes ignore it. The int8 stage costs little (NarrowFactor×k int8
	// dot products), so a larger factor buys recall for almost nothing.
	NarrowFactor int
	// Partitions groups the rows of an index of PartitionMinRows rows or
	// more by their nearest centroid, about the square root of the rows
	// many partitions, so that a query reads the codes of the few
	// partitions nearest it instead of every row's: on 1M clustered
	// 384-dimension rows a query reads about a fiftieth of the codes. The
	// quantized scan's exact re-rank runs as before, so every score
	// returned is exact; what partitions trade is recall, which
	// TargetRecall sets. The centroids are trained (k-means in two levels,
	// on a sample) when the index reaches PartitionMinRows rows. Rows
	// committed after the training are read whole by every query until
	// they number an eighth of the rows trained on; the commit that adds
	// more trains again (on 1M rows, about 8 s on 2 cores), and so does a
	// compaction, or a commit that rebuilds the columns, after more than a
	// sixty-fourth. On the segmented layout the partitions are stored
	// beside the index ("<index file>.partitions", Folio's own file, which
	// Vectra ignores) by the load or commit that trained them, and read
	// back by the next open: a file that does not describe the folder's
	// rows (their ids and a few of their vectors are checked) is trained
	// over. A copy of the 4-bit codes grouped by partition is kept in
	// memory, about as large as the codes. It needs
	// the quantized scan and sets ScanCodes to CodesInt4 when ScanCodes is
	// empty. A filter that posting lists answer scans its candidates as
	// without partitions; a filter they cannot answer is tested on the
	// probed partitions' rows, and the query scans every row when fewer
	// than a tenth of those match. A query far from every centroid (its
	// cosine with the nearest below what the calibration queries had)
	// scans every row. IndexStats reports the partitions, the probes and
	// the recall measured.
	Partitions bool
	// TargetRecall is the share of the top k of a scan of every row that
	// a partitioned query finds on average (Partitions): when the
	// centroids are trained, 128 of the index's rows are asked as queries
	// (each left out of its own answers) and the index probes the fewest
	// partitions that find this share of their answers. 0 means
	// DefaultTargetRecall (0.99); it must lie in [0, 1]. A higher target
	// probes more partitions: when half of them would be needed, queries
	// scan every row.
	TargetRecall float64
	// RetainDropped is how long files a commit stops naming (side-cars of
	// replaced or deleted items, files of replaced or deleted documents)
	// are kept for readers still on the previous state, in this process
	// or another: a later commit, or Vacuum, deletes them once this time
	// has passed. 0 means the larger of DefaultRetainDropped (5 s) and
	// eight FreshnessIntervals; a negative value deletes them at the
	// commit, as Vectra does.
	RetainDropped time.Duration
	// ResidentVectors reads every vector of a segmented index into the
	// process's memory when the index is loaded. Without it, on storage
	// that maps files (FileMapper: storagefs on Unix) the vectors of
	// every segment of 1,024 rows or more, from the first up to the first
	// smaller one (a compacted index has one), are read in place from a
	// read-only mapping of its file: a faster open and less of the
	// process's own memory, the operating system keeping in memory what
	// queries touch as page cache it can reclaim. Resident, the first
	// queries fault in no pages, and an index whose files may be cut short
	// in place by another program (which would fault a mapped read) stays
	// safe. The file layout is always read into memory.
	ResidentVectors bool
}

// ScanCodes names the compact codes of the vectors that a quantized scan
// keeps in memory and reads first (IndexOptions.ScanCodes).
type ScanCodes string

// The codes a quantized scan can keep.
const (
	// CodesInt8 is a byte a dimension, each vector scaled by its largest
	// magnitude.
	CodesInt8 ScanCodes = "int8"
	// CodesInt4 is half a byte a dimension, each dimension on a grid of
	// its own.
	CodesInt4 ScanCodes = "int4"
	// CodesInt4Int8 keeps both: the 4-bit codes pick candidates, the int8
	// codes narrow them.
	CodesInt4Int8 ScanCodes = "int4+int8"
)

// nibbles reports whether c includes the 4-bit codes.
func (c ScanCodes) nibbles() bool { return c == CodesInt4 || c == CodesInt4Int8 }

// LocalIndex is a vector index stored in a folder: one index file holding
// every item (id, vector, norm, inline metadata) and optional side-car
// files holding the full metadata of items with non-indexed keys.
//
// The index file is read on first use. Loading a file of 64 MiB or more
// ends with runtime/debug.FreeOSMemory, so the memory the file's bytes and
// their decoding took goes back to the operating system at once instead of
// staying resident.
//
// A LocalIndex is safe for concurrent use. Readers (GetItem, ListItems,
// ListItemsByMetadata, GetIndexStats, QueryItems) work on an immutable
// snapshot of the last commit: they never wait for a writer and never see a
// batch half applied. Writers serialise on one lock. A batch (BeginUpdate …
// EndUpdate) collects changes that no reader sees until EndUpdate has
// written the index file; single writes outside a batch are each their own
// batch, durable when they return.
//
// Items returned by readers share memory with the index: their Vector and
// Metadata must not be modified.
//
// # Several processes
//
// Several processes (or several LocalIndex values) may write one folder
// when the storage offers both [FolderLocker] and [FileVersioner], as
// storagefs and storagemem do. Every commit then holds the folder's lock
// and, if another process committed since this one read the index,
// reloads it and applies its own changes again on top: no commit is lost,
// the later writer wins for an item id (and, in a document index, for a
// URI), and no item refers to a side-car that another process deleted.
// Readers see another process's commits on their first call after it
// lands, give or take IndexOptions.FreshnessInterval, for the price of a
// stat per interval. Each commit stays crash-safe: a process killed while
// it holds the lock leaves the old state or the new, and the operating
// system releases its lock. A batch (BeginUpdate … EndUpdate) holds the
// lock only while EndUpdate writes, so other processes commit while it is
// open, and it is applied on top of them. What is not guarded: DeleteIndex,
// and CreateIndex with DeleteIfExists, while another process writes the
// folder; and file systems whose locks do not reach every machine (many
// network file systems).
//
// Without those capabilities, as in Vectra, the index file is read once and
// never re-read: another process's changes are not seen until a new
// LocalIndex is made, and its commits are overwritten by this one's.
type LocalIndex struct {
	opts      IndexOptions // as given to NewLocalIndex
	folder    string
	name      string
	names     folderNames // the folder's files, named
	sides     sidecars    // the side-car files
	storage   FileStorage
	codec     IndexCodec
	files     *files // storage and codec, every fallback between them held once
	log       *slog.Logger
	docReader func(ctx context.Context, documentID string) (string, error)

	strictFilters bool
	// rerank is the quantized scan's candidates per result; 0 when the
	// index scans exactly.
	rerank  int
	codes   ScanCodes    // the quantized scan's codes, when rerank > 0
	narrow  int          // the 4-bit pass's candidates per result, with CodesInt4Int8
	parting partitioning // how the rows are partitioned (IndexOptions.Partitions)
	// inlineKeys are metadata keys kept inline whatever is indexed (a
	// document index's chunk keys).
	inlineKeys []string

	metrics metrics // Metrics' counters

	cur    atomic.Pointer[snapshot] // last commit; nil until loaded
	passes scan.Shared              // the shared passes of unfiltered exact queries

	mu     chanlock.Mutex    // serialises writers and the first load
	update *batch            // the open batch, or nil; guarded by mu
	part   commitParticipant // nil for a plain index
	// strays is set when the loaded index file holds items the loaded
	// participant's onLoad left out, until a write of the index file drops them; guarded
	// by mu.
	strays bool

	keywords *keywordSearch // the keyword search of hybrid queries and fusion

	watch *share.Watch // what other processes may have changed

	// folderLocked is set while this index holds the folder's lock;
	// guarded by mu.
	folderLocked bool

	// mapMin is the fewest rows of a segment read in place from a mapping
	// (mapMinRows; tests lower it).
	mapMin int

	// summed is the segment a compaction of this index just wrote, with
	// its checksum and its rows' scoring scales, while the compaction
	// installs it (see Compact).
	summed atomic.Pointer[summedSegment]

	// lay is how the folder's files hold the index (layout.go): the file
	// layout until the index is read or created; guarded by mu.
	// layoutStats is what GetIndexStats reports of it, nil until then.
	lay         layout
	layoutStats atomic.Pointer[LayoutStats]

	graves graveyard // files commits stopped naming (multiprocess.go); guarded by mu

	// saved is what the folder's partitions files hold, as this process
	// last wrote or read them; guarded by mu.
	saved savedPartitions
}

// commitParticipant is a type built on LocalIndex that takes part in its
// loads and batches: LocalDocumentIndex, whose catalog commits with the
// index. It is the one way the engine calls up into it (docseam.go has the
// way down). Every method but documentSource runs with the writer lock held.
// The order of a
// commit is batch.go's commit: onBeforeSave (the document files and a
// catalog naming both versions), the index file, onAfterSave (the final
// catalog), then the new snapshot is published.
type commitParticipant interface {
	// onLoad runs when the index file has been decoded, before its
	// snapshot is built; it may change the items' metadata and drop items.
	// reload is set when the file is read again because another process
	// changed it. An error fails the load.
	// data may hold only the items added since the last load (the
	// segments another process wrote); total is the count of items
	// loaded in all.
	onLoad(ctx context.Context, data *IndexData, total int, reload bool) error
	// onBegin runs when a batch opens.
	onBegin()
	// onBeforeSave runs in EndUpdate before the index file is written; an
	// error fails EndUpdate and leaves the batch open. saveBoth writes the
	// index file with the deletions at the positions in keep undone (both
	// versions of replaced documents).
	onBeforeSave(ctx context.Context, saveBoth func(keep map[int32]bool) error) error
	// commitDecided reports, after onBeforeSave, that the commit stands
	// whatever happens to the index file write: a failed write is then
	// logged and the commit goes on.
	commitDecided() bool
	// onAfterSave runs in EndUpdate once the index file is written and
	// before the new snapshot is published, and returns the files the
	// commit stops naming besides side-cars (those of replaced and deleted
	// documents), which the engine drops with the commit's own; an error
	// fails EndUpdate and leaves the batch open (the index file is already
	// written).
	onAfterSave(ctx context.Context) (dropped []string, err error)
	// onCancel runs when a batch is cancelled (also by a failed single
	// write).
	onCancel()
	// ownedDocumentFiles lists the files Vacuum must keep besides
	// side-cars (a document index's text and metadata files).
	ownedDocumentFiles(ctx context.Context) ([]string, error)
	// documentSource returns the full text of a document and its URI, for
	// the keyword index of hybrid queries, in place of
	// IndexOptions.DocReader. Queries call it, without the writer lock.
	documentSource(ctx context.Context, documentID string) (text, uri string, err error)
}

// readDocument returns a document's text for the keyword index: the
// participant's, else IndexOptions.DocReader's, else "<id>.txt" in the
// folder.
func (ix *LocalIndex) readDocument(ctx context.Context, documentID string) (string, error) {
	text, _, err := ix.readSource(ctx, documentID)
	return text, err
}

// readSource is readDocument with the document's URI, when the index is a
// document index ("" otherwise).
func (ix *LocalIndex) readSource(ctx context.Context, documentID string) (text, uri string, err error) {
	if ix.part != nil {
		return ix.part.documentSource(ctx, documentID)
	}
	text, err = ix.docReader(ctx, documentID)
	return text, "", err
}

// Check reports what NewLocalIndex refuses in the engine's options (all
// but Storage, Codec and IndexName, which depend on the index): unknown
// ScanCodes, a negative RerankFactor or NarrowFactor. The error wraps
// ErrInvalidArgument. Something that opens indexes later, as a server
// does, checks its options with it before it starts.
func (opts IndexOptions) Check() error {
	if c := opts.ScanCodes; c != "" && c != CodesInt8 && c != CodesInt4 && c != CodesInt4Int8 {
		return fmt.Errorf("scan codes %q are none of %q, %q and %q: %w", c, CodesInt8, CodesInt4, CodesInt4Int8, ErrInvalidArgument)
	}
	if opts.RerankFactor < 0 {
		return fmt.Errorf("rerank factor %d is negative: %w", opts.RerankFactor, ErrInvalidArgument)
	}
	if opts.NarrowFactor < 0 {
		return fmt.Errorf("narrow factor %d is negative: %w", opts.NarrowFactor, ErrInvalidArgument)
	}
	if r := opts.TargetRecall; !(r >= 0 && r <= 1) {
		return fmt.Errorf("target recall %v is outside [0, 1]: %w", r, ErrInvalidArgument)
	}
	return nil
}

// NewLocalIndex returns the index stored in folderPath. Nothing is read
// until first use. A missing Storage or Codec, or an IndexName that leaves
// the folder, is an error wrapping ErrInvalidArgument.
func NewLocalIndex(folderPath string, opts IndexOptions) (*LocalIndex, error) {
	if opts.Storage == nil {
		return nil, fmt.Errorf("new local index %q: storage is required: %w", folderPath, ErrInvalidArgument)
	}
	if opts.Codec == nil {
		return nil, fmt.Errorf("new local index %q: codec is required: %w", folderPath, ErrInvalidArgument)
	}
	name := opts.IndexName
	if name == "" {
		name = "index" + opts.Codec.Extension()
	}
	if !pathutil.IsLocal(name) {
		return nil, fmt.Errorf("new local index %q: index name %q leaves the folder: %w", folderPath, name, ErrInvalidArgument)
	}
	if err := opts.Check(); err != nil {
		return nil, fmt.Errorf("new local index %q: %w", folderPath, err)
	}
	ix := &LocalIndex{
		opts:      opts,
		mu:        chanlock.New(),
		folder:    folderPath,
		name:      name,
		names:     folderNames{folder: folderPath, index: name, catalog: "catalog" + opts.Codec.Extension()},
		storage:   opts.Storage,
		codec:     opts.Codec,
		files:     newFiles(opts.Storage, opts.Codec),
		log:       opts.Logger,
		docReader: opts.DocReader,

		strictFilters: opts.StrictFilters,
		mapMin:        mapMinRows,
	}
	ix.lay = ix.newLayout(LayoutFile)
	codes := opts.ScanCodes
	if opts.Partitions {
		codes = cmp.Or(codes, CodesInt4)
		ix.parting = partitioning{target: cmp.Or(opts.TargetRecall, DefaultTargetRecall), minRows: PartitionMinRows}
	}
	switch codes {
	case "":
		if opts.QuantizedScan {
			ix.codes, ix.rerank = CodesInt8, cmp.Or(opts.RerankFactor, DefaultRerankFactor)
		}
	case CodesInt8:
		ix.codes, ix.rerank = CodesInt8, cmp.Or(opts.RerankFactor, DefaultRerankFactor)
	case CodesInt4:
		ix.codes, ix.rerank = CodesInt4, cmp.Or(opts.RerankFactor, DefaultRerankFactorInt4)
	case CodesInt4Int8:
		ix.codes, ix.rerank = CodesInt4Int8, cmp.Or(opts.RerankFactor, DefaultRerankFactor)
		ix.narrow = cmp.Or(opts.NarrowFactor, DefaultNarrowFactor)
	}
	if opts.ResidentVectors {
		ix.mapMin = math.MaxInt // no segment is large enough to map
	}
	if ix.log == nil {
		ix.log = slog.New(slog.DiscardHandler)
	}
	ix.graves = graveyard{storage: ix.storage, names: ix.names, ext: ix.codec.Extension(), log: ix.log, retain: retainFor(opts)}
	ix.sides = sidecars{files: ix.files, names: ix.names, log: ix.log}
	ix.watch = share.NewWatch(ix.files.versioner, cmp.Or(opts.FreshnessInterval, DefaultFreshnessInterval), ix.names.indexPath(), ix.log)
	ix.watch.Add(ix.names.manifestPath())
	weights := DefaultFieldWeights()
	if opts.FieldWeights != nil {
		weights = *opts.FieldWeights
	}
	ix.keywords = &keywordSearch{files: ix.files, names: ix.names, log: ix.log,
		scorer: opts.KeywordScorer, weights: weights, source: ix.readSource, readDocument: ix.readDocument}
	if ix.docReader == nil {
		ix.docReader = ix.keywords.readDocumentText
	}
	return ix, nil
}

// Options returns the options the index was made with, as given to
// NewLocalIndex (a document index reads document texts itself, whatever
// DocReader says).
func (ix *LocalIndex) Options() IndexOptions { return ix.opts }

// FolderPath is the folder the index lives in.
func (ix *LocalIndex) FolderPath() string { return ix.folder }

// IndexName is the index file's name inside the folder.
func (ix *LocalIndex) IndexName() string { return ix.name }

// Storage is the storage the index reads and writes through.
func (ix *LocalIndex) Storage() FileStorage { return ix.storage }

// Codec is the codec of the index file and side-cars.
func (ix *LocalIndex) Codec() IndexCodec { return ix.codec }

// path is the storage path of a file in the index folder.

// CreateIndex creates the folder and an empty index file. An existing index
// is ErrIndexExists, unless cfg.DeleteIfExists, which deletes the folder
// first (DeleteIndex), or cfg.OpenIfExists, which keeps it and returns nil.
// Both at once are ErrInvalidArgument. cfg.Version 0 means 1.
//
// Fix over Vectra: when writing the new index file fails, CreateIndex
// removes that file only, not the whole folder; the index is then absent,
// as in Vectra.
func (ix *LocalIndex) CreateIndex(ctx context.Context, cfg CreateIndexConfig) error {
	p := ix.names.indexPath()
	if cfg.DeleteIfExists && cfg.OpenIfExists {
		return fmt.Errorf("create index %q: DeleteIfExists and OpenIfExists together: %w", p, ErrInvalidArgument)
	}
	if err := ix.mu.LockContext(ctx); err != nil {
		return err
	}
	defer ix.mu.Unlock()
	if err := ix.storage.CreateFolder(ctx, ix.folder); err != nil {
		return WrapOp(ctx, "create index", p, err)
	}
	unlock, err := ix.lockFolder(ctx)
	if err != nil {
		return WrapOp(ctx, "create index", p, err)
	}
	defer unlock()
	layout, err := ParseLayout(string(cfg.Layout))
	if err != nil {
		return WrapOp(ctx, "create index", p, err)
	}
	exists, err := ix.exists(ctx)
	if err != nil {
		return WrapOp(ctx, "create index", p, err)
	}
	if exists {
		if cfg.OpenIfExists {
			return nil
		}
		if !cfg.DeleteIfExists {
			return WrapOp(ctx, "create index", p, ErrIndexExists)
		}
		if err := ix.deleteIndexLocked(ctx); err != nil {
			return WrapOp(ctx, "create index", p, err)
		}
	}
	version := cfg.Version
	if version == 0 {
		version = 1
	}
	s := newEmptySnapshot(version, cfg.MetadataConfig)
	ix.lay = ix.newLayout(layout)
	p = ix.lay.path()
	err = ix.storage.CreateFolder(ctx, ix.folder)
	if err == nil {
		err = ix.save(ctx, s)
	}
	if err != nil {
		ix.cur.Store(nil)
		ix.lay = ix.newLayout(LayoutFile)
		if derr := ix.storage.DeleteFile(context.WithoutCancel(ctx), p); derr != nil {
			ix.log.Warn("create index: remove partial index file", "path", p, "err", derr)
		}
		return WrapOp(ctx, "create index", p, err)
	}
	ix.publishLayout()
	ix.cur.Store(s)
	return nil
}

// exists reports whether the folder holds the index, on either layout.
func (ix *LocalIndex) exists(ctx context.Context) (bool, error) {
	for _, p := range []string{ix.names.indexPath(), ix.names.manifestPath()} {
		ok, err := ix.storage.PathExists(ctx, p)
		if err != nil || ok {
			return ok, err
		}
	}
	return false, nil
}

// publishLayout records, for GetIndexStats, how the index is stored.
// ix.mu is held.
func (ix *LocalIndex) publishLayout() {
	st := ix.lay.stats()
	ix.layoutStats.Store(&st)
}

// DeleteIndex forgets the loaded index, cancels an open batch and deletes
// the folder with everything in it.
func (ix *LocalIndex) DeleteIndex(ctx context.Context) error {
	if err := ix.mu.LockContext(ctx); err != nil {
		return err
	}
	defer ix.mu.Unlock()
	unlock, err := ix.lockFolder(ctx)
	if err != nil {
		return WrapOp(ctx, "delete index", ix.folder, err)
	}
	defer unlock()
	if err := ix.deleteIndexLocked(ctx); err != nil {
		return WrapOp(ctx, "delete index", ix.folder, err)
	}
	return nil
}

func (ix *LocalIndex) deleteIndexLocked(ctx context.Context) error {
	ix.cur.Store(nil)
	ix.lay = ix.newLayout(LayoutFile)
	ix.watch.Forget()
	if ix.update != nil {
		// The folder goes, side-cars included: nothing to clean up.
		ix.update = nil
		if ix.part != nil {
			ix.part.onCancel()
		}
	}
	return ix.storage.DeleteFolder(ctx, ix.folder)
}

// IsIndexCreated reports whether the index file exists.
func (ix *LocalIndex) IsIndexCreated(ctx context.Context) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	ok, err := ix.exists(ctx)
	if err != nil {
		return false, WrapOp(ctx, "is index created", ix.names.indexPath(), err)
	}
	return ok, nil
}

// GetIndexStats returns the committed version, metadata config and item
// count.
func (ix *LocalIndex) GetIndexStats(ctx context.Context) (IndexStats, error) {
	s, err := ix.snapshot(ctx, "get index stats")
	if err != nil {
		return IndexStats{}, err
	}
	codes := s.quantCodes()
	stats := IndexStats{Version: s.version, MetadataConfig: cloneConfig(s.config), Items: s.count(), Outliers: codes.outliers(), CodeBytes: codes.bytes()}
	if p := codes.partitions(); p != nil {
		stats.Partitions, stats.Probes, stats.RowsRead, stats.ExpectedRecall = p.K(), p.Probes, p.Read, p.Recall
		if !p.Pays {
			stats.Probes, stats.RowsRead = float64(p.K()), 1
		}
	}
	if l := ix.layoutStats.Load(); l != nil {
		stats.Storage = *l
	}
	return stats, nil
}

// snapshot returns the last commit, loading the index file on first use
// and reloading it when another process has committed since (refresh).
func (ix *LocalIndex) snapshot(ctx context.Context, op string) (*snapshot, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if s := ix.cur.Load(); s != nil {
		if err := ix.refresh(ctx); err != nil {
			return nil, WrapOp(ctx, op, "", err)
		}
		if s := ix.cur.Load(); s != nil {
			return s, nil
		}
	}
	if err := ix.mu.LockContext(ctx); err != nil {
		return nil, err
	}
	defer ix.mu.Unlock()
	s, err := ix.loadLocked(ctx)
	if err != nil {
		return nil, WrapOp(ctx, op, "", err)
	}
	return s, nil
}

// loadLocked returns the last commit, reading the index file if it is not
// loaded yet. ix.mu must be held.
func (ix *LocalIndex) loadLocked(ctx context.Context) (*snapshot, error) {
	if s := ix.cur.Load(); s != nil {
		return s, nil
	}
	return ix.readLocked(ctx, false)
}

// readLocked reads the index file and publishes it as the last commit;
// reload is set when a loaded index is read again because another process
// changed it. ix.mu is held.
func (ix *LocalIndex) readLocked(ctx context.Context, reload bool) (*snapshot, error) {
	return ix.read(ctx, reload, reload)
}

// read is readLocked; incremental reads only the segments added since the
// last read when it can (a reload on the segmented layout).
func (ix *LocalIndex) read(ctx context.Context, reload, incremental bool) (*snapshot, error) {
	p, mp := ix.names.indexPath(), ix.names.manifestPath()
	// Before the read: a change between the two is then seen as a change
	// by the next check, never missed. Both layouts' files are watched,
	// so that another process migrating the folder is seen too.
	version, mversion := ix.watch.Current(ctx, p), ix.watch.Current(ctx, mp)
	// A state that left strays out may hold back chunks whose document a
	// newer catalog names (a reader that read between a commit's index and
	// catalog writes): only a full read admits them.
	if incremental && !ix.strays {
		s, ok, err := ix.lay.readNew(ctx)
		if err != nil {
			return nil, fmt.Errorf("load index %q: %w", mp, err)
		}
		if ok {
			ix.publishLayout()
			ix.cur.Store(s)
			ix.watch.Set(p, version)
			ix.watch.Set(mp, mversion)
			return s, nil
		}
	}
	strays := ix.strays
	ix.strays = false // onLoad sets it again
	l, err := ix.readFiles(ctx)
	if errors.Is(err, fs.ErrNotExist) {
		ix.strays = strays
		return nil, fmt.Errorf("load index %q: %w", p, ErrIndexNotFound)
	}
	var s *snapshot
	if err == nil {
		p = l.lay.path()
		s, err = l.lay.admit(ctx, &l, reload)
	}
	if err != nil {
		ix.strays = strays // the state before the read stays
		return nil, fmt.Errorf("load index %q: %w", p, err)
	}
	if ix.rerank > 0 {
		// Before anything of the read is kept: a failure leaves the state
		// before it, its layout included.
		c, err := ix.codesFor(ctx, s, l.seedCodes(s), l.lay)
		if err != nil {
			ix.strays = strays
			return nil, fmt.Errorf("load index %q: %w", p, err)
		}
		s.quant.Store(c)
	}
	ix.lay = l.lay
	ix.publishLayout()
	ix.cur.Store(s)
	ix.savePartitions(ctx, s)
	// The id map is built beside the first queries, ready for the first
	// write or GetItem, instead of holding up the read; an index that
	// keeps 4-bit codes, made to spare memory, builds it at that first
	// use (10M ids take 0.6 GB).
	if !ix.codes.nibbles() {
		go s.slotMap()
	}
	ix.watch.Set(p, version)
	ix.watch.Set(mp, mversion)
	if !reload {
		ix.removeStaleTemps(ctx)
		ix.collectDroppedAtOpen(ctx)
	}
	if l.size >= releaseAfterLoad {
		// What decoding left behind (the file's bytes, when read whole)
		// is garbage now, and may be as large as the index: return it to
		// the operating system rather than keep the process's resident
		// memory at its peak.
		debug.FreeOSMemory()
	}
	return s, nil
}

// loaded is an index as read from its files.
type loaded struct {
	data  IndexData
	arena []float32
	size  int64 // bytes read
	// lay is the layout whose files gave it. On the segmented layout: the
	// items' serials; head, the first rows' vectors read in place from a mapped
	// segment file, which pin keeps mapped (arena then holds the rows
	// after them).
	lay      layout
	serials  []uint32
	head     []scan.Part
	headRows int
	dim      int // the length of head's rows
	pin      any
	// headScales, when known, are the scoring scales of head's rows:
	// those a segment carries with its codes, or those of a segment a
	// compaction of this index just wrote, so that reading it again does
	// not read every vector of the mapping.
	headScales []float64
	// headCodes are the 4-bit codes of the rows of head's first parts,
	// one run a part, read from their segments.
	headCodes []scan.NibbleRun
}

// seedCodes returns the 4-bit codes read with s's head rows, as codes s
// extends (nil when there are none, or s no longer reads them in place).
func (l *loaded) seedCodes(s *snapshot) *coarse {
	// s reads l's rows in place unless it moved them (compactRows).
	if len(l.headCodes) == 0 || len(s.Head) != len(l.head) {
		return nil
	}
	return &coarse{int4: scan.NewNibbles(s.Dim, slices.Clone(l.headCodes))}
}

// keptSerials returns the serials of the items of kept, a subsequence of
// all whose serials are serials.
func keptSerials(all, kept []IndexItem, serials []uint32) []uint32 {
	out := make([]uint32, 0, len(kept))
	j := 0
	for _, it := range kept {
		for j < len(all) && all[j].ID != it.ID {
			j++
		}
		if j < len(all) {
			out = append(out, serials[j])
			j++
		}
	}
	return out
}

// releaseAfterLoad is the index file size from which loading it ends with
// returning freed memory to the operating system.
const releaseAfterLoad = 64 << 20

// save writes s on the index's layout, then publishes the layout's stats.
func (ix *LocalIndex) save(ctx context.Context, s *snapshot) error {
	err := ix.lay.save(ctx, s)
	ix.publishLayout()
	if err != nil {
		return fmt.Errorf("save index: %w", err)
	}
	ix.strays = false
	return nil
}
