//go:build js && wasm

package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"io/fs"
	"math"
	"syscall/js"
	"time"

	"github.com/foliovec/folio/adapters/embed-onnx/wordpiece"
)

// The Go half of TransformersEmbeddings in a page: folio.js's
// transformers.js fetches the model's files and runs the model with
// onnxruntime-web; the tokenizer and the pooling are embedonnx's own
// (wordpiece), so a page's vectors are the native adapter's.

// newWordPieceTokenizer reads a tokenizer from the files a page fetched:
// an object of file name → bytes (tokenizer.json, vocab.txt,
// tokenizer_config.json, config.json; those missing are left out).
func newWordPieceTokenizer(args []js.Value) (any, error) {
	files := fileSet{}
	obj := arg(args, 0)
	if obj.Type() != js.TypeObject {
		return nil, invalid("the tokenizer needs its files")
	}
	keys := js.Global().Get("Object").Call("keys", obj)
	for i := range length(keys) {
		name := prop(keys, i).String()
		b, err := bytesOf(prop(obj, name))
		if err != nil {
			return nil, err
		}
		files[name] = b
	}
	return wordpiece.LoadFS(files, str(args, 1))
}

// wordPieceMethods are the tokenizer's methods beyond encode and decode,
// all answered at once.
func wordPieceMethods() map[string]method {
	m := tokenizerMethods()
	m["maxLength"] = func(_ context.Context, obj any, _ []js.Value) (any, error) {
		return obj.(*wordpiece.Tokenizer).MaxLength(), nil
	}
	// encodeBatch gives the model's inputs for a list of texts: ids
	// truncated to the model's length and padded to the longest, as
	// BigInt64Arrays of batch×seq, with each text's length.
	m["encodeBatch"] = func(_ context.Context, obj any, args []js.Value) (any, error) {
		tok := obj.(*wordpiece.Tokenizer)
		texts, err := stringsIn(arg(args, 0))
		if err != nil {
			return nil, err
		}
		ids := make([][]int, len(texts))
		seq := 0
		for i, t := range texts {
			ids[i] = tok.EncodeTruncated(t)
			seq = max(seq, len(ids[i]))
		}
		idBytes := make([]byte, 8*seq*len(texts))
		maskBytes := make([]byte, len(idBytes))
		lengths := make([]any, len(texts))
		for r, row := range ids {
			lengths[r] = len(row)
			for p := range seq {
				off := 8 * (r*seq + p)
				id, mask := tok.Pad(), 0
				if p < len(row) {
					id, mask = row[p], 1
				}
				binary.LittleEndian.PutUint64(idBytes[off:], uint64(id))
				binary.LittleEndian.PutUint64(maskBytes[off:], uint64(mask))
			}
		}
		out := js.Global().Get("Object").New()
		out.Set("ids", bigInt64Array(idBytes))
		out.Set("mask", bigInt64Array(maskBytes))
		out.Set("seq", seq)
		out.Set("lengths", js.ValueOf(lengths))
		return raw{out}, nil
	}
	return m
}

func bigInt64Array(b []byte) js.Value {
	u8 := uint8Array(b)
	return js.Global().Get("BigInt64Array").New(prop(u8, "buffer"), 0, len(b)/8)
}

// pool reduces the model's output (hidden: a Float32Array of
// batch×seq×dim) to one vector per text, as embedonnx does.
func pool(args []js.Value) (any, error) {
	hidden := float32s(arg(args, 0))
	batch, seq, dim := num(args, 1, 0), num(args, 2, 0), num(args, 3, 0)
	var lengths []int
	if err := fromJSON(arg(args, 4), &lengths); err != nil || len(lengths) != batch {
		return nil, invalid("pool needs one length per text")
	}
	if batch*seq*dim != len(hidden) {
		return nil, invalid("pool: %d values is not %d×%d×%d", len(hidden), batch, seq, dim)
	}
	p := wordpiece.Pooling(str(args, 5))
	if err := p.Validate(); err != nil {
		return nil, err
	}
	normalize := boolArg(args, 6, true)
	out := make([]any, batch)
	for r := range batch {
		v := wordpiece.Pool(hidden, r, seq, dim, lengths[r], p, normalize)
		b := make([]byte, 4*len(v))
		for i, f := range v {
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
		}
		out[r] = js.Global().Get("Float32Array").New(uint8Array(b).Get("buffer"))
	}
	return raw{js.ValueOf(out)}, nil
}

// fileSet is an fs.FS of a few files held in memory.
type fileSet map[string][]byte

func (f fileSet) Open(name string) (fs.File, error) {
	b, ok := f[name]
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return &memFile{Reader: bytes.NewReader(b), name: name, size: int64(len(b))}, nil
}

type memFile struct {
	*bytes.Reader
	name string
	size int64
}

func (m *memFile) Stat() (fs.FileInfo, error) { return m, nil }
func (m *memFile) Close() error               { return nil }
func (m *memFile) Name() string               { return m.name }
func (m *memFile) Size() int64                { return m.size }
func (m *memFile) Mode() fs.FileMode          { return 0o444 }
func (m *memFile) ModTime() time.Time         { return time.Time{} }
func (m *memFile) IsDir() bool                { return false }
func (m *memFile) Sys() any                   { return nil }
