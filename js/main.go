//go:build js && wasm

package main

import (
	"context"
	"fmt"
	"maps"
	"syscall/js"

	embedhash "github.com/foliovec/folio/adapters/embed-hash"
	embedhosted "github.com/foliovec/folio/adapters/embed-hosted"
	"github.com/foliovec/folio/adapters/embed-onnx/wordpiece"
	fetchbrowser "github.com/foliovec/folio/adapters/fetch-browser"
	storagehttp "github.com/foliovec/folio/adapters/storage-http"
	storageidb "github.com/foliovec/folio/adapters/storage-idb"
	tokenizertiktoken "github.com/foliovec/folio/adapters/tokenizer-tiktoken"
	"github.com/foliovec/folio/core"
)

func main() {
	b := newBridge()
	b.export()
	select {} // answer the page's calls until it closes
}

// newBridge makes the bridge with every class's constructor and methods.
func newBridge() *bridge {
	b := &bridge{handles: handles{objs: map[int]any{}}}
	b.o200k = tokenizertiktoken.NewFromRankFile(b.ranks.load)
	index := func(obj any) *core.LocalIndex {
		if d, ok := obj.(*core.LocalDocumentIndex); ok {
			return d.LocalIndex
		}
		return obj.(*core.LocalIndex)
	}
	docIndex := indexMethods(index)
	maps.Copy(docIndex, documentIndexMethods(b))
	storage := storageMethods()
	idbStorage := maps.Clone(storage)
	idbStorage["destroy"] = func(ctx context.Context, obj any, _ []js.Value) (any, error) {
		return nil, obj.(*storageidb.IndexedDBStorage).Destroy(ctx)
	}
	embeddings := map[string]method{
		"createEmbeddings": func(ctx context.Context, obj any, args []js.Value) (any, error) {
			return createEmbeddings(ctx, obj.(core.EmbeddingsModel), arg(args, 0))
		},
	}
	b.methods = map[string]map[string]method{
		kind(&core.LocalIndex{}):                indexMethods(index),
		kind(&core.LocalDocumentIndex{}):        docIndex,
		kind(&core.LocalDocument{}):             documentMethods(func(obj any) *core.LocalDocument { return obj.(*core.LocalDocument) }),
		kind(&core.LocalDocumentResult{}):       resultMethods(),
		kind(&storageidb.IndexedDBStorage{}):    idbStorage,
		kind(&core.MemoryStorage{}):             storage,
		kind(&storagehttp.Storage{}):            storage,
		kind(&embedhosted.HostedEmbeddings{}):   embeddings,
		kind(&embedhash.HashEmbeddings{}):       embeddings,
		kind(&fetchbrowser.BrowserWebFetcher{}): {"fetch": b.fetch},
	}
	tokenizer := tokenizerMethods()
	b.sync = map[string]map[string]method{
		kind(b.o200k):                tokenizer,
		kind(&core.TextSplitter{}):   {"split": split},
		kind(&wordpiece.Tokenizer{}): wordPieceMethods(),
		kind(&storageidb.IndexedDBStorage{}): {"close": func(_ context.Context, obj any, _ []js.Value) (any, error) {
			return nil, obj.(*storageidb.IndexedDBStorage).Close()
		}},
		kind(&core.LocalIndex{}):         {"cancelUpdate": cancelUpdate(index)},
		kind(&core.LocalDocumentIndex{}): {"cancelUpdate": cancelUpdate(index)},
	}
	b.constructors = map[string]func(args []js.Value) (any, error){
		"LocalIndex":         newLocalIndex(b),
		"LocalDocumentIndex": newLocalDocumentIndex(b),
		"IndexedDBStorage": func(args []js.Value) (any, error) {
			return storageidb.New(&storageidb.Options{Name: str(args, 0)}), nil
		},
		"VirtualFileStorage": func([]js.Value) (any, error) { return core.NewMemoryStorage(), nil },
		"HttpFileStorage": func(args []js.Value) (any, error) {
			return storagehttp.New(str(args, 0), nil)
		},
		"GPT3Tokenizer":      func([]js.Value) (any, error) { return b.o200k, nil },
		"TextSplitter":       b.newTextSplitter,
		"OpenAIEmbeddings":   newOpenAIEmbeddings,
		"HashEmbeddings":     newHashEmbeddings,
		"BrowserWebFetcher":  newBrowserWebFetcher,
		"WordPieceTokenizer": newWordPieceTokenizer,
	}
	b.statics = statics()
	b.statics["pool"] = pool
	b.statics["modelFiles"] = func(args []js.Value) (any, error) { return wordpiece.ModelFileNames(str(args, 0)) }
	return b
}

func cancelUpdate(index func(obj any) *core.LocalIndex) method {
	return func(_ context.Context, obj any, _ []js.Value) (any, error) {
		index(obj).CancelUpdate()
		return nil, nil
	}
}

// invalid is an error of bad input from the page: "folio: " and the
// message, wrapping core.ErrInvalidArgument.
func invalid(format string, a ...any) error {
	return fmt.Errorf("folio: "+format+": %w", append(a, core.ErrInvalidArgument)...)
}
