//go:build js && wasm

package main

import (
	"context"
	"errors"
	"syscall/js"

	embedhash "github.com/foliovec/folio/adapters/embed-hash"
	embedhosted "github.com/foliovec/folio/adapters/embed-hosted"
	fetchbrowser "github.com/foliovec/folio/adapters/fetch-browser"
	"github.com/foliovec/folio/core"
	"github.com/foliovec/folio/core/pathutil"
)

// storageMethods are a FileStorage's methods, for Folio's own storages
// (IndexedDBStorage, VirtualFileStorage) called from JavaScript.
func storageMethods() map[string]method {
	s := func(obj any) core.FileStorage { return obj.(core.FileStorage) }
	write := func(upsert bool) method {
		return func(ctx context.Context, obj any, args []js.Value) (any, error) {
			content, err := bytesOf(arg(args, 1))
			if err != nil {
				return nil, err
			}
			if upsert {
				return nil, s(obj).UpsertFile(ctx, str(args, 0), content)
			}
			return nil, s(obj).CreateFile(ctx, str(args, 0), content)
		}
	}
	return map[string]method{
		"createFile": write(false),
		"upsertFile": write(true),
		"readFile": func(ctx context.Context, obj any, args []js.Value) (any, error) {
			b, err := s(obj).ReadFile(ctx, str(args, 0))
			if err != nil {
				return nil, err
			}
			return raw{uint8Array(b)}, nil
		},
		"deleteFile": func(ctx context.Context, obj any, args []js.Value) (any, error) {
			return nil, s(obj).DeleteFile(ctx, str(args, 0))
		},
		"pathExists": func(ctx context.Context, obj any, args []js.Value) (any, error) {
			return s(obj).PathExists(ctx, str(args, 0))
		},
		"createFolder": func(ctx context.Context, obj any, args []js.Value) (any, error) {
			return nil, s(obj).CreateFolder(ctx, str(args, 0))
		},
		"deleteFolder": func(ctx context.Context, obj any, args []js.Value) (any, error) {
			return nil, s(obj).DeleteFolder(ctx, str(args, 0))
		},
		"getDetails": func(ctx context.Context, obj any, args []js.Value) (any, error) {
			d, err := s(obj).GetDetails(ctx, str(args, 0))
			if err != nil {
				return nil, err
			}
			return detailsOf(d), nil
		},
		"listFiles": func(ctx context.Context, obj any, args []js.Value) (any, error) {
			filter := core.ListFilesFilter(str(args, 1))
			if filter == "" {
				filter = core.ListAll
			}
			list, err := s(obj).ListFiles(ctx, str(args, 0), filter)
			if err != nil {
				return nil, err
			}
			out := make([]fileDetails, len(list))
			for i, d := range list {
				out[i] = detailsOf(d)
			}
			return out, nil
		},
	}
}

// tokenizerMethods are a Tokenizer's, answered at once.
func tokenizerMethods() map[string]method {
	t := func(obj any) core.Tokenizer { return obj.(core.Tokenizer) }
	return map[string]method{
		"encode": func(_ context.Context, obj any, args []js.Value) (any, error) {
			ids := t(obj).Encode(str(args, 0))
			if ids == nil {
				ids = []int{}
			}
			return ids, nil
		},
		"decode": func(_ context.Context, obj any, args []js.Value) (any, error) {
			var ids []int
			if err := fromJSON(js.Global().Get("Array").Call("from", arg(args, 0)), &ids); err != nil {
				return nil, invalid("decode wants a list of token ids: %w", err)
			}
			return t(obj).Decode(ids), nil
		},
	}
}

// newTextSplitter makes Vectra's TextSplitter: 400-token chunks, 40 tokens
// of overlap, separators dropped and GPT3Tokenizer (o200k_base), for every
// option not given.
func (b *bridge) newTextSplitter(args []js.Value) (any, error) {
	cfg := core.DefaultTextSplitterConfig()
	if v := arg(args, 0); v.Type() == js.TypeObject {
		var c struct {
			ChunkSize      *int     `json:"chunkSize"`
			ChunkOverlap   *int     `json:"chunkOverlap"`
			KeepSeparators bool     `json:"keepSeparators"`
			Separators     []string `json:"separators"`
			DocType        string   `json:"docType"`
		}
		if err := fromJSON(withoutKey(v, "tokenizer"), &c); err != nil {
			return nil, invalid("TextSplitter config: %w", err)
		}
		if c.ChunkSize != nil {
			if *c.ChunkSize < 1 {
				return nil, invalid("chunkSize must be >= 1, got %d", *c.ChunkSize)
			}
			cfg.ChunkSize = *c.ChunkSize
		}
		if c.ChunkOverlap != nil {
			cfg.ChunkOverlap = *c.ChunkOverlap
		}
		cfg.KeepSeparators, cfg.Separators, cfg.DocType = c.KeepSeparators, c.Separators, c.DocType
		cfg.Tokenizer = b.tokenizer(prop(v, "tokenizer"))
	}
	if cfg.Tokenizer == nil {
		cfg.Tokenizer = b.o200k
	}
	return core.NewTextSplitter(cfg)
}

// textChunk is Vectra's TextChunk.
type textChunk struct {
	Text         string `json:"text"`
	Tokens       []int  `json:"tokens"`
	StartPos     int    `json:"startPos"`
	EndPos       int    `json:"endPos"`
	StartOverlap []int  `json:"startOverlap"`
	EndOverlap   []int  `json:"endOverlap"`
}

func split(ctx context.Context, obj any, args []js.Value) (any, error) {
	chunks, err := obj.(*core.TextSplitter).SplitContext(ctx, str(args, 0))
	if err != nil {
		return nil, err
	}
	out := make([]textChunk, len(chunks))
	for i, c := range chunks {
		out[i] = textChunk{Text: c.Text, Tokens: nonNil(c.Tokens), StartPos: c.StartPos, EndPos: c.EndPos,
			StartOverlap: nonNil(c.StartOverlap), EndOverlap: nonNil(c.EndOverlap)}
	}
	return out, nil
}

func nonNil(s []int) []int {
	if s == nil {
		return []int{}
	}
	return s
}

// newOpenAIEmbeddings reads Vectra's OpenAIEmbeddings options
// (embedhosted.OptionsFromJSON: the shapes of a keys file of Vectra's CLI,
// without the defaults the CLI adds): OpenAI's, Azure's or an
// OpenAI-compatible server's.
func newOpenAIEmbeddings(args []js.Value) (any, error) {
	opts := arg(args, 0)
	if opts.Type() != js.TypeObject {
		return nil, invalid("OpenAIEmbeddings needs its options")
	}
	o, err := embedhosted.OptionsFromJSON([]byte(js.Global().Get("JSON").Call("stringify", opts).String()))
	if err != nil {
		return nil, err
	}
	return embedhosted.New(&o)
}

// newHashEmbeddings reads HashEmbeddings' options: {dimensions, maxTokens},
// each 0 or missing for its default (384, 500).
func newHashEmbeddings(args []js.Value) (any, error) {
	var o struct {
		Dimensions int `json:"dimensions"`
		MaxTokens  int `json:"maxTokens"`
	}
	if err := fromJSON(arg(args, 0), &o); err != nil {
		return nil, invalid("HashEmbeddings options: %w", err)
	}
	if o.Dimensions < 0 || o.Dimensions > 1<<16 || o.MaxTokens < 0 {
		return nil, invalid("HashEmbeddings options: dimensions %d, maxTokens %d", o.Dimensions, o.MaxTokens)
	}
	return embedhash.New(&embedhash.Options{Dimensions: o.Dimensions, MaxTokens: o.MaxTokens}), nil
}

// embeddingsResponse is Vectra's EmbeddingsResponse.
type embeddingsResponse struct {
	Status  core.EmbeddingsStatus `json:"status"`
	Output  [][]float32           `json:"output,omitempty"`
	Message string                `json:"message,omitempty"`
	Model   string                `json:"model,omitempty"`
	Usage   map[string]any        `json:"usage,omitempty"`
}

// createEmbeddings answers createEmbeddings(inputs) of one of Folio's
// models as Vectra's do: a failure is a response with its status and
// message, not a rejection.
func createEmbeddings(ctx context.Context, m core.EmbeddingsModel, in js.Value) (any, error) {
	var inputs []string
	if in.Type() == js.TypeString {
		inputs = []string{in.String()}
	} else if err := fromJSON(in, &inputs); err != nil {
		return nil, invalid("createEmbeddings wants a string or a list of strings: %w", err)
	}
	resp, err := m.CreateEmbeddings(ctx, inputs)
	out := embeddingsResponse{Status: resp.Status, Output: resp.Output, Message: resp.Message, Model: resp.Model, Usage: resp.Usage}
	var ee *core.EmbeddingsError
	if _, err := core.EmbeddingsOutput(resp, err, len(inputs)); errors.As(err, &ee) {
		out.Status, out.Message = ee.Status, ee.Message
	}
	return out, nil
}

// newBrowserWebFetcher reads Vectra's BrowserWebFetcherConfig.
func newBrowserWebFetcher(args []js.Value) (any, error) {
	var c struct {
		HTMLToMarkdown *bool             `json:"htmlToMarkdown"`
		Headers        map[string]string `json:"headers"`
		Mode           string            `json:"mode"`
		Credentials    string            `json:"credentials"`
	}
	if err := fromJSON(arg(args, 0), &c); err != nil {
		return nil, invalid("BrowserWebFetcher config: %w", err)
	}
	return fetchbrowser.New(&fetchbrowser.Options{
		KeepHTML: c.HTMLToMarkdown != nil && !*c.HTMLToMarkdown,
		Headers:  c.Headers, Mode: c.Mode, Credentials: c.Credentials,
	}), nil
}

// fetch is TextFetcher.fetch(uri, onDocument): onDocument is a JavaScript
// function answering (a Promise of) a boolean.
func (b *bridge) fetch(ctx context.Context, obj any, args []js.Value) (any, error) {
	onDocument := arg(args, 1)
	if onDocument.Type() != js.TypeFunction {
		return nil, invalid("fetch needs an onDocument function")
	}
	return obj.(core.TextFetcher).Fetch(ctx, str(args, 0), func(ctx context.Context, uri, text, docType string) (bool, error) {
		var dt any = js.Undefined()
		if docType != "" {
			dt = docType
		}
		v, err := callJS(func() js.Value { return onDocument.Invoke(uri, text, dt) })
		if err != nil {
			return false, err
		}
		v, err = await(ctx, v)
		return v.Truthy(), err
	})
}

// statics are the functions of no object.
func statics() map[string]func(args []js.Value) (any, error) {
	return map[string]func(args []js.Value) (any, error){
		"select": func(args []js.Value) (any, error) {
			var md core.Metadata
			if err := fromJSON(arg(args, 0), &md); err != nil {
				return nil, invalid("select metadata: %w", err)
			}
			f, err := filterIn(arg(args, 1))
			if err != nil {
				return nil, err
			}
			return core.Select(md, f)
		},
		"path.join": func(args []js.Value) (any, error) {
			parts, err := stringsIn(arg(args, 0))
			return pathutil.Join(parts...), err
		},
		"path.basename": func(args []js.Value) (any, error) {
			if ext := str(args, 1); ext != "" {
				return pathutil.Basename(str(args, 0), ext), nil
			}
			return pathutil.Basename(str(args, 0)), nil
		},
		"path.dirname":    func(args []js.Value) (any, error) { return pathutil.Dirname(str(args, 0)), nil },
		"path.extname":    func(args []js.Value) (any, error) { return pathutil.Extname(str(args, 0)), nil },
		"path.normalize":  func(args []js.Value) (any, error) { return pathutil.Normalize(str(args, 0)), nil },
		"path.isAbsolute": func(args []js.Value) (any, error) { return pathutil.IsAbsolute(str(args, 0)), nil },
		"path.relative":   func(args []js.Value) (any, error) { return pathutil.Relative(str(args, 0), str(args, 1)), nil },
		"getFileType": func(args []js.Value) (any, error) {
			return fileType(core.GetFileType(str(args, 0))), nil
		},
		"getFileTypeFromContentType": func(args []js.Value) (any, error) {
			return fileType(core.GetFileTypeFromContentType(str(args, 0))), nil
		},
	}
}

// fileType is undefined for an unknown type, as in Vectra.
func fileType(t core.FileType) any {
	if t == "" {
		return js.Undefined()
	}
	return string(t)
}
