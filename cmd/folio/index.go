package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/foliovec/folio"
	codecjson "github.com/foliovec/folio/adapters/codec-json"
	codecpb "github.com/foliovec/folio/adapters/codec-pb"
	"github.com/foliovec/folio/core"
)

// formatHelp describes the format names for flags.
const formatHelp = "json, protobuf (Vectra's index files) or segmented (Folio's own layout: a commit writes only what changed; Vectra cannot read it, migrate --to protobuf gives it back)"

// codecFor returns the codec and layout of a format name.
func codecFor(format string) (core.IndexCodec, core.Layout, error) {
	switch format {
	case folio.FormatJSON:
		return codecjson.New(), core.LayoutFile, nil
	case folio.FormatProtobuf:
		return codecpb.New(), core.LayoutFile, nil
	case folio.FormatSegmented:
		return codecpb.New(), core.LayoutSegmented, nil
	}
	return nil, "", usagef("format %q: want %s, %s or %s", format, folio.FormatJSON, folio.FormatProtobuf, folio.FormatSegmented)
}

// formatOf is the format name of a codec and layout.
func formatOf(c core.IndexCodec, layout core.Layout) string {
	switch {
	case layout == core.LayoutSegmented:
		return folio.FormatSegmented
	case c.Extension() == ".pb":
		return folio.FormatProtobuf
	}
	return folio.FormatJSON
}

// existingIndex is an index folder found on storage: its codec and
// whether it is a document index.
type existingIndex struct {
	folder    string
	shown     string // the folder as the user named it: a web index's URL
	storage   core.FileStorage
	codec     core.IndexCodec
	documents bool
}

// noIndexError says there is no index in a folder; errors.Is finds
// core.ErrIndexNotFound in it, whose own words it does not repeat.
type noIndexError struct{ folder string }

func (e noIndexError) Error() string {
	return fmt.Sprintf("no index at %s (folio create makes one)", e.folder)
}

func (e noIndexError) Unwrap() error { return core.ErrIndexNotFound }

// openExisting finds the index in folder; a missing one is an error
// wrapping core.ErrIndexNotFound.
func (a *app) openExisting(ctx context.Context, index string) (*existingIndex, error) {
	storage, folder, err := a.indexStorage(ctx, index)
	if err != nil {
		return nil, err
	}
	shown := folder
	if web, ok := storage.(webStorage); ok {
		shown = web.BaseURL() + folder
	}
	codec, err := folio.DetectCodec(ctx, folder, storage)
	if err != nil {
		if errors.Is(err, core.ErrIndexNotFound) {
			return nil, noIndexError{shown}
		}
		return nil, err
	}
	docs, err := storage.PathExists(ctx, folder+"/catalog"+codec.Extension())
	if err != nil {
		return nil, err
	}
	return &existingIndex{folder: folder, shown: shown, storage: storage, codec: codec, documents: docs}, nil
}

// indexStorage returns the storage of the index the argument names and the
// index's folder there: an http:// or https:// URL is the folder of a web
// host (read-only, beside any --storage-root); anything else a folder
// of the storage the global flags choose.
func (a *app) indexStorage(ctx context.Context, index string) (core.FileStorage, string, error) {
	if isWebURL(index) {
		parent, name, err := splitWebIndex(index)
		if err != nil {
			return nil, "", err
		}
		s, err := openWeb(parent)
		return s, name, err
	}
	storage, err := a.storage(ctx)
	if err != nil {
		return nil, "", err
	}
	return storage, a.folderPath(index), nil
}

// documentIndex opens the document index with model (nil for commands
// that do not embed), chunking (zero: the defaults) and the index options
// of the flags (nil: the defaults).
func (e *existingIndex) documentIndex(model core.EmbeddingsModel, chunking core.ChunkingConfig, flags *indexFlags) (*core.LocalDocumentIndex, error) {
	if !e.documents {
		return nil, fmt.Errorf("%s holds an item index, not a document index: %w", e.folder, core.ErrNotDocumentIndex)
	}
	chunking.ChunkSize = max(chunking.ChunkSize, 0)
	if flags == nil {
		flags = &indexFlags{}
	}
	opts := e.options(flags)
	return folio.NewLocalDocumentIndex(folio.DocumentIndexConfig{
		FolderPath:     e.folder,
		Embeddings:     model,
		ChunkingConfig: chunking,
		IndexOptions:   opts,
	})
}

// openForWriting opens the document index of a command that embeds (add,
// watch): with the model the flags or the index name, which the index
// then remembers, and chunking.
func (a *app) openForWriting(ctx context.Context, index string, model *modelFlags, chunking core.ChunkingConfig, flags *indexFlags) (*existingIndex, *core.LocalDocumentIndex, error) {
	e, err := a.openExisting(ctx, index)
	if err != nil {
		return nil, nil, err
	}
	emb, rec, err := model.requireModel(ctx, a, e.storage, e.folder)
	if err != nil {
		return nil, nil, err
	}
	if flags == nil {
		flags = &indexFlags{}
	}
	// The engine's warnings (files it could not clean up, documents it
	// could not read) go to stderr, where the command reports.
	logger, err := a.logger()
	if err != nil {
		return nil, nil, err
	}
	flags.logger = logger
	ix, err := e.documentIndex(emb, chunking, flags)
	if err != nil {
		return nil, nil, err
	}
	if err := rememberModel(ctx, e.storage, e.folder, rec); err != nil {
		return nil, nil, err
	}
	return e, ix, nil
}

// options are the index options of the flags for this index: on a web
// host, its 4-bit codes unless the flags choose other codes.
func (e *existingIndex) options(flags *indexFlags) core.IndexOptions {
	opts := flags.with(e.storage, e.codec)
	if _, web := e.storage.(webStorage); web {
		opts = webIndexOptions(opts)
	}
	return opts
}

// isEmpty reports whether the document index holds no document (an item
// index is never empty here: its own errors say what is wrong).
func (e *existingIndex) isEmpty(ctx context.Context) (bool, error) {
	if !e.documents {
		return false, nil
	}
	ix, err := e.documentIndex(nil, core.ChunkingConfig{}, nil)
	if err != nil {
		return false, err
	}
	st, err := ix.GetCatalogStats(ctx)
	if err != nil {
		return false, err
	}
	return st.Documents == 0, nil
}

// defaultChunkSize is --chunk-size's default: the most tokens the local
// models read (MiniLM's 256; a longer chunk is embedded by its first 256),
// and on make eval it ranks better than Vectra's 512 (hit@3 0.962 and
// 0.975 against 0.885 and 0.925 on its two corpora, with fusion).
const defaultChunkSize = 256

// registerChunking binds the chunking flags of the commands that split
// documents (add, watch).
func registerChunking(cmd *cobra.Command, c *core.ChunkingConfig) {
	cmd.Flags().IntVar(&c.ChunkSize, "chunk-size", defaultChunkSize, "most tokens per chunk; pieces merge up to it (alias --cs; Vectra's CLI makes 512)")
	cmd.Flags().BoolVar(&c.VectraChunking, "vectra-chunking", false, vectraChunkingHelp)
	cmd.Flags().BoolVar(&c.BareChunks, "bare-chunks", false, "embed each chunk's text alone, as Vectra does, not after a line naming its document's title and the headings above it")
	cmd.Flags().SetNormalizeFunc(aliasFlags(map[string]string{"cs": "chunk-size"}))
}

const vectraChunkingHelp = "split documents into exactly the chunks Vectra 0.15 makes (merging also stops at --chunk-size characters, punctuation-only pieces and small fragments stay chunks of their own)"
