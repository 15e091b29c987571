// Package manager keeps the indexes a server or a command serves: one index
// folder, or every index folder below a root folder, each opened with the
// engine's options and its own embeddings model. The gRPC server and the
// folio command use it; a program that opens its own indexes does not need
// it.
package manager

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/foliovec/folio/core"
	"github.com/foliovec/folio/core/migrate"
	"github.com/foliovec/folio/core/pathutil"
)

// DefaultScanInterval is how often an Manager over a root folder looks
// for index folders added or removed by others, as Vectra's server does.
const DefaultScanInterval = 3 * time.Second

// DefaultCompactInterval is how often a Manager asks each index it serves
// whether a compaction is due (core.LocalIndex.CompactIfDue).
const DefaultCompactInterval = 30 * time.Second

// The index formats an Manager knows by name, as Vectra's server names
// them (IndexInfo.format).
const (
	FormatJSON     = "json"
	FormatProtobuf = "protobuf"
	// FormatSegmented is Folio's segmented layout (core.LayoutSegmented)
	// with the FormatProtobuf codec: commits write only what changed.
	// Vectra cannot read it. It needs FormatProtobuf in Config.Formats,
	// and is reported for every segmented index, whatever its codec.
	FormatSegmented = "segmented"
)

// Config configures an Manager. Set IndexPath to serve one
// index, or RootDir to serve every index folder directly below it.
type Config struct {
	// IndexOptions are given to every index the manager opens or creates:
	// Storage reads and writes the folders (required), Logger also
	// receives the folders a rescan could not open (Vectra skips them
	// silently; nil is silent), and StrictFilters, FreshnessInterval,
	// QuantizedScan, ScanCodes, RerankFactor, NarrowFactor, Partitions,
	// TargetRecall and RetainDropped apply to each index.
	// Codec and IndexName are each folder's own (Formats decides), and a
	// plain index reads documents' texts for hybrid queries through
	// DocReader when it is set.
	core.IndexOptions
	// IndexPath is the folder of the one index served (single mode). The
	// index's name is the folder's base name, but any name finds it, as in
	// Vectra.
	IndexPath string
	// RootDir is the folder whose sub-folders are the indexes, each named
	// after its folder. Ignored when IndexPath is set.
	RootDir string
	// Formats maps each format name to its codec, for example
	// {FormatJSON: codecjson.New(), FormatProtobuf: codecpb.New()}. A
	// folder is an index when exactly one of these codecs' index files is
	// in it; CreateIndex takes a name from here. Required.
	Formats map[string]core.IndexCodec
	// DefaultFormat is the format of CreateIndex with no format; "" means
	// FormatJSON.
	DefaultFormat string
	// Embeddings and Tokenizer are given to every document index. Without
	// Embeddings, document queries and upserts fail with
	// ErrEmbeddingsNotConfigured; a Tokenizer is required to open or create
	// a document index.
	Embeddings core.EmbeddingsModel
	Tokenizer  core.Tokenizer
	// EmbeddingsFor, when set, gives an index its own embeddings model,
	// from its folder (the folio command reads the model an index
	// remembers): it is called when the manager opens or creates the
	// index, and a nil model means Embeddings. An error is the open's or
	// the create's error: a rescan logs it and skips the folder.
	EmbeddingsFor func(ctx context.Context, folder string) (core.EmbeddingsModel, error)
	// ScanInterval is how often a root folder is rescanned; 0 means
	// DefaultScanInterval, and a negative value turns the periodic rescan
	// off (Rescan still works).
	ScanInterval time.Duration
	// CompactInterval is how often each index served is compacted when
	// that is due (core.LocalIndex.CompactIfDue: segmented indexes with
	// many deleted or replaced rows, or many segments), in the background,
	// in single mode too; 0 means DefaultCompactInterval, and a negative
	// value turns it off.
	CompactInterval time.Duration
	// VectraChunking splits the documents of every document index served
	// into exactly the chunks Vectra 0.15 makes (see
	// TextSplitterConfig.VectraChunking); by default chunks fill their
	// token budget.
	VectraChunking bool
}

// Index is an index an Manager serves.
type Index struct {
	// Name is the index's name: its folder's base name.
	Name string
	// Format is the name of its codec in Config.Formats.
	Format string
	// Folder is its folder in the manager's storage.
	Folder string
	// Index is the index; for a document index, the one Documents embeds.
	Index *core.LocalIndex
	// Documents is the document index, nil for a plain index.
	Documents *core.LocalDocumentIndex
	// Embeddings is the index's embeddings model (Config's
	// EmbeddingsFor, else Embeddings); nil when it has none.
	Embeddings core.EmbeddingsModel
}

// IsDocumentIndex reports whether the index has a document catalog.
func (m *Index) IsDocumentIndex() bool { return m.Documents != nil }

// CreateConfig describes an index Manager.CreateIndex
// makes. The zero value is a JSON plain index of version 1.
type CreateConfig struct {
	// Format is a name in Config.Formats; "" is the default.
	Format string
	// IsDocumentIndex makes a document index (with a catalog).
	IsDocumentIndex bool
	// Version is the index file's version; 0 means 1.
	Version int
	// ChunkSize and ChunkOverlap configure a document index's splitter in
	// tokens; 0 means 512 and 0.
	ChunkSize, ChunkOverlap int
}

// Manager keeps the indexes a server answers from: one index folder, or
// every index folder below a root folder, found by a scan at Initialize and
// rescanned periodically. It is a fix over Vectra's Manager in three
// ways: index names are validated (not empty, no path separator, not "." or
// "..", no leading "."), so no name leaves the root; a rescan also drops
// indexes whose folder is gone; and an unknown format is ErrInvalidArgument
// instead of being reported while JSON is used.
//
// Nothing is read from an index folder until the index is first used.
// An Manager is safe for concurrent use by multiple goroutines.
type Manager struct {
	cfg      Config
	interval time.Duration
	compact  time.Duration
	log      *slog.Logger

	// changeMu serialises the calls that change which indexes are loaded
	// (CreateIndex, DeleteIndex, scans), which do I/O; mu guards the map
	// itself, so lookups never wait for that I/O.
	changeMu sync.Mutex
	mu       sync.RWMutex
	indexes  map[string]*Index
	order    []string // names in load order

	stop     chan struct{}
	stopOnce sync.Once
	scanning sync.WaitGroup
}

// New returns a manager over cfg; call Initialize to load the
// indexes. A nil Storage, no Formats, a DefaultFormat not among them or
// IndexOptions that core.NewLocalIndex would refuse (IndexOptions.Check)
// is ErrInvalidArgument: a server fails at its start, not at the first
// index it opens.
func New(cfg Config) (*Manager, error) {
	const op = "new index manager"
	fail := func(err error) (*Manager, error) { return nil, &core.Error{Op: op, Err: err} }
	if cfg.Storage == nil {
		return fail(fmt.Errorf("a storage is required: %w", core.ErrInvalidArgument))
	}
	if err := cfg.IndexOptions.Check(); err != nil {
		return fail(fmt.Errorf("index options: %w", err))
	}
	if len(cfg.Formats) == 0 {
		return fail(fmt.Errorf("at least one format is required: %w", core.ErrInvalidArgument))
	}
	for name, c := range cfg.Formats {
		if c == nil {
			return fail(fmt.Errorf("format %q has no codec: %w", name, core.ErrInvalidArgument))
		}
	}
	if cfg.DefaultFormat == "" {
		cfg.DefaultFormat = FormatJSON
	}
	m0 := &Manager{cfg: cfg}
	if _, _, err := m0.formatOf(cfg.DefaultFormat); err != nil {
		return fail(fmt.Errorf("default format %q is not among the formats: %w", cfg.DefaultFormat, core.ErrInvalidArgument))
	}
	interval := cfg.ScanInterval
	if interval == 0 {
		interval = DefaultScanInterval
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	compact := cfg.CompactInterval
	if compact == 0 {
		compact = DefaultCompactInterval
	}
	return &Manager{cfg: cfg, interval: interval, compact: compact, log: log, indexes: map[string]*Index{}, stop: make(chan struct{})}, nil
}

// IsSingleMode reports whether the manager serves one index (IndexPath).
func (m *Manager) IsSingleMode() bool { return m.cfg.IndexPath != "" }

// Initialize loads the indexes: in single mode the one index, which must
// exist (ErrIndexNotFound otherwise); with a root folder, every index folder
// below it, and then a rescan every ScanInterval until Shutdown. With
// neither it does nothing.
func (m *Manager) Initialize(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if m.IsSingleMode() {
		m.changeMu.Lock()
		defer m.changeMu.Unlock()
		name := pathutil.Basename(m.cfg.IndexPath)
		mi, err := m.open(ctx, name, m.cfg.IndexPath)
		if err != nil {
			return core.WrapOp(ctx, "initialize index manager: open", m.cfg.IndexPath, err)
		}
		m.add(mi)
		m.startCompacting()
		return nil
	}
	if m.cfg.RootDir == "" {
		return nil
	}
	if err := m.Rescan(ctx); err != nil {
		return err
	}
	if m.interval > 0 {
		m.scanning.Go(m.rescanEvery)
	}
	m.startCompacting()
	return nil
}

// startCompacting starts the background compaction (CompactInterval)
// until Shutdown.
func (m *Manager) startCompacting() {
	if m.compact > 0 {
		m.scanning.Go(func() { m.every(m.compact, m.compactDue) })
	}
}

// every runs f every interval until Shutdown, with a context that ends
// at Shutdown.
func (m *Manager) every(interval time.Duration, f func(ctx context.Context)) {
	t := time.NewTicker(interval)
	defer t.Stop()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-m.stop
		cancel()
	}()
	for {
		select {
		case <-m.stop:
			return
		case <-t.C:
			f(ctx)
		}
	}
}

// compactDue compacts each index served whose compaction is due; a
// failure is logged and tried again at the next tick.
func (m *Manager) compactDue(ctx context.Context) {
	for _, mi := range m.ListIndexes() {
		rep, err := mi.Index.CompactIfDue(ctx)
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			m.log.Warn("manager: compaction failed", "index", mi.Name, "err", err)
		case rep.Segments > 0:
			m.log.Info("manager: compacted", "index", mi.Name, "segments", rep.Segments, "tombstones", rep.Tombstones)
		}
	}
}

// rescanEvery rescans the root folder until Shutdown; a failed scan is
// logged and the next one tried, as Vectra ignores scan errors.
func (m *Manager) rescanEvery() {
	m.every(m.interval, func(ctx context.Context) {
		if err := m.Rescan(ctx); err != nil && ctx.Err() == nil {
			m.log.Warn("manager: rescan failed", "root", m.cfg.RootDir, "err", err)
		}
	})
}

// Rescan looks at the root folder once: index folders not loaded yet are
// loaded, and loaded indexes whose folder is gone are dropped. Folders that
// are not indexes, whose names start with ".", or that cannot be opened are
// skipped. A missing root folder loads nothing. In single mode it does
// nothing.
func (m *Manager) Rescan(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if m.IsSingleMode() || m.cfg.RootDir == "" {
		return nil
	}
	m.changeMu.Lock()
	defer m.changeMu.Unlock()
	entries, err := m.cfg.Storage.ListFiles(ctx, m.cfg.RootDir, core.ListFoldersOnly)
	if errors.Is(err, fs.ErrNotExist) {
		entries, err = nil, nil
	}
	if err != nil {
		return core.WrapOp(ctx, "rescan", m.cfg.RootDir, err)
	}
	present := map[string]bool{}
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return err
		}
		if validIndexName(e.Name) != nil {
			continue
		}
		present[e.Name] = true
		if _, ok := m.GetIndex(e.Name); ok {
			continue
		}
		mi, err := m.open(ctx, e.Name, pathutil.Join(m.cfg.RootDir, e.Name))
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if !errors.Is(err, core.ErrIndexNotFound) {
				m.log.Info("manager: skipping a folder that cannot be opened", "folder", e.Path, "err", err)
			}
			delete(present, e.Name)
			continue
		}
		m.add(mi)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, name := range slices.Clone(m.order) {
		if !present[name] {
			m.removeLocked(name)
		}
	}
	return nil
}

// open detects the index in folder: its format (exactly one format's index
// file; none is ErrIndexNotFound, two ErrPartiallyMigrated) and whether it
// is a document index (a catalog file of any format is present).
func (m *Manager) open(ctx context.Context, name, folder string) (*Index, error) {
	names := slices.Sorted(maps.Keys(m.cfg.Formats))
	codecs := make([]core.IndexCodec, len(names))
	for i, n := range names {
		codecs[i] = m.cfg.Formats[n]
	}
	codec, err := migrate.DetectCodec(ctx, folder, m.cfg.Storage, codecs...)
	if err != nil {
		return nil, err
	}
	format := names[slices.Index(codecs, codec)]
	if layout, err := migrate.DetectLayout(ctx, folder, m.cfg.Storage, codec); err != nil {
		return nil, err
	} else if layout == core.LayoutSegmented {
		format = FormatSegmented
	}
	isDoc := false
	for _, c := range codecs {
		ok, err := m.cfg.Storage.PathExists(ctx, pathutil.Join(folder, "catalog"+c.Extension()))
		if err != nil {
			return nil, err
		}
		isDoc = isDoc || ok
	}
	return m.newManaged(ctx, name, format, codec, folder, isDoc, 0, 0)
}

// newManaged makes the index values for folder without touching storage.
func (m *Manager) newManaged(ctx context.Context, name, format string, codec core.IndexCodec, folder string, isDoc bool, chunkSize, chunkOverlap int) (*Index, error) {
	model := m.cfg.Embeddings
	if m.cfg.EmbeddingsFor != nil {
		own, err := m.cfg.EmbeddingsFor(ctx, folder)
		if err != nil {
			return nil, fmt.Errorf("embeddings model of %q: %w", folder, err)
		}
		if own != nil {
			model = own
		}
	}
	mi := &Index{Name: name, Format: format, Folder: folder, Embeddings: model}
	if !isDoc {
		opts := m.cfg.IndexOptions
		opts.Codec, opts.IndexName = codec, ""
		ix, err := core.NewLocalIndex(folder, opts)
		if err != nil {
			return nil, err
		}
		mi.Index = ix
		return mi, nil
	}
	opts := m.cfg.IndexOptions
	opts.Codec, opts.IndexName = codec, ""
	d, err := core.NewLocalDocumentIndex(core.LocalDocumentIndexConfig{
		IndexOptions:   opts,
		FolderPath:     folder,
		Embeddings:     model,
		Tokenizer:      m.cfg.Tokenizer,
		ChunkingConfig: core.ChunkingConfig{ChunkSize: max(chunkSize, 0), ChunkOverlap: chunkOverlap, VectraChunking: m.cfg.VectraChunking},
	})
	if err != nil {
		return nil, err
	}
	mi.Index, mi.Documents = d.LocalIndex, d
	return mi, nil
}

func (m *Manager) add(mi *Index) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.indexes[mi.Name]; !ok {
		m.order = append(m.order, mi.Name)
	}
	m.indexes[mi.Name] = mi
}

func (m *Manager) removeLocked(name string) {
	delete(m.indexes, name)
	if i := slices.Index(m.order, name); i >= 0 {
		m.order = slices.Delete(m.order, i, i+1)
	}
}

// GetIndex returns the index called name. In single mode it returns the one
// index whatever name is given, as Vectra does.
func (m *Manager) GetIndex(name string) (*Index, bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.IsSingleMode() {
		if len(m.order) == 0 {
			return nil, false
		}
		return m.indexes[m.order[0]], true
	}
	mi, ok := m.indexes[name]
	return mi, ok
}

// RequireIndex is GetIndex with an error wrapping ErrIndexNotFound for an
// unknown name.
func (m *Manager) RequireIndex(name string) (*Index, error) {
	mi, ok := m.GetIndex(name)
	if !ok {
		return nil, &core.Error{Op: "index", Key: name, Err: core.ErrIndexNotFound}
	}
	return mi, nil
}

// RequireDocumentIndex is RequireIndex for a document index; a plain index
// is ErrNotDocumentIndex.
func (m *Manager) RequireDocumentIndex(name string) (*Index, error) {
	mi, err := m.RequireIndex(name)
	if err != nil {
		return nil, err
	}
	if !mi.IsDocumentIndex() {
		return nil, &core.Error{Op: "index", Key: name, Err: core.ErrNotDocumentIndex}
	}
	return mi, nil
}

// CreateIndex creates an index called name on disk and serves it: in the
// root folder, or in single mode at name itself (relative to the storage's
// root, as Vectra resolves it against the working directory). An invalid
// name or unknown format is ErrInvalidArgument; a name already served, or a
// folder that already holds an index, ErrIndexExists; a manager with
// neither a root folder nor an index path cannot create (ErrInvalidArgument).
func (m *Manager) CreateIndex(ctx context.Context, name string, cfg CreateConfig) (*Index, error) {
	const op = "create index"
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := validIndexName(name); err != nil {
		return nil, core.WrapOp(ctx, op, name, err)
	}
	format := cfg.Format
	if format == "" {
		format = m.cfg.DefaultFormat
	}
	codec, layout, err := m.formatOf(format)
	if err != nil {
		return nil, core.WrapOp(ctx, op, name, err)
	}
	if cfg.ChunkSize < 0 || cfg.ChunkOverlap < 0 || cfg.Version < 0 {
		return nil, core.WrapOp(ctx, op, name, fmt.Errorf("version %d, chunk size %d and overlap %d must not be negative: %w", cfg.Version, cfg.ChunkSize, cfg.ChunkOverlap, core.ErrInvalidArgument))
	}
	var folder string
	switch {
	case m.IsSingleMode():
		folder = name
	case m.cfg.RootDir != "":
		folder = pathutil.Join(m.cfg.RootDir, name)
	default:
		return nil, core.WrapOp(ctx, op, name, fmt.Errorf("no root folder configured: %w", core.ErrInvalidArgument))
	}
	m.changeMu.Lock()
	defer m.changeMu.Unlock()
	if m.loaded(name) {
		return nil, core.WrapOp(ctx, op, name, core.ErrIndexExists)
	}
	mi, err := m.newManaged(ctx, name, format, codec, folder, cfg.IsDocumentIndex, cfg.ChunkSize, cfg.ChunkOverlap)
	if err != nil {
		return nil, core.WrapOp(ctx, op, name, err)
	}
	create := core.CreateIndexConfig{Version: max(cfg.Version, 1), Layout: layout}
	if mi.Documents != nil {
		err = mi.Documents.CreateIndex(ctx, create)
	} else {
		err = mi.Index.CreateIndex(ctx, create)
	}
	if err != nil {
		return nil, core.WrapOp(ctx, op, name, err)
	}
	m.add(mi)
	return mi, nil
}

// formatOf returns the codec and layout of a format name: a name in
// Config.Formats (the file layout), or FormatSegmented (the protobuf
// codec, segmented).
func (m *Manager) formatOf(format string) (core.IndexCodec, core.Layout, error) {
	if c, ok := m.cfg.Formats[format]; ok && format != FormatSegmented {
		return c, core.LayoutFile, nil
	}
	if c, ok := m.cfg.Formats[FormatProtobuf]; ok && format == FormatSegmented {
		return c, core.LayoutSegmented, nil
	}
	known := slices.Sorted(maps.Keys(m.cfg.Formats))
	if _, ok := m.cfg.Formats[FormatProtobuf]; ok {
		known = append(known, FormatSegmented)
	}
	return nil, "", fmt.Errorf("unknown format %q (known: %q): %w", format, known, core.ErrInvalidArgument)
}

// loaded reports whether name is served, by its own name (single mode's
// GetIndex answers every name).
func (m *Manager) loaded(name string) bool {
	m.mu.RLock()
	defer m.mu.RUnlock()
	_, ok := m.indexes[name]
	return ok
}

// DeleteIndex deletes the index called name (its whole folder) and stops
// serving it. An unknown name is ErrIndexNotFound.
func (m *Manager) DeleteIndex(ctx context.Context, name string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.changeMu.Lock()
	defer m.changeMu.Unlock()
	mi, err := m.RequireIndex(name)
	if err != nil {
		return err
	}
	if mi.Documents != nil {
		err = mi.Documents.DeleteIndex(ctx)
	} else {
		err = mi.Index.DeleteIndex(ctx)
	}
	if err != nil {
		return core.WrapOp(ctx, "delete index", name, err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.removeLocked(mi.Name)
	return nil
}

// ListIndexes returns the served indexes in the order they were loaded.
func (m *Manager) ListIndexes() []*Index {
	m.mu.RLock()
	defer m.mu.RUnlock()
	out := make([]*Index, len(m.order))
	for i, name := range m.order {
		out[i] = m.indexes[name]
	}
	return out
}

// Shutdown stops the periodic rescan and compaction, waits for a scan or
// compaction in progress and
// stops serving every index. It may be called more than once.
func (m *Manager) Shutdown() {
	m.stopOnce.Do(func() { close(m.stop) })
	m.scanning.Wait()
	m.changeMu.Lock()
	defer m.changeMu.Unlock()
	m.mu.Lock()
	defer m.mu.Unlock()
	clear(m.indexes)
	m.order = nil
}

// MaxIndexNameBytes is the longest index name an Manager creates: a
// name is one folder name, and file systems refuse longer ones at 255
// bytes or fewer.
const MaxIndexNameBytes = 128

// validIndexName refuses names that are not one plain folder name: empty,
// longer than MaxIndexNameBytes, not UTF-8, holding a path separator or a
// control character (a newline, a tab, NUL), or starting with "." or "~".
func validIndexName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("index name is empty: %w", core.ErrInvalidArgument)
	case len(name) > MaxIndexNameBytes:
		return fmt.Errorf("index name of %d bytes is longer than %d: %w", len(name), MaxIndexNameBytes, core.ErrInvalidArgument)
	case !utf8.ValidString(name):
		return fmt.Errorf("index name %q is not UTF-8: %w", name, core.ErrInvalidArgument)
	case strings.ContainsAny(name, "/\\"):
		return fmt.Errorf("index name %q holds a path separator: %w", name, core.ErrInvalidArgument)
	case strings.ContainsFunc(name, unicode.IsControl):
		return fmt.Errorf("index name %q holds a control character: %w", name, core.ErrInvalidArgument)
	case strings.HasPrefix(name, "."), strings.HasPrefix(name, "~"):
		return fmt.Errorf("index name %q starts with %q: %w", name, name[:1], core.ErrInvalidArgument)
	}
	return nil
}
