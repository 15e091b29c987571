package core

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/foliovec/folio/core/internal/meta"

	"github.com/foliovec/folio/core/internal/uuid"
)

// reservedChunkKeys are the chunk metadata keys a document index sets.
var reservedChunkKeys = [...]string{"documentId", "startPos", "endPos"}

// UpsertDocument stores text under uri, replacing the document stored there
// before, and returns it.
//
// As in Vectra: when the URI is known and its content hash
// (text, docType and metadata) is unchanged, nothing is done, no
// embedding requested, unless opts.Force; this holds for documents a
// Vectra 0.15 index stored. Otherwise the text is split with the chunking
// config, the docType being the config's, else docType, else the URI's
// text after its last "." (lowercased); the chunks are embedded in batches
// of at most the model's MaxTokens tokens (a longer chunk alone), with
// every "\n" replaced by a space; and each chunk becomes an item with
// metadata documentId, startPos, endPos and the document's metadata. The
// text is written to "<id>.txt" and, when metadata is not nil, the metadata
// to "<id><ext>".
//
// Fixes over Vectra: the embeddings are computed before anything is
// changed, and the old version is replaced by the new one in one commit,
// so a failure (of the embeddings or of a write) leaves the old version as
// it was and removes the new files; a changed document gets a new id, so
// that its files never overwrite the old version's. The metadata keys
// documentId, startPos and endPos, which Vectra let overwrite the chunk
// positions, are ErrInvalidArgument, as is a metadata value that is not a
// string, number or boolean. An empty batch is never sent.
//
// Inside a batch (BeginUpdate … EndUpdate) the change joins the batch and
// is committed with it, files included (they are written together, at the
// commit); otherwise it is committed when UpsertDocument returns. It is
// UpsertDocuments with one document: the same pipeline. No embeddings
// model is ErrEmbeddingsNotConfigured; embedding failures are
// *EmbeddingsError; a missing index is ErrIndexNotFound.
func (d *LocalDocumentIndex) UpsertDocument(ctx context.Context, uri, text, docType string, metadata Metadata, opts *UpsertDocumentOptions) (*LocalDocument, error) {
	var o UpsertDocumentsOptions
	if opts != nil {
		o.Force = opts.Force
	}
	out, err := d.upsertDocuments(ctx, "upsert document", uri, []DocumentInput{{URI: uri, Text: text, DocType: docType, Metadata: metadata}}, &o)
	if err != nil {
		return nil, err
	}
	return out[0], nil
}

// cleanDocument checks and cleans a document's metadata (nil stays nil:
// no metadata file) and returns it with the document's content hash.
func cleanDocument(text, docType string, metadata Metadata) (Metadata, string, error) {
	var md Metadata
	if metadata != nil {
		for _, k := range reservedChunkKeys {
			if _, ok := metadata[k]; ok {
				return nil, "", fmt.Errorf("metadata key %q is reserved for chunks: %w", k, ErrInvalidArgument)
			}
		}
		var err error
		if md, err = meta.Clean(metadata); err != nil {
			return nil, "", err
		}
	}
	hash, err := meta.ContentHash(text, docType, md)
	if err != nil {
		return nil, "", err
	}
	return md, hash, nil
}

// split cuts text into chunks with the chunking config and the docType
// rules of UpsertDocument.
func (d *LocalDocumentIndex) split(ctx context.Context, uri, text, docType string) ([]TextChunk, error) {
	cfg := d.chunking
	if cfg.DocType == "" {
		cfg.DocType = docType
	}
	if cfg.DocType == "" {
		if i := strings.LastIndexByte(uri, '.'); i >= 0 {
			cfg.DocType = strings.ToLower(uri[i+1:])
		}
	}
	s, err := NewTextSplitter(cfg)
	if err != nil {
		return nil, err
	}
	return s.SplitContext(ctx, text)
}

// embed makes one CreateEmbeddings call and checks that it returned one
// vector per input. A cancelled ctx is returned unchanged.
func (d *LocalDocumentIndex) embed(ctx context.Context, inputs []string) ([][]float32, error) {
	resp, err := d.embeddings.CreateEmbeddings(ctx, inputs)
	if ctxErr := ctx.Err(); ctxErr != nil && (err == nil || errors.Is(err, ctxErr)) {
		return nil, ctxErr
	}
	vectors, err := EmbeddingsOutput(resp, err, len(inputs))
	if err != nil {
		return nil, fmt.Errorf("generate embeddings: %w", err)
	}
	return vectors, nil
}

// writeDocument runs the changes, in order, in the open batch, or in a
// batch of its own that it commits, or cancels when a change or the commit
// fails; a change must leave the batch as it found it when it fails. After its own commit it
// drops the files of the documents it replaced or deleted (see
// IndexOptions.RetainDropped).
func (d *LocalDocumentIndex) writeDocument(ctx context.Context, changes ...func(e chunkEdits, p *docPending) error) error {
	prepare := func(ctx context.Context) error {
		_, err := d.catalogLocked(ctx)
		return err
	}
	// Each change is an op of the batch of its own (a failure keeps the
	// changes before it in a caller's batch). The pending catalog is taken
	// when a change runs: a rebase runs it again over the catalog another
	// process committed.
	ops := make([]func(chunkEdits) error, len(changes))
	for i, change := range changes {
		ops[i] = func(e chunkEdits) error { return change(e, d.pendingLocked(d.cat.Load())) }
	}
	return d.edit(ctx, prepare, ops...)
}

// upsert is one UpsertDocument's new version.
type upsert struct {
	uri, id, text, hash string
	md                  Metadata // nil: no metadata file
	chunks              []TextChunk
	vectors             [][]float32
}

// applyUpsert puts the new version u in batch b: its chunk items, its
// files (written by the commit), its catalog entry, and removes the old
// version's chunks. On failure it leaves b and p as they were.
func (d *LocalDocumentIndex) applyUpsert(ctx context.Context, e chunkEdits, p *docPending, u upsert) error {
	var files []*docFile
	if u.md != nil {
		raw, err := d.Codec().SerializeMetadata(u.md)
		if err != nil {
			return fmt.Errorf("serialize document metadata: %w", err)
		}
		files = append(files, &docFile{name: u.id + d.Codec().Extension(), content: raw, doc: u.id})
	}
	files = append(files, &docFile{name: u.id + ".txt", content: []byte(u.text), doc: u.id})
	d.scanChunks(e, p)

	positions := make([]int32, 0, len(u.chunks))
	for i, c := range u.chunks {
		md := make(Metadata, len(u.md)+3)
		for k, v := range u.md {
			md[k] = v
		}
		md["documentId"] = u.id
		md["startPos"] = float64(c.StartPos)
		md["endPos"] = float64(c.EndPos)
		pos, err := e.addChunk(ctx, IndexItem{ID: uuid.New(), Metadata: md, Vector: u.vectors[i]}, reservedChunkKeys[:])
		if err != nil {
			for _, pos := range positions {
				id, _, _ := e.itemAt(pos)
				e.drop(id)
			}
			return fmt.Errorf("add chunk %d: %w", i, err)
		}
		positions = append(positions, pos)
	}

	if old, ok := p.cat.URIToID[u.uri]; ok {
		delete(p.cat.IDToURI, old)
		d.removeDocument(e, p, old)
	} else {
		p.cat.Count++
	}
	p.cat.URIToID[u.uri] = u.id
	p.cat.IDToURI[u.id] = u.uri
	if p.cat.URIToHash == nil {
		p.cat.URIToHash = map[string]string{}
	}
	p.cat.URIToHash[u.uri] = u.hash
	p.files = append(p.files, files...)
	p.byDoc[u.id] = positions
	p.texts[u.id] = u.text
	d.rememberText(u.id, u.text, u.uri)
	return nil
}

// scanChunks indexes the batch's chunk items by document, once per batch,
// and removes those whose document is not in p's catalog (strays a crash
// left, or items written directly with chunk keys). Their files, if any,
// are left to Vacuum, which removes only files nothing refers to: a chunk
// key never names a file to delete.
func (d *LocalDocumentIndex) scanChunks(e chunkEdits, p *docPending) {
	if p.byDoc != nil {
		return
	}
	p.byDoc = map[string][]int32{}
	var stray []string
	for pos := range e.positions() {
		id, md, live := e.itemAt(pos)
		if !live {
			continue
		}
		doc, ok := meta.DocumentID(md)
		if !ok {
			continue
		}
		if _, kept := p.cat.IDToURI[doc]; kept {
			p.byDoc[doc] = append(p.byDoc[doc], pos)
			continue
		}
		stray = append(stray, id)
	}
	for _, id := range stray {
		e.drop(id)
	}
}

// removeDocument removes the chunk items of document id from b and retires
// its files: files this batch has yet to write are dropped, others become
// obsolete. It reports whether the files were already stored (and so will
// be removed after the commit).
func (d *LocalDocumentIndex) removeDocument(e chunkEdits, p *docPending, id string) bool {
	for _, pos := range p.byDoc[id] {
		item, md, live := e.itemAt(pos)
		if !live {
			continue
		}
		if doc, ok := meta.DocumentID(md); ok && doc == id {
			e.drop(item)
			p.retired[pos] = true
		}
	}
	delete(p.byDoc, id)
	delete(p.texts, id)
	d.forgetTexts(map[string]string{id: ""})
	pending := false
	var written []string
	kept := p.files[:0]
	for _, f := range p.files {
		if f.doc == id && !f.written && !f.tried {
			pending = true
			continue
		}
		if f.doc == id {
			// Written, or tried, by a failed commit of this batch:
			// kept for a cancel to remove, never written again, and
			// obsolete once the batch commits.
			f.written = true
			written = append(written, f.name)
		}
		kept = append(kept, f)
	}
	clear(p.files[len(kept):])
	p.files = kept
	if pending {
		p.obsolete = append(p.obsolete, written...)
		return false
	}
	p.obsolete = append(p.obsolete, d.documentFiles(id)...)
	return true
}

// DeleteDocument removes the document stored under uri: its chunks and
// catalog entry in one commit (or in the open batch), then its text and
// metadata files. An unknown URI is not an error. The files are dropped,
// not deleted at once: readers still on the previous state may read them
// (see IndexOptions.RetainDropped). Inside a batch they are dropped by
// EndUpdate.
func (d *LocalDocumentIndex) DeleteDocument(ctx context.Context, uri string) error {
	_, err := d.deleteDocuments(ctx, "delete document", uri, []string{uri})
	return err
}

// DeleteDocuments removes the documents stored under uris as DeleteDocument
// removes one, all in one commit (or in the open batch): a folder of
// thousands of documents goes in one rewrite of the index. Unknown URIs
// are skipped; it returns the URIs it removed, in the order given.
func (d *LocalDocumentIndex) DeleteDocuments(ctx context.Context, uris []string) ([]string, error) {
	return d.deleteDocuments(ctx, "delete documents", d.FolderPath(), uris)
}

func (d *LocalDocumentIndex) deleteDocuments(ctx context.Context, op, key string, uris []string) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	committed, err := d.catalog(ctx, op, key)
	if err != nil {
		return nil, err
	}
	known := false
	err = d.locked(ctx, func() error {
		view := d.viewLocked(committed)
		known = slices.ContainsFunc(uris, func(u string) bool { _, ok := view.URIToID[u]; return ok })
		return nil
	})
	if err != nil {
		return nil, err
	}
	if !known {
		return []string{}, nil
	}
	var removed []string
	err = d.writeDocument(ctx, func(e chunkEdits, p *docPending) error {
		removed = removed[:0]
		d.scanChunks(e, p)
		for _, uri := range uris {
			id, ok := p.cat.URIToID[uri]
			if !ok {
				continue
			}
			delete(p.cat.URIToID, uri)
			delete(p.cat.IDToURI, id)
			if p.cat.URIToHash != nil {
				delete(p.cat.URIToHash, uri)
			}
			p.cat.Count--
			d.removeDocument(e, p, id)
			removed = append(removed, uri)
		}
		return nil
	})
	if err != nil {
		return nil, WrapOp(ctx, op, key, err)
	}
	return removed, nil
}
