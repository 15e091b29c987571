package core

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/foliovec/folio/core/internal/render"
	"github.com/foliovec/folio/core/pathutil"
)

// exactLengthLimit is the longest text, in UTF-16 code units, whose token
// length GetLength counts exactly; longer texts are estimated (Vectra's
// 40,000).
const exactLengthLimit = 40000

// LocalDocument is a document stored in a document index: its text in
// "<id>.txt" and, when it was given metadata, the metadata in
// "<id><ext>" (ext the index codec's extension), both in the index folder.
//
// A LocalDocument reads its files on first use and caches what it read
// (not failures). It is safe for concurrent use.
type LocalDocument struct {
	folder    string
	storage   FileStorage
	codec     IndexCodec
	tokenizer Tokenizer
	id, uri   string

	mu       sync.Mutex
	text     *render.Text // nil until loaded
	meta     Metadata     // nil until loaded
	length   int
	hasLen   bool
	metaRead bool
}

// newLocalDocument returns the document id, known by uri, of the index in
// folder.
func newLocalDocument(folder string, storage FileStorage, codec IndexCodec, tok Tokenizer, id, uri string) *LocalDocument {
	return &LocalDocument{folder: folder, storage: storage, codec: codec, tokenizer: tok, id: id, uri: uri}
}

// ID is the document's id, the base name of its files.
func (doc *LocalDocument) ID() string { return doc.id }

// URI is the document's URI, its key in the catalog. It is "" for chunks
// whose document is not in the catalog.
func (doc *LocalDocument) URI() string { return doc.uri }

// FolderPath is the index folder holding the document's files.
func (doc *LocalDocument) FolderPath() string { return doc.folder }

// file returns the storage path of the document's file with ext, or an
// error wrapping ErrCorrupt when the id would leave the folder (ids read
// from files are not trusted).
func (doc *LocalDocument) file(ext string) (string, error) {
	name := doc.id + ext
	if strings.Contains(doc.id, "/") || !pathutil.IsLocal(name) {
		return "", fmt.Errorf("document id %q leaves the index folder: %w", doc.id, ErrCorrupt)
	}
	return pathutil.Join(doc.folder, name), nil
}

// LoadText returns the document's text, reading "<id>.txt" on first use.
// A missing file is an error wrapping fs.ErrNotExist.
func (doc *LocalDocument) LoadText(ctx context.Context) (string, error) {
	t, err := doc.loadText(ctx)
	if err != nil {
		return "", err
	}
	return t.String(), nil
}

func (doc *LocalDocument) loadText(ctx context.Context) (*render.Text, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	doc.mu.Lock()
	defer doc.mu.Unlock()
	if doc.text != nil {
		return doc.text, nil
	}
	p, err := doc.file(".txt")
	if err == nil {
		var raw []byte
		if raw, err = doc.storage.ReadFile(ctx, p); err == nil {
			doc.text = render.NewText(string(raw))
			return doc.text, nil
		}
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return nil, err
	}
	return nil, WrapOp(ctx, "read text of document", doc.uri, err)
}

// GetLength returns the document's length in tokens: exact for texts of at
// most 40,000 UTF-16 code units, else estimated as a quarter of the code
// units, rounded up (as Vectra does).
func (doc *LocalDocument) GetLength(ctx context.Context) (int, error) {
	t, err := doc.loadText(ctx)
	if err != nil {
		return 0, err
	}
	doc.mu.Lock()
	defer doc.mu.Unlock()
	if !doc.hasLen {
		doc.length = textTokenLength(doc.tokenizer, t)
		doc.hasLen = true
	}
	return doc.length, nil
}

// textTokenLength is GetLength's rule.
func textTokenLength(tok Tokenizer, t *render.Text) int {
	if n := t.Len16(); n > exactLengthLimit {
		return (n + 3) / 4
	}
	return len(tok.Encode(t.String()))
}

// HasMetadata reports whether the document has a metadata file,
// "<id><ext>" with the index codec's extension.
//
// Fix over Vectra, which looks for "<id>.json" whatever the codec, so that
// documents of protobuf indexes never have metadata there.
func (doc *LocalDocument) HasMetadata(ctx context.Context) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	p, err := doc.file(doc.codec.Extension())
	if err != nil {
		return false, err
	}
	ok, err := doc.storage.PathExists(ctx, p)
	if err != nil {
		return false, WrapOp(ctx, "has metadata of document", doc.uri, err)
	}
	return ok, nil
}

// LoadMetadata returns the metadata the document was stored with, read from
// "<id><ext>" with the index codec on first use. A document stored without
// metadata has no file: the error wraps fs.ErrNotExist. The returned map is
// shared: do not modify it.
func (doc *LocalDocument) LoadMetadata(ctx context.Context) (Metadata, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	doc.mu.Lock()
	defer doc.mu.Unlock()
	if doc.metaRead {
		return doc.meta, nil
	}
	p, err := doc.file(doc.codec.Extension())
	if err != nil {
		return nil, WrapOp(ctx, "load metadata of document", doc.uri, err)
	}
	raw, err := doc.storage.ReadFile(ctx, p)
	if err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return nil, err
		}
		return nil, WrapOp(ctx, "read metadata of document", doc.uri, err)
	}
	md, err := doc.codec.DeserializeMetadata(raw)
	if err != nil {
		return nil, WrapOp(ctx, "decode metadata of document", doc.uri, err)
	}
	if md == nil {
		md = Metadata{}
	}
	doc.meta, doc.metaRead = md, true
	return md, nil
}
