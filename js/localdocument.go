//go:build js && wasm

package main

import (
	"context"
	"syscall/js"

	"github.com/foliovec/folio/core"
)

// documentMethods are LocalDocument's and LocalDocumentResult's.
func documentMethods(doc func(obj any) *core.LocalDocument) map[string]method {
	return map[string]method{
		"getLength": func(ctx context.Context, obj any, _ []js.Value) (any, error) {
			return doc(obj).GetLength(ctx)
		},
		"hasMetadata": func(ctx context.Context, obj any, _ []js.Value) (any, error) {
			return doc(obj).HasMetadata(ctx)
		},
		"loadMetadata": func(ctx context.Context, obj any, _ []js.Value) (any, error) {
			md, err := doc(obj).LoadMetadata(ctx)
			if md == nil && err == nil {
				md = core.Metadata{}
			}
			return md, err
		},
		"loadText": func(ctx context.Context, obj any, _ []js.Value) (any, error) {
			return doc(obj).LoadText(ctx)
		},
	}
}

func resultMethods() map[string]method {
	m := documentMethods(func(obj any) *core.LocalDocument { return obj.(*core.LocalDocumentResult).LocalDocument })
	m["renderSections"] = func(ctx context.Context, obj any, args []js.Value) (any, error) {
		ss, err := obj.(*core.LocalDocumentResult).RenderSections(ctx, num(args, 0, 0), num(args, 1, 1), boolArg(args, 2, true))
		return sectionsOf(ss), err
	}
	// render is Folio's: passages by default, Vectra's sections with
	// vectraSections (core.LocalDocumentResult.Render).
	m["render"] = func(ctx context.Context, obj any, args []js.Value) (any, error) {
		var o core.RenderOptions
		if v := arg(args, 0); v.Type() == js.TypeObject {
			o.MaxTokens = num([]js.Value{prop(v, "maxTokens")}, 0, 0)
			o.MaxSections = num([]js.Value{prop(v, "maxSections")}, 0, 0)
			o.VectraSections = prop(v, "vectraSections").Truthy()
			o.NoOverlap = !boolArg([]js.Value{prop(v, "overlappingChunks")}, 0, true)
		}
		ss, err := obj.(*core.LocalDocumentResult).Render(ctx, &o)
		return sectionsOf(ss), err
	}
	m["renderAllSections"] = func(ctx context.Context, obj any, args []js.Value) (any, error) {
		ss, err := obj.(*core.LocalDocumentResult).RenderAllSections(ctx, num(args, 0, 0))
		return sectionsOf(ss), err
	}
	return m
}
