package core

import (
	"context"

	"reflect"
	"slices"
	"testing"
	"time"
)

// Every exported method and function that takes a context returns the
// context's own error, unchanged, when the context has ended — on a loaded
// index, where nothing else would stop it. The lists below are checked
// against the types by reflection: a new method without a case fails.
func TestEveryMethodReturnsContextErrorsUnchanged(t *testing.T) {
	live := context.Background()
	canceled, cancel := context.WithCancel(live)
	cancel()
	expired, cancel2 := context.WithDeadline(live, time.Unix(1, 0))
	defer cancel2()

	env := newCreatedDocEnv(t, nil)
	d := env.ix
	doc := mustUpsertDoc(t, d, "a.md", "some text here", "", Metadata{"m": 1})
	results, err := d.QueryDocuments(live, "text", nil)
	if err != nil || len(results) == 0 {
		t.Fatal(err)
	}
	res := results[0]
	vec := docTestVector("text")
	item := IndexItem{ID: "x", Vector: vec}

	indexCalls := func(ix interface {
		BeginUpdate(context.Context) error
		EndUpdate(context.Context) error
		CreateIndex(context.Context, CreateIndexConfig) error
		DeleteIndex(context.Context) error
		IsIndexCreated(context.Context) (bool, error)
		GetIndexStats(context.Context) (IndexStats, error)
		InsertItem(context.Context, IndexItem) (IndexItem, error)
		UpsertItem(context.Context, IndexItem) (IndexItem, error)
		BatchInsertItems(context.Context, []IndexItem) ([]IndexItem, error)
		BulkLoad(context.Context, IndexSource) (int, error)
		GetItem(context.Context, string) (IndexItem, bool, error)
		ListItems(context.Context) ([]IndexItem, error)
		ListItemsByMetadata(context.Context, Filter) ([]IndexItem, error)
		DeleteItem(context.Context, string) error
		DeleteItems(context.Context, []string) error
		QueryItems(context.Context, []float32, string, int, Filter, bool) ([]QueryResult, error)
		QueryItemsBatch(context.Context, []ItemQuery) ([][]QueryResult, error)
		Query(context.Context, ItemQuery) ([]QueryResult, error)
		Vacuum(context.Context) (VacuumReport, error)
		Compact(context.Context) (CompactReport, error)
		CompactIfDue(context.Context) (CompactReport, error)
		ConvertLayout(context.Context, Layout) error
	}) map[string]func(context.Context) error {
		return map[string]func(context.Context) error{
			"BeginUpdate":    ix.BeginUpdate,
			"EndUpdate":      ix.EndUpdate,
			"CreateIndex":    func(ctx context.Context) error { return ix.CreateIndex(ctx, CreateIndexConfig{DeleteIfExists: true}) },
			"DeleteIndex":    ix.DeleteIndex,
			"IsIndexCreated": func(ctx context.Context) error { _, err := ix.IsIndexCreated(ctx); return err },
			"GetIndexStats":  func(ctx context.Context) error { _, err := ix.GetIndexStats(ctx); return err },
			"InsertItem":     func(ctx context.Context) error { _, err := ix.InsertItem(ctx, item); return err },
			"UpsertItem":     func(ctx context.Context) error { _, err := ix.UpsertItem(ctx, item); return err },
			"BulkLoad": func(ctx context.Context) error {
				_, err := ix.BulkLoad(ctx, IndexSource{Len: 1, Item: func(int) IndexItem { return item }})
				return err
			},
			"BatchInsertItems": func(ctx context.Context) error {
				_, err := ix.BatchInsertItems(ctx, []IndexItem{item})
				return err
			},
			"GetItem":   func(ctx context.Context) error { _, _, err := ix.GetItem(ctx, "x"); return err },
			"ListItems": func(ctx context.Context) error { _, err := ix.ListItems(ctx); return err },
			"ListItemsByMetadata": func(ctx context.Context) error {
				_, err := ix.ListItemsByMetadata(ctx, Filter{"m": 1})
				return err
			},
			"DeleteItem":  func(ctx context.Context) error { return ix.DeleteItem(ctx, "x") },
			"DeleteItems": func(ctx context.Context) error { return ix.DeleteItems(ctx, []string{"x"}) },
			"QueryItems": func(ctx context.Context) error {
				_, err := ix.QueryItems(ctx, vec, "text", 3, nil, true)
				return err
			},
			"Query": func(ctx context.Context) error {
				_, err := ix.Query(ctx, ItemQuery{Vector: vec, Query: "text", TopK: 3, IsBm25: true})
				return err
			},
			"QueryItemsBatch": func(ctx context.Context) error {
				_, err := ix.QueryItemsBatch(ctx, []ItemQuery{{Vector: vec, Query: "text", TopK: 3, IsBm25: true}, {Vector: vec, TopK: 2}})
				return err
			},
			"Vacuum":  func(ctx context.Context) error { _, err := ix.Vacuum(ctx); return err },
			"Compact": func(ctx context.Context) error { _, err := ix.Compact(ctx); return err },
			"CompactIfDue": func(ctx context.Context) error {
				_, err := ix.CompactIfDue(ctx)
				return err
			},
			"ConvertLayout": func(ctx context.Context) error {
				return ix.ConvertLayout(ctx, LayoutSegmented)
			},
		}
	}
	documentCalls := func(doc *LocalDocument) map[string]func(context.Context) error {
		return map[string]func(context.Context) error{
			"LoadText":     func(ctx context.Context) error { _, err := doc.LoadText(ctx); return err },
			"GetLength":    func(ctx context.Context) error { _, err := doc.GetLength(ctx); return err },
			"HasMetadata":  func(ctx context.Context) error { _, err := doc.HasMetadata(ctx); return err },
			"LoadMetadata": func(ctx context.Context) error { _, err := doc.LoadMetadata(ctx); return err },
		}
	}
	calls := map[reflect.Type]map[string]func(context.Context) error{
		reflect.TypeFor[*LocalIndex]():    indexCalls(d.LocalIndex),
		reflect.TypeFor[*LocalDocument](): documentCalls(doc),
	}
	docIndex := indexCalls(d)
	for name, call := range map[string]func(context.Context) error{
		"UpsertDocument": func(ctx context.Context) error {
			_, err := d.UpsertDocument(ctx, "b.md", "more", "", nil, nil)
			return err
		},
		"UpsertDocuments": func(ctx context.Context) error {
			_, err := d.UpsertDocuments(ctx, []DocumentInput{{URI: "b.md", Text: "more"}}, nil)
			return err
		},
		"DeleteDocument":  func(ctx context.Context) error { return d.DeleteDocument(ctx, "a.md") },
		"DeleteDocuments": func(ctx context.Context) error { _, err := d.DeleteDocuments(ctx, []string{"a.md"}); return err },
		"QueryDocuments":  func(ctx context.Context) error { _, err := d.QueryDocuments(ctx, "text", nil); return err },
		"QueryDocumentsBatch": func(ctx context.Context) error {
			_, err := d.QueryDocumentsBatch(ctx, []DocumentQuery{{Query: "text"}, {Query: "here"}})
			return err
		},
		"ListDocuments":    func(ctx context.Context) error { _, err := d.ListDocuments(ctx); return err },
		"GetDocumentID":    func(ctx context.Context) error { _, _, err := d.GetDocumentID(ctx, "a.md"); return err },
		"GetDocumentURI":   func(ctx context.Context) error { _, _, err := d.GetDocumentURI(ctx, doc.ID()); return err },
		"GetCatalogStats":  func(ctx context.Context) error { _, err := d.GetCatalogStats(ctx); return err },
		"DocumentURIs":     func(ctx context.Context) error { _, err := d.DocumentURIs(ctx); return err },
		"IsCatalogCreated": func(ctx context.Context) error { _, err := d.IsCatalogCreated(ctx); return err },
	} {
		docIndex[name] = call
	}
	calls[reflect.TypeFor[*LocalDocumentIndex]()] = docIndex
	resultCalls := documentCalls(res.LocalDocument)
	resultCalls["RenderSections"] = func(ctx context.Context) error { _, err := res.RenderSections(ctx, 100, 1, true); return err }
	resultCalls["ChunkTexts"] = func(ctx context.Context) error { _, err := res.ChunkTexts(ctx); return err }
	resultCalls["Render"] = func(ctx context.Context) error { _, err := res.Render(ctx, &RenderOptions{MaxTokens: 100}); return err }
	resultCalls["RenderAllSections"] = func(ctx context.Context) error { _, err := res.RenderAllSections(ctx, 100); return err }
	calls[reflect.TypeFor[*LocalDocumentResult]()] = resultCalls

	ctxType := reflect.TypeFor[context.Context]()
	for typ, byName := range calls {
		var methods []string
		for i := range typ.NumMethod() {
			m := typ.Method(i)
			if m.Type.NumIn() > 1 && m.Type.In(1) == ctxType {
				methods = append(methods, m.Name)
			}
		}
		for _, name := range methods {
			if byName[name] == nil {
				t.Errorf("%v.%s takes a context and has no case here", typ, name)
			}
		}
		names := slices.Sorted(func(yield func(string) bool) {
			for n := range byName {
				if !yield(n) {
					return
				}
			}
		})
		for _, name := range names {
			for _, ctx := range []context.Context{canceled, expired} {
				if err := byName[name](ctx); err != ctx.Err() {
					t.Errorf("%v.%s with an ended context: %v, want %v unchanged", typ, name, err, ctx.Err())
				}
			}
		}
	}

	funcs := map[string]func(context.Context) error{
		"EnsureFolderExists": func(ctx context.Context) error { return EnsureFolderExists(ctx, env.st, "new") },
		"TryDeleteFile":      func(ctx context.Context) error { return TryDeleteFile(ctx, env.st, "x") },
	}
	for name, call := range funcs {
		for _, ctx := range []context.Context{canceled, expired} {
			if err := call(ctx); err != ctx.Err() {
				t.Errorf("%s with an ended context: %v, want %v unchanged", name, err, ctx.Err())
			}
		}
	}
	if st, err := d.GetCatalogStats(live); err != nil || st.Documents != 1 {
		t.Fatalf("after every call with an ended context: %+v, %v (nothing may have changed)", st, err)
	}
}
