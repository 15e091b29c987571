//go:build js && wasm

package main

import (
	"context"
	"fmt"
	"maps"
	"syscall/js"

	"github.com/foliovec/folio/browser"
	"github.com/foliovec/folio/core"
)

func newLocalIndex(b *bridge) func(args []js.Value) (any, error) {
	return func(args []js.Value) (any, error) {
		o, err := b.indexOptions(arg(args, 2), arg(args, 3), arg(args, 4))
		if err != nil {
			return nil, err
		}
		o.IndexName = str(args, 1)
		return browser.NewLocalIndex(str(args, 0), &o)
	}
}

// indexMethods are LocalIndex's asynchronous methods; index gives the
// *core.LocalIndex of the object (a document index's own for those).
// indexMethods are LocalIndex's asynchronous methods (LocalDocumentIndex
// has them too).
func indexMethods(index func(obj any) *core.LocalIndex) map[string]method {
	m := itemMethods(index)
	maps.Copy(m, map[string]method{
		"createIndex": func(ctx context.Context, obj any, args []js.Value) (any, error) {
			var c createConfig
			if err := fromJSON(arg(args, 0), &c); err != nil {
				return nil, fmt.Errorf("folio: createIndex: %w: %w", core.ErrInvalidArgument, err)
			}
			if d, ok := obj.(*core.LocalDocumentIndex); ok {
				return nil, d.CreateIndex(ctx, c.core())
			}
			return nil, index(obj).CreateIndex(ctx, c.core())
		},
		"deleteIndex": func(ctx context.Context, obj any, _ []js.Value) (any, error) {
			if d, ok := obj.(*core.LocalDocumentIndex); ok {
				return nil, d.DeleteIndex(ctx)
			}
			return nil, index(obj).DeleteIndex(ctx)
		},
		"isIndexCreated": func(ctx context.Context, obj any, _ []js.Value) (any, error) {
			return index(obj).IsIndexCreated(ctx)
		},
		"getIndexStats": func(ctx context.Context, obj any, _ []js.Value) (any, error) {
			s, err := index(obj).GetIndexStats(ctx)
			if err != nil {
				return nil, err
			}
			return indexStats{Version: s.Version, MetadataConfig: metadataConfig{Indexed: s.MetadataConfig.Indexed}, Items: s.Items}, nil
		},
		"beginUpdate": func(ctx context.Context, obj any, _ []js.Value) (any, error) {
			return nil, index(obj).BeginUpdate(ctx)
		},
		"endUpdate": func(ctx context.Context, obj any, _ []js.Value) (any, error) {
			if d, ok := obj.(*core.LocalDocumentIndex); ok {
				return nil, d.EndUpdate(ctx)
			}
			return nil, index(obj).EndUpdate(ctx)
		},
	})
	return m
}

// itemMethods are LocalIndex's methods on items.
func itemMethods(index func(obj any) *core.LocalIndex) map[string]method {
	m := itemReads(index)
	maps.Copy(m, map[string]method{
		"insertItem": func(ctx context.Context, obj any, args []js.Value) (any, error) {
			it, err := itemIn(arg(args, 0))
			if err != nil {
				return nil, err
			}
			out, err := index(obj).InsertItem(ctx, it)
			return packItem(out), err
		},
		"upsertItem": func(ctx context.Context, obj any, args []js.Value) (any, error) {
			it, err := itemIn(arg(args, 0))
			if err != nil {
				return nil, err
			}
			out, err := index(obj).UpsertItem(ctx, it)
			return packItem(out), err
		},
		"batchInsertItems": func(ctx context.Context, obj any, args []js.Value) (any, error) {
			list := arg(args, 0)
			if list.Type() != js.TypeObject {
				return nil, fmt.Errorf("folio: batchInsertItems needs an array of items: %w", core.ErrInvalidArgument)
			}
			items := make([]core.IndexItem, length(list))
			for i := range items {
				var err error
				if items[i], err = itemIn(prop(list, i)); err != nil {
					return nil, err
				}
			}
			out, err := index(obj).BatchInsertItems(ctx, items)
			return packItems(out), err
		},
		"deleteItem": func(ctx context.Context, obj any, args []js.Value) (any, error) {
			return nil, index(obj).DeleteItem(ctx, str(args, 0))
		},
		"deleteItems": func(ctx context.Context, obj any, args []js.Value) (any, error) {
			ids, err := stringsIn(arg(args, 0))
			if err != nil {
				return nil, err
			}
			return nil, index(obj).DeleteItems(ctx, ids)
		},
	})
	return m
}

// itemReads are LocalIndex's methods that read items.
func itemReads(index func(obj any) *core.LocalIndex) map[string]method {
	return map[string]method{
		"getItem": func(ctx context.Context, obj any, args []js.Value) (any, error) {
			it, ok, err := index(obj).GetItem(ctx, str(args, 0))
			if err != nil || !ok {
				return nil, err
			}
			return packItem(it), nil
		},
		"listItems": func(ctx context.Context, obj any, _ []js.Value) (any, error) {
			its, err := index(obj).ListItems(ctx)
			return packItems(its), err
		},
		"listItemsByMetadata": func(ctx context.Context, obj any, args []js.Value) (any, error) {
			f, err := filterIn(arg(args, 0))
			if err != nil {
				return nil, err
			}
			its, err := index(obj).ListItemsByMetadata(ctx, f)
			return packItems(its), err
		},
		"queryItems": func(ctx context.Context, obj any, args []js.Value) (any, error) {
			vec, err := vector(arg(args, 0))
			if err != nil {
				return nil, err
			}
			f, err := filterIn(arg(args, 3))
			if err != nil {
				return nil, err
			}
			rs, err := index(obj).QueryItems(ctx, vec, str(args, 1), topK(arg(args, 2)), f, arg(args, 4).Truthy())
			return packResults(rs), err
		},
	}
}
