package core

// Metadata is an item's or document's metadata. Values are string, float64
// or bool; any Go number is accepted on write and stored as float64. Values
// of other types read from files written by other tools are carried as they
// were decoded.
type Metadata map[string]any

// MetadataConfig says which metadata keys are stored inline in the index
// file (and so can be filtered on). The rest go to a side-car file.
//
// Side-cars cost one file per item that has a key outside Indexed: a file
// created when its batch commits (all of a batch's side-cars together,
// with one durability barrier on storage that implements GroupWriter) and
// read back for every query result that has one. With no indexed keys, or
// with every key indexed, items have no side-car. Only inline keys can be
// filtered on: a filter on another key matches nothing (see
// IndexOptions.StrictFilters). A document index's chunk keys are inline
// whatever Indexed says.
//
// A nil Indexed and an empty non-nil Indexed are both "no indexed keys"; the
// JSON codec writes the first as `{}` and the second as `{"indexed":[]}`,
// as Vectra does.
type MetadataConfig struct {
	Indexed []string
}

// IndexItem is one vector with its metadata.
type IndexItem struct {
	ID       string
	Metadata Metadata
	// Vector is stored exactly as given (not normalised).
	Vector []float32
	// Norm is the Euclidean length of Vector.
	Norm float64
	// MetadataFile is the side-car file holding the item's full metadata,
	// relative to the index folder; "" when none.
	MetadataFile string
}

// QueryResult is one hit of a query.
type QueryResult struct {
	Item  IndexItem
	Score float64
}

// CreateIndexConfig configures CreateIndex. Version 0 means 1.
type CreateIndexConfig struct {
	Version int
	// DeleteIfExists deletes an existing index (its whole folder) and
	// creates a new one.
	DeleteIfExists bool
	// OpenIfExists leaves an existing index as it is, Version and
	// MetadataConfig notwithstanding, and makes CreateIndex succeed: the
	// open-or-create call. It cannot be combined with DeleteIfExists.
	OpenIfExists   bool
	MetadataConfig MetadataConfig
	// Layout is how the folder stores the items: LayoutFile (Vectra's
	// index file, the default when "") or LayoutSegmented (Folio's own,
	// whose commits write only what changed; Vectra cannot read it).
	Layout Layout
}

// IndexStats describes an index.
type IndexStats struct {
	Version        int
	MetadataConfig MetadataConfig
	Items          int
	// Storage says how the folder stores the index: its layout and, on
	// the segmented layout, its segments and tombstones.
	Storage LayoutStats
	// Outliers is the number of rows whose vectors lie far outside the
	// grid of their 4-bit codes (IndexOptions.ScanCodes CodesInt4 or
	// CodesInt4Int8; 0 for other codes): more than a quarter of their
	// length outside the range each dimension codes, such as a vector
	// scaled far beyond the others. Every query scores them exactly, so
	// that their codes cannot hide them, and they are left out of the
	// statistics the grid is measured on, so that they cannot blur the
	// other rows' codes. A run of rows coded on one grid lists at most a
	// sixteenth of its rows, those farthest outside.
	Outliers int
	// CodeBytes is the memory the index's scan codes take
	// (IndexOptions.ScanCodes; 0 without codes): in the process's heap, or
	// mapped from segment files that carry them; with partitions, the codes
	// grouped by partition too, copied in the heap or mapped from the
	// grouped codes file.
	CodeBytes int64
	// Partitions is the number of partitions the rows are grouped in
	// (IndexOptions.Partitions; 0 when they are not). Probes is how many
	// of them the calibration's queries read on average, RowsRead the
	// share of the rows those held, and ExpectedRecall the share of the
	// top 10 of a scan of every row that they found there. Probes equal
	// to Partitions means partitions do not pay and queries read every
	// row.
	Partitions                       int
	Probes, RowsRead, ExpectedRecall float64
}

// IndexData is the content of an index file.
type IndexData struct {
	Version        int
	MetadataConfig MetadataConfig
	Items          []IndexItem
}

// DocumentCatalog maps document URIs to ids and content hashes. It is stored
// in catalog<ext> beside the index file.
//
// URIToHash is nil when the stored catalog has no uriToHash (catalogs
// written before Vectra 0.15, or never upserted into).
type DocumentCatalog struct {
	Version   int
	Count     int
	URIToID   map[string]string
	IDToURI   map[string]string
	URIToHash map[string]string
}

// DocumentCatalogStats describes a document index.
type DocumentCatalogStats struct {
	Version        int
	Documents      int
	Chunks         int
	MetadataConfig MetadataConfig
}
