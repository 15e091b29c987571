package core

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

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
	text     *docText // nil until loaded
	meta     Metadata // nil until loaded
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
	if strings.Contains(doc.id, "/") || !isInsideRelPath(name) {
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
	return t.s, nil
}

func (doc *LocalDocument) loadText(ctx context.Context) (*docText, error) {
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
			doc.text = newDocText(string(raw))
			return doc.text, nil
		}
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return nil, err
	}
	return nil, wrapOp(ctx, "read text of document", doc.uri, err)
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
func textTokenLength(tok Tokenizer, t *docText) int {
	if n := t.len16(); n > exactLengthLimit {
		return (n + 3) / 4
	}
	return len(tok.Encode(t.s))
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
		return false, wrapOp(ctx, "has metadata of document", doc.uri, err)
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
		return nil, wrapOp(ctx, "load metadata of document", doc.uri, err)
	}
	raw, err := doc.storage.ReadFile(ctx, p)
	if err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return nil, err
		}
		return nil, wrapOp(ctx, "read metadata of document", doc.uri, err)
	}
	md, err := doc.codec.DeserializeMetadata(raw)
	if err != nil {
		return nil, wrapOp(ctx, "decode metadata of document", doc.uri, err)
	}
	if md == nil {
		md = Metadata{}
	}
	doc.meta, doc.metaRead = md, true
	return md, nil
}

// docText is a document's text with what it takes to cut it at UTF-16
// offsets (Vectra's positions) without converting the whole text per cut:
// for text that is not all ASCII, the byte offset of every UTF-16 code
// unit, computed once per document.
type docText struct {
	s string
	// at[i] is the byte offset of the character holding UTF-16 unit i
	// (both units of a surrogate pair map to the pair's character), and
	// at[len16] is len(s). nil when s is ASCII: unit i is byte i.
	at []int32
}

func newDocText(s string) *docText {
	t := &docText{s: s}
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return t
	}
	t.at = make([]int32, 0, len(s)+1)
	for i, r := range s {
		t.at = append(t.at, int32(i))
		if r >= 0x10000 {
			t.at = append(t.at, int32(i))
		}
	}
	t.at = append(t.at, int32(len(s)))
	return t
}

// len16 is the text's length in UTF-16 code units (JavaScript's length).
func (t *docText) len16() int {
	if t.at == nil {
		return len(t.s)
	}
	return len(t.at) - 1
}

// substring is JavaScript's text.substring(start, end) on UTF-16 offsets:
// both clamped to [0, len16] and swapped when start > end. An offset inside
// a surrogate pair takes in the whole character (JavaScript would cut it
// into a lone surrogate, which UTF-8 cannot hold).
func (t *docText) substring(start, end int) string {
	n := t.len16()
	start, end = min(max(start, 0), n), min(max(end, 0), n)
	if start > end {
		start, end = end, start
	}
	if t.at == nil {
		return t.s[start:end]
	}
	b := t.at[end]
	if end > 0 && end < n && t.at[end-1] == b {
		b = t.at[end+1] // end falls inside a surrogate pair
	}
	return t.s[t.at[start]:b]
}
