//go:build js && wasm

package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"regexp"
	"syscall/js"

	"github.com/foliovec/folio/core"
)

// jsThrown is an error thrown or rejected in JavaScript, with the
// JavaScript error's message.
type jsThrown struct {
	value   js.Value
	message string
}

func (e *jsThrown) Error() string { return e.message }

// thrown wraps a thrown or rejected JavaScript value. It runs on
// JavaScript's callback goroutine too (a rejection's handler), where a
// panic would end the program: a reason whose message cannot be read
// (a Proxy, a getter that throws) is answered as unreadable.
func thrown(v js.Value) (err error) {
	defer func() {
		if recover() != nil {
			err = &jsThrown{value: v, message: "(a reason that cannot be read)"}
		}
	}()
	msg := "(no reason given)"
	switch {
	case v.Type() == js.TypeObject && prop(v, "message").Type() == js.TypeString:
		msg = prop(v, "message").String()
	case v.Type() == js.TypeString:
		msg = v.String()
	case !v.IsUndefined() && !v.IsNull():
		msg = js.Global().Call("String", v).String()
	}
	return &jsThrown{value: v, message: msg}
}

// storageError matches what a FileStorage written in JavaScript threw to
// io/fs's sentinels, so Folio reads it as it reads its own storages'
// errors: Vectra's storages say "File not found: x", "Path not found: x"
// and "File already exists: x"; Node's errors carry a code.
func storageError(err error) error {
	var e *jsThrown
	if !errors.As(err, &e) {
		return err
	}
	code := ""
	if e.value.Type() == js.TypeObject && prop(e.value, "code").Type() == js.TypeString {
		code = prop(e.value, "code").String()
	}
	switch {
	case code == "ENOENT" || notFound.MatchString(e.message):
		return fmt.Errorf("%w: %w", err, fs.ErrNotExist)
	case code == "EEXIST" || exists.MatchString(e.message):
		return fmt.Errorf("%w: %w", err, fs.ErrExist)
	}
	return err
}

var (
	notFound = regexp.MustCompile(`(?i)\bnot found\b|\bno such file\b|\bdoes not exist\b`)
	exists   = regexp.MustCompile(`(?i)\balready exists\b`)
)

// invoke calls obj[name](args...) and awaits its result when it is a
// Promise (or any thenable). A synchronous throw or a rejection is an
// error with the JavaScript message. It must not run on JavaScript's own
// callback goroutine: it blocks until the event loop settles the Promise.
func invoke(ctx context.Context, obj js.Value, name string, args ...any) (js.Value, error) {
	f := prop(obj, name)
	if f.Type() != js.TypeFunction {
		return js.Undefined(), fmt.Errorf("folio: the object given has no %s method: %w", name, core.ErrInvalidArgument)
	}
	v, err := callJS(func() js.Value { return obj.Call(name, args...) })
	if err != nil {
		return js.Undefined(), err
	}
	return await(ctx, v)
}

// callJS runs f, turning a JavaScript exception into an error.
func callJS(f func() js.Value) (v js.Value, err error) {
	defer func() {
		if r := recover(); r != nil {
			if je, ok := r.(js.Error); ok {
				err = thrown(je.Value)
				return
			}
			panic(r)
		}
	}()
	return f(), nil
}

type settled struct {
	v   js.Value
	err error
}

// await waits for a thenable to settle; any other value is its own result.
func await(ctx context.Context, v js.Value) (js.Value, error) {
	if v.Type() != js.TypeObject || prop(v, "then").Type() != js.TypeFunction {
		return v, nil
	}
	ch := make(chan settled, 1)
	var onValue, onError js.Func
	onValue = js.FuncOf(func(_ js.Value, a []js.Value) any {
		ch <- settled{v: arg(a, 0)}
		return nil
	})
	onError = js.FuncOf(func(_ js.Value, a []js.Value) any {
		ch <- settled{err: thrown(arg(a, 0))}
		return nil
	})
	if _, err := callJS(func() js.Value { return v.Call("then", onValue, onError) }); err != nil {
		onValue.Release()
		onError.Release()
		return js.Undefined(), err
	}
	select {
	case s := <-ch:
		onValue.Release()
		onError.Release()
		return s.v, s.err
	case <-ctx.Done():
		go func() { // release the callbacks once the Promise settles
			<-ch
			onValue.Release()
			onError.Release()
		}()
		return js.Undefined(), ctx.Err()
	}
}

// jsEmbeddings is an embeddings model written in JavaScript: an object
// with maxTokens and createEmbeddings(inputs), which returns (a Promise
// of) {status, output, message}.
type jsEmbeddings struct{ obj js.Value }

var _ core.EmbeddingsModel = jsEmbeddings{}

func (m jsEmbeddings) MaxTokens() int {
	if v := prop(m.obj, "maxTokens"); v.Type() == js.TypeNumber {
		return v.Int()
	}
	return 0
}

func (m jsEmbeddings) CreateEmbeddings(ctx context.Context, inputs []string) (_ core.EmbeddingsResponse, err error) {
	defer guard(&err, "createEmbeddings")
	list := make([]any, len(inputs))
	for i, s := range inputs {
		list[i] = s
	}
	v, err := invoke(ctx, m.obj, "createEmbeddings", js.ValueOf(list))
	if err != nil {
		return core.EmbeddingsResponse{Status: core.EmbeddingsFailed, Message: err.Error()},
			fmt.Errorf("%w: %w", core.ErrEmbeddingsFailed, err)
	}
	var resp embeddingsResponse
	if err := readEmbeddings(v, &resp.Output); err != nil {
		return core.EmbeddingsResponse{Status: core.EmbeddingsFailed, Message: err.Error()}, err
	}
	out := resp.Output
	resp.Output = nil
	if err := fromJSON(withoutOutput(v), &resp); err != nil {
		return core.EmbeddingsResponse{Status: core.EmbeddingsFailed, Message: err.Error()},
			fmt.Errorf("%w: the response of createEmbeddings: %w", core.ErrEmbeddingsFailed, err)
	}
	return core.EmbeddingsResponse{Status: resp.Status, Output: out, Message: resp.Message, Model: resp.Model, Usage: resp.Usage}, nil
}

// withoutOutput is a shallow copy of a response without its output, whose
// vectors readEmbeddings reads without JSON.
func withoutOutput(v js.Value) js.Value {
	if v.Type() != js.TypeObject {
		return v
	}
	c := js.Global().Get("Object").Call("assign", js.Global().Get("Object").New(), v)
	c.Delete("output")
	return c
}

// readEmbeddings reads a response's output: an array of vectors, each an
// array of numbers or a typed array, copied through a Float32Array.
// Anything else (a string, an object, a vector holding something other
// than finite numbers) is an error wrapping core.ErrEmbeddingsFailed.
func readEmbeddings(resp js.Value, out *[][]float32) error {
	if resp.Type() != js.TypeObject {
		return fmt.Errorf("%w: createEmbeddings answered %s, want an object", core.ErrEmbeddingsFailed, resp.Type())
	}
	list := prop(resp, "output")
	if list.IsUndefined() || list.IsNull() {
		return nil
	}
	if tag(list) != "Array" {
		return fmt.Errorf("%w: createEmbeddings answered an output that is not an array of vectors", core.ErrEmbeddingsFailed)
	}
	n := length(list)
	vecs := make([][]float32, n)
	for i := range n {
		vec, err := vector(prop(list, i))
		if err != nil {
			return fmt.Errorf("%w: createEmbeddings answered output[%d]: %w", core.ErrEmbeddingsFailed, i, err)
		}
		vecs[i] = vec
	}
	*out = vecs
	return nil
}

// float32s copies a Float32Array.
func float32s(f js.Value) []float32 {
	n := prop(f, "length").Int()
	b := make([]byte, 4*n)
	js.CopyBytesToGo(b, js.Global().Get("Uint8Array").New(prop(f, "buffer"), prop(f, "byteOffset"), 4*n))
	out := make([]float32, n)
	for i := range out {
		out[i] = math.Float32frombits(uint32(b[4*i]) | uint32(b[4*i+1])<<8 | uint32(b[4*i+2])<<16 | uint32(b[4*i+3])<<24)
	}
	return out
}

// jsTokenizer is a tokenizer written in JavaScript: encode(text) and
// decode(tokens), both synchronous, as Vectra's Tokenizer is.
type jsTokenizer struct{ obj js.Value }

var _ core.ContextTokenizer = jsTokenizer{}

// Encode and Decode have no error to return: when the page's method
// throws they panic with its error, which the bridge answers as the
// call's rejection. Folio's engine calls EncodeContext, which returns it.
func (t jsTokenizer) Encode(text string) []int {
	ids, err := t.EncodeContext(context.Background(), text)
	if err != nil {
		panic(err)
	}
	return ids
}

func (t jsTokenizer) EncodeContext(_ context.Context, text string) (_ []int, err error) {
	defer guard(&err, "encodeContext")
	v, err := callJS(func() js.Value { return t.obj.Call("encode", text) })
	if err != nil {
		return nil, err
	}
	var ids []int
	if err := fromJSON(js.Global().Get("Array").Call("from", v), &ids); err != nil {
		return nil, fmt.Errorf("folio: the tokenizer's encode: %w", err)
	}
	return ids, nil
}

func (t jsTokenizer) Decode(tokens []int) string {
	list := make([]any, len(tokens))
	for i, id := range tokens {
		list[i] = id
	}
	v, err := callJS(func() js.Value { return t.obj.Call("decode", js.ValueOf(list)) })
	if err != nil {
		panic(err)
	}
	return v.String()
}

// jsStorage is a FileStorage written in JavaScript, with Vectra's
// methods, each returning a Promise.
type jsStorage struct{ obj js.Value }

var _ core.FileStorage = jsStorage{}

func (s jsStorage) do(ctx context.Context, name string, args ...any) (_ js.Value, err error) {
	defer guard(&err, "do")
	v, err := invoke(ctx, s.obj, name, args...)
	if err != nil {
		return v, fmt.Errorf("%s %q: %w", name, fmt.Sprint(args[0]), storageError(err))
	}
	return v, nil
}

func (s jsStorage) CreateFile(ctx context.Context, p string, content []byte) (err error) {
	defer guard(&err, "createFile")
	_, err = s.do(ctx, "createFile", p, uint8Array(content))
	return err
}

func (s jsStorage) UpsertFile(ctx context.Context, p string, content []byte) (err error) {
	defer guard(&err, "upsertFile")
	_, err = s.do(ctx, "upsertFile", p, uint8Array(content))
	return err
}

func (s jsStorage) ReadFile(ctx context.Context, p string) (_ []byte, err error) {
	defer guard(&err, "readFile")
	v, err := s.do(ctx, "readFile", p)
	if err != nil {
		return nil, err
	}
	return bytesOf(v)
}

func (s jsStorage) DeleteFile(ctx context.Context, p string) (err error) {
	defer guard(&err, "deleteFile")
	_, err = s.do(ctx, "deleteFile", p)
	return err
}

func (s jsStorage) PathExists(ctx context.Context, p string) (_ bool, err error) {
	defer guard(&err, "pathExists")
	v, err := s.do(ctx, "pathExists", p)
	return v.Truthy(), err
}

func (s jsStorage) CreateFolder(ctx context.Context, p string) (err error) {
	defer guard(&err, "createFolder")
	_, err = s.do(ctx, "createFolder", p)
	return err
}

func (s jsStorage) DeleteFolder(ctx context.Context, p string) (err error) {
	defer guard(&err, "deleteFolder")
	_, err = s.do(ctx, "deleteFolder", p)
	return err
}

func (s jsStorage) GetDetails(ctx context.Context, p string) (_ core.FileDetails, err error) {
	defer guard(&err, "getDetails")
	v, err := s.do(ctx, "getDetails", p)
	if err != nil {
		return core.FileDetails{}, err
	}
	var d fileDetails
	if err := fromJSON(v, &d); err != nil {
		return core.FileDetails{}, fmt.Errorf("getDetails %q: %w", p, err)
	}
	return d.core(), nil
}

func (s jsStorage) ListFiles(ctx context.Context, p string, filter core.ListFilesFilter) (_ []core.FileDetails, err error) {
	defer guard(&err, "listFiles")
	if filter == "" {
		filter = core.ListAll
	}
	v, err := s.do(ctx, "listFiles", p, string(filter))
	if err != nil {
		return nil, err
	}
	var list []fileDetails
	if err := fromJSON(v, &list); err != nil {
		return nil, fmt.Errorf("listFiles %q: %w", p, err)
	}
	out := make([]core.FileDetails, len(list))
	for i, d := range list {
		out[i] = d.core()
	}
	return out, nil
}

// fileDetails is Vectra's FileDetails.
type fileDetails struct {
	Name     string `json:"name"`
	Path     string `json:"path"`
	IsFolder bool   `json:"isFolder"`
	FileType string `json:"fileType,omitempty"`
}

func (d fileDetails) core() core.FileDetails {
	return core.FileDetails{Name: d.Name, Path: d.Path, IsFolder: d.IsFolder, FileType: core.FileType(d.FileType)}
}

// detailsOf is d as Vectra's storages give it: a folder has no fileType.
func detailsOf(d core.FileDetails) fileDetails {
	out := fileDetails{Name: d.Name, Path: d.Path, IsFolder: d.IsFolder}
	if !d.IsFolder {
		out.FileType = string(d.FileType)
	}
	return out
}
