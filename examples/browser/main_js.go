//go:build js && wasm

// Command browser is Folio in a web page: a document index kept in the
// page's IndexedDB, filled with pasted text or fetched web pages, searched
// with or without BM25. The page (index.html, app.js) calls the functions
// this program puts on globalThis.folio; each returns a Promise.
//
// Build it with GOOS=js GOARCH=wasm and serve the folder with
// examples/browser/serve (make browser-demo does both).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"syscall/js"

	embedhash "github.com/foliovec/folio/adapters/embed-hash"
	embedhosted "github.com/foliovec/folio/adapters/embed-hosted"
	fetchbrowser "github.com/foliovec/folio/adapters/fetch-browser"
	"github.com/foliovec/folio/browser"
	"github.com/foliovec/folio/core"
)

// app is the page's state: the open document index and its model.
type app struct {
	mu      sync.Mutex
	index   *core.LocalDocumentIndex
	model   string // "hash" or the hosted model's name
	fetcher *fetchbrowser.BrowserWebFetcher
}

func main() {
	a := &app{fetcher: fetchbrowser.New(nil)}
	api := js.Global().Get("Object").New()
	api.Set("open", promised(func(ctx context.Context, args []js.Value) (any, error) {
		key, model := arg(args, 0), arg(args, 1)
		return a.open(ctx, key, model)
	}))
	api.Set("addText", promised(func(ctx context.Context, args []js.Value) (any, error) {
		return a.addText(ctx, arg(args, 0), arg(args, 1))
	}))
	api.Set("addURL", promised(func(ctx context.Context, args []js.Value) (any, error) {
		return a.addURL(ctx, arg(args, 0))
	}))
	api.Set("search", promised(func(ctx context.Context, args []js.Value) (any, error) {
		bm25 := len(args) > 1 && args[1].Truthy()
		return a.search(ctx, arg(args, 0), bm25)
	}))
	api.Set("documents", promised(func(ctx context.Context, _ []js.Value) (any, error) { return a.documents(ctx) }))
	api.Set("clear", promised(func(ctx context.Context, _ []js.Value) (any, error) { return a.clear(ctx) }))
	js.Global().Set("folio", api)
	js.Global().Call("dispatchEvent", js.Global().Get("Event").New("folio-ready"))
	select {} // serve the page's calls until it closes
}

// arg is args[i] as a string, "" when missing.
func arg(args []js.Value, i int) string {
	if i < len(args) && args[i].Type() == js.TypeString {
		return args[i].String()
	}
	return ""
}

// promised turns f into a JavaScript function returning a Promise that
// resolves to f's result as JSON-decoded JavaScript, or rejects with its
// error. f runs in its own goroutine: a JavaScript callback must not block.
func promised(f func(ctx context.Context, args []js.Value) (any, error)) js.Func {
	return js.FuncOf(func(_ js.Value, args []js.Value) any {
		var executor js.Func
		executor = js.FuncOf(func(_ js.Value, pr []js.Value) any {
			resolve, reject := pr[0], pr[1]
			go func() {
				defer executor.Release()
				v, err := f(context.Background(), args)
				if err != nil {
					reject.Invoke(js.Global().Get("Error").New(err.Error()))
					return
				}
				b, err := json.Marshal(v)
				if err != nil {
					reject.Invoke(js.Global().Get("Error").New(err.Error()))
					return
				}
				resolve.Invoke(js.Global().Get("JSON").Call("parse", string(b)))
			}()
			return nil
		})
		return js.Global().Get("Promise").New(executor)
	})
}

// open opens (creating on first use) the index for a model: the offline
// word-hashing model when key is empty, else the hosted model (default
// text-embedding-3-small) with key. Each model has its own folder, since
// their vectors differ.
func (a *app) open(ctx context.Context, key, model string) (string, error) {
	var emb core.EmbeddingsModel = embedhash.New(nil)
	name := "hash"
	if key != "" {
		if model == "" {
			model = "text-embedding-3-small"
		}
		hosted, err := embedhosted.New(&embedhosted.Options{APIKey: key, Model: model})
		if err != nil {
			return "", err
		}
		emb, name = hosted, model
	}
	ix, err := browser.NewLocalDocumentIndex(browser.DocumentIndexConfig{FolderPath: "folio-demo/" + name, Embeddings: emb})
	if err != nil {
		return "", err
	}
	created, err := ix.IsIndexCreated(ctx)
	if err != nil {
		return "", err
	}
	if !created {
		if err := ix.CreateIndex(ctx, core.CreateIndexConfig{Version: 1}); err != nil {
			return "", err
		}
	}
	a.mu.Lock()
	a.index, a.model = ix, name
	a.mu.Unlock()
	return name, nil
}

func (a *app) current() (*core.LocalDocumentIndex, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.index == nil {
		return nil, errors.New("no index is open")
	}
	return a.index, nil
}

// addText indexes text under uri (a title when the user gives no uri).
func (a *app) addText(ctx context.Context, uri, text string) (string, error) {
	ix, err := a.current()
	if err != nil {
		return "", err
	}
	if uri == "" {
		return "", errors.New("give the text a title")
	}
	if _, err := ix.UpsertDocument(ctx, uri, text, "txt", nil, nil); err != nil {
		return "", err
	}
	return uri, nil
}

// addURL fetches a page with the browser's fetch and indexes it.
func (a *app) addURL(ctx context.Context, uri string) (string, error) {
	ix, err := a.current()
	if err != nil {
		return "", err
	}
	_, err = a.fetcher.Fetch(ctx, uri, func(ctx context.Context, uri, text, docType string) (bool, error) {
		_, err := ix.UpsertDocument(ctx, uri, text, docType, nil, nil)
		return err == nil, err
	})
	if err != nil {
		return "", err
	}
	return uri, nil
}

type section struct {
	Text   string  `json:"text"`
	Score  float64 `json:"score"`
	Tokens int     `json:"tokens"`
	BM25   bool    `json:"bm25"`
}

type result struct {
	URI      string    `json:"uri"`
	Score    float64   `json:"score"`
	Sections []section `json:"sections"`
}

// search answers a query with the best three documents and their best
// two sections of up to 300 tokens.
func (a *app) search(ctx context.Context, query string, bm25 bool) ([]result, error) {
	ix, err := a.current()
	if err != nil {
		return nil, err
	}
	docs, err := ix.QueryDocuments(ctx, query, &core.DocumentQueryOptions{MaxDocuments: 3, IsBm25: bm25})
	if err != nil {
		return nil, err
	}
	out := []result{}
	for _, d := range docs {
		secs, err := d.RenderSections(ctx, 300, 2, true)
		if err != nil {
			return nil, fmt.Errorf("render %s: %w", d.URI(), err)
		}
		r := result{URI: d.URI(), Score: d.Score}
		for _, s := range secs {
			r.Sections = append(r.Sections, section{s.Text, s.Score, s.TokenCount, s.IsBm25})
		}
		out = append(out, r)
	}
	return out, nil
}

// documents lists the indexed documents' uris.
func (a *app) documents(ctx context.Context) ([]string, error) {
	ix, err := a.current()
	if err != nil {
		return nil, err
	}
	uris, err := ix.DocumentURIs(ctx)
	if err != nil || uris == nil {
		return []string{}, err
	}
	return uris, nil
}

// clear deletes and recreates the open index.
func (a *app) clear(ctx context.Context) (bool, error) {
	ix, err := a.current()
	if err != nil {
		return false, err
	}
	return true, ix.CreateIndex(ctx, core.CreateIndexConfig{Version: 1, DeleteIfExists: true})
}
