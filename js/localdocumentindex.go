//go:build js && wasm

package main

import (
	"context"
	"fmt"
	"syscall/js"

	"github.com/foliovec/folio/browser"
	"github.com/foliovec/folio/core"
)

func newLocalDocumentIndex(b *bridge) func(args []js.Value) (any, error) {
	return func(args []js.Value) (any, error) {
		cfg := arg(args, 0)
		if cfg.Type() != js.TypeObject {
			return nil, fmt.Errorf("folio: LocalDocumentIndex needs a config with a folderPath: %w", core.ErrInvalidArgument)
		}
		o, err := b.indexOptions(prop(cfg, "storage"), prop(cfg, "codec"), cfg)
		if err != nil {
			return nil, err
		}
		if n := prop(cfg, "indexName"); n.Type() == js.TypeString {
			o.IndexName = n.String()
		}
		chunking, err := b.chunking(prop(cfg, "chunkingConfig"))
		if err != nil {
			return nil, err
		}
		tok := b.tokenizer(prop(cfg, "tokenizer"))
		if tok == nil && chunking.Tokenizer == nil {
			tok = b.o200k // Vectra's GPT3Tokenizer
		}
		folder := ""
		if f := prop(cfg, "folderPath"); f.Type() == js.TypeString {
			folder = f.String()
		}
		if folder == "" {
			return nil, invalid("LocalDocumentIndex needs a folderPath")
		}
		// Not browser.NewLocalDocumentIndex: its default tokenizer would link
		// the embedded ranks into folio.wasm.
		return core.NewLocalDocumentIndex(core.LocalDocumentIndexConfig{
			IndexOptions: browser.WithDefaults(o), FolderPath: folder, Embeddings: b.model(prop(cfg, "embeddings")),
			Tokenizer: tok, ChunkingConfig: chunking,
		})
	}
}

// documentIndexMethods are LocalDocumentIndex's own asynchronous methods.
func documentIndexMethods(b *bridge) map[string]method {
	d := func(obj any) *core.LocalDocumentIndex { return obj.(*core.LocalDocumentIndex) }
	return map[string]method{
		"isCatalogCreated": func(ctx context.Context, obj any, _ []js.Value) (any, error) {
			return d(obj).IsCatalogCreated(ctx)
		},
		"getDocumentId": func(ctx context.Context, obj any, args []js.Value) (any, error) {
			id, ok, err := d(obj).GetDocumentID(ctx, str(args, 0))
			if err != nil || !ok {
				return nil, err
			}
			return id, nil
		},
		"getDocumentUri": func(ctx context.Context, obj any, args []js.Value) (any, error) {
			uri, ok, err := d(obj).GetDocumentURI(ctx, str(args, 0))
			if err != nil || !ok {
				return nil, err
			}
			return uri, nil
		},
		"getCatalogStats": func(ctx context.Context, obj any, _ []js.Value) (any, error) {
			s, err := d(obj).GetCatalogStats(ctx)
			if err != nil {
				return nil, err
			}
			return catalogStats{Version: s.Version, Documents: s.Documents, Chunks: s.Chunks,
				MetadataConfig: metadataConfig{Indexed: s.MetadataConfig.Indexed}}, nil
		},
		"deleteDocument": func(ctx context.Context, obj any, args []js.Value) (any, error) {
			return nil, d(obj).DeleteDocument(ctx, str(args, 0))
		},
		"upsertDocument": func(ctx context.Context, obj any, args []js.Value) (any, error) {
			var md core.Metadata
			if err := fromJSON(arg(args, 3), &md); err != nil {
				return nil, fmt.Errorf("folio: upsertDocument metadata: %w: %w", core.ErrInvalidArgument, err)
			}
			var opts core.UpsertDocumentOptions
			if o := arg(args, 4); o.Type() == js.TypeObject {
				opts.Force = prop(o, "force").Truthy()
			}
			doc, err := d(obj).UpsertDocument(ctx, str(args, 0), str(args, 1), str(args, 2), md, &opts)
			if err != nil {
				return nil, err
			}
			return b.documentOf(doc), nil
		},
		"listDocuments": func(ctx context.Context, obj any, _ []js.Value) (any, error) {
			rs, err := d(obj).ListDocuments(ctx)
			return b.resultsOf(rs), err
		},
		"queryDocuments": func(ctx context.Context, obj any, args []js.Value) (any, error) {
			o, err := documentQueryOptions(arg(args, 1))
			if err != nil {
				return nil, err
			}
			rs, err := d(obj).QueryDocuments(ctx, str(args, 0), &o)
			return b.resultsOf(rs), err
		},
	}
}
