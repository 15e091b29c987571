package core

import (
	"context"
	"errors"
	"io/fs"
	"math"

	"github.com/foliovec/folio/core/internal/bm25"
)

// keywordFileName is the file of Folio's own, in an index folder, that
// keeps the terms of every chunk the keyword index holds, so that the first
// hybrid query of a new process (each `folio query --bm25`, a server
// starting) reads them instead of reading and tokenizing every document
// again. Vectra ignores it. Entries are keyed by chunk item id and span, so
// the file is never wrong, only incomplete: chunks it lacks (added since it
// was written) are tokenized and the file rewritten. It is written only on
// storage that can lock folders (local files, memory), where readers may
// write; elsewhere (object storage, read by many servers) it is only read.
const keywordFileName = ".folio-keywords"

// savedChunk is a chunk's entry read from the keyword file.
type savedChunk struct {
	docID      string
	start, end int
	doc        *bm25Doc
}

// buildBM25 builds the keyword index of s from nothing: the terms of the
// chunks the keyword file holds, and the others tokenized. It rewrites the
// file when it lacked chunks or held chunks s no longer has.
func (ix *LocalIndex) buildBM25(ctx context.Context, s *snapshot) (*bm25Index, error) {
	saved := ix.readKeywordFile(ctx)
	docs := make([]*bm25Doc, s.len())
	var fresh []int
	reused := 0
	for i := range s.len() {
		docID, start, end, ok := ChunkSpan(s.meta[i])
		if !ok {
			continue
		}
		if c, hit := saved[s.ids[i]]; hit && c.docID == docID && c.start == start && c.end == end {
			docs[i] = c.doc
			reused++
			continue
		}
		fresh = append(fresh, i)
	}
	if err := ix.indexChunks(ctx, s, fresh, docs); err != nil {
		return nil, err
	}
	idx := newBM25Index(docs, s.serials)
	if len(fresh) > 0 || reused != len(saved) {
		ix.writeKeywordFile(ctx, s, docs)
	}
	return idx, nil
}

// newBM25Index is the keyword index of docs, aligned with a snapshot's
// slots and their serials (ascending): its posting lists are filled in slot
// order, so each is sorted by serial as built.
func newBM25Index(docs []*bm25Doc, serials []uint32) *bm25Index {
	idx := &bm25Index{docs: docs}
	var counts []int
	for _, d := range docs {
		if d == nil {
			continue
		}
		idx.chunks++
		idx.totalLen += int64(d.length)
		for _, t := range d.terms {
			if int(t.term) >= len(counts) {
				counts = append(counts, make([]int, int(t.term)+1-len(counts))...)
			}
			counts[t.term]++
		}
	}
	idx.postings = make([][]bm25Posting, len(counts))
	for t, n := range counts {
		if n > 0 {
			idx.postings[t] = make([]bm25Posting, 0, n)
		}
	}
	for i, d := range docs {
		if d == nil {
			continue
		}
		for _, t := range d.terms {
			idx.postings[t.term] = append(idx.postings[t.term], bm25Posting{serial: serials[i], tf: t.tf})
		}
	}
	return idx
}

// readKeywordFile returns the chunks of the folder's keyword file by item
// id; none when there is no file or it is not valid (it is then rebuilt).
func (ix *LocalIndex) readKeywordFile(ctx context.Context) map[string]savedChunk {
	raw, err := ix.storage.ReadFile(ctx, ix.path(keywordFileName))
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			ix.log.Debug("core: read the keyword file", "folder", ix.folder, "err", err)
		}
		return nil
	}
	f, err := bm25.Decode(raw)
	if err != nil {
		ix.log.Debug("core: the keyword file is not valid; it is rebuilt", "folder", ix.folder, "err", err)
		return nil
	}
	ids := ix.vocab.idsOf(f.Terms)
	out := make(map[string]savedChunk, len(f.Chunks))
	for _, c := range f.Chunks {
		d := &bm25Doc{length: c.Length, terms: make([]bm25TermFreq, len(c.Terms))}
		for j, t := range c.Terms {
			d.terms[j] = bm25TermFreq{term: ids[t.Term], tf: t.TF}
		}
		out[c.ID] = savedChunk{docID: c.DocID, start: c.Start, end: c.End, doc: d}
	}
	return out
}

// writeKeywordFile replaces the folder's keyword file with the chunks of
// docs, on storage that can lock folders. A failure (a read-only folder)
// is logged at debug level: the file is an optimisation.
func (ix *LocalIndex) writeKeywordFile(ctx context.Context, s *snapshot, docs []*bm25Doc) {
	if _, ok := ix.storage.(FolderLocker); !ok {
		return
	}
	f := &bm25.File{}
	local := map[uint32]uint32{} // vocabulary id → index in f.Terms
	var vocabIDs []uint32
	for i, d := range docs {
		if d == nil {
			continue
		}
		docID, start, end, _ := ChunkSpan(s.meta[i])
		if start < 0 || end < 0 || end > math.MaxInt32 {
			continue // a span the file cannot hold: tokenized each time
		}
		c := bm25.Chunk{ID: s.ids[i], DocID: docID, Start: start, End: end, Length: d.length, Terms: make([]bm25.TermFreq, len(d.terms))}
		for j, t := range d.terms {
			k, ok := local[t.term]
			if !ok {
				k = uint32(len(vocabIDs))
				local[t.term] = k
				vocabIDs = append(vocabIDs, t.term)
			}
			c.Terms[j] = bm25.TermFreq{Term: k, TF: t.tf}
		}
		f.Chunks = append(f.Chunks, c)
	}
	f.Terms = ix.vocab.termsOf(vocabIDs)
	if err := ix.storage.UpsertFile(ctx, ix.path(keywordFileName), bm25.Encode(f)); err != nil {
		ix.log.Debug("core: write the keyword file", "folder", ix.folder, "err", err)
	}
}
