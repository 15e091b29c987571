package core

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/foliovec/folio/core/internal/bm25"
	"github.com/foliovec/folio/core/internal/render"
	"github.com/foliovec/folio/core/internal/topk"
	"github.com/foliovec/folio/core/pathutil"
)

// The keyword index of hybrid queries (bm25.Index) covers a snapshot's
// chunk items, those whose inline metadata has documentId, startPos and
// endPos. It is immutable once published. A commit derives the next one
// from its parent's, reading the text of new chunks' documents once per
// document; the first hybrid query on a snapshot with none builds it, from
// the keyword file and from every chunk the file lacks.

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

// keywordSearch is an index's keyword search: the keyword index of its
// snapshots, the keyword file, the built-in BM25's vocabulary, and a
// KeywordScorer in its place when one is set.
type keywordSearch struct {
	files *files // the index's storage and codec
	names folderNames
	log   *slog.Logger
	// vocab numbers the terms of the keyword index.
	vocab bm25.Vocab
	// scorer is IndexOptions.KeywordScorer; weights the fields' weights of
	// rank fusion.
	scorer  KeywordScorer
	weights FieldWeights
	// source returns a document's text and URI (the document layer's, else
	// IndexOptions.DocReader's); readDocument its text.
	source       func(ctx context.Context, documentID string) (text, uri string, err error)
	readDocument func(ctx context.Context, documentID string) (string, error)
}

// bm25For returns the keyword index of s, building it on first use.
func (ks *keywordSearch) bm25For(ctx context.Context, s *snapshot) (*bm25.Index, error) {
	if idx := s.bm25.Load(); idx != nil {
		return idx, nil
	}
	s.bm25Mu.Lock()
	defer s.bm25Mu.Unlock()
	if idx := s.bm25.Load(); idx != nil {
		return idx, nil
	}
	idx, err := ks.buildBM25(ctx, s)
	if err != nil {
		return nil, err
	}
	s.bm25.Store(idx)
	return idx, nil
}

// updateBM25 derives the keyword index of s, which batch b commits, from
// its base's, when the base has one. Failures are logged and leave s
// without one (the next hybrid query builds it).
func (ks *keywordSearch) updateBM25(ctx context.Context, b *batch, s *snapshot) {
	base := b.base
	old := base.bm25.Load()
	if old == nil || s == base {
		return
	}
	unchanged := func(i int) (int, bool) { return i, i < base.len() && !s.isDead(i) }
	if !b.keepsBaseRows() {
		unchanged = func(i int) (int, bool) {
			serial := s.serials[i]
			if serial >= base.nextSerial {
				return 0, false
			}
			p, found := slices.BinarySearch(base.serials, serial)
			if !found {
				return 0, false
			}
			if b.gone(int32(p)) {
				// Replaced: a moved item takes its place's serial.
				return 0, false
			}
			return p, true
		}
	}
	docs, kept, fresh := old.Carry(s.len(), unchanged, func(i int) bool {
		_, _, _, ok := ChunkSpan(s.meta[i])
		return ok && !s.isDead(i)
	})
	if err := ks.indexChunks(ctx, s, fresh, docs); err != nil {
		ks.log.Warn("update keyword index", "folder", ks.names.folder, "err", err)
		return
	}
	s.bm25.Store(old.Derive(docs, s.serials, fresh, kept, base.serials))
}

// buildBM25 builds the keyword index of s from nothing: the terms of the
// chunks the keyword file holds, and the others tokenized. It rewrites the
// file when it lacked chunks or held chunks s no longer has.
func (ks *keywordSearch) buildBM25(ctx context.Context, s *snapshot) (*bm25.Index, error) {
	docs, fresh, stale := bm25.Reuse(ks.readKeywordFile(ctx), s.len(), func(i int) (string, bm25.Span, bool) {
		id, start, end, ok := ChunkSpan(s.meta[i])
		return s.ids[i], bm25.Span{DocID: id, Start: start, End: end}, ok && !s.isDead(i)
	})
	if err := ks.indexChunks(ctx, s, fresh, docs); err != nil {
		return nil, err
	}
	idx := bm25.NewIndex(docs, s.serials)
	if stale {
		ks.writeKeywordFile(ctx, s, docs)
	}
	return idx, nil
}

// indexChunks tokenizes the chunks at slots, reading each document's text
// once, and stores their entries in docs. A document that cannot be read
// leaves its chunks out (logged), as Vectra skips them; a cancelled ctx
// stops the build.
func (ks *keywordSearch) indexChunks(ctx context.Context, s *snapshot, slots []int, docs []*bm25.Doc) error {
	span := func(i int) bm25.Span {
		id, start, end, _ := ChunkSpan(s.meta[i])
		return bm25.Span{DocID: id, Start: start, End: end}
	}
	return ks.vocab.Tokenize(ctx, slots, span, ks.source, docs, func(id string, err error) {
		ks.log.Warn("read document for keyword search", "folder", ks.names.folder, "document", id, "err", err)
	})
}

// keywordHits returns up to k BM25 matches of query among the selected
// chunks that are not in exclude (the vector results), best first, equal
// scores in storage order; each a copy of the item with "isBm25": true
// added to a copy of its inline metadata, scored with its raw BM25 score.
// Document frequencies and the average length are those of every chunk in
// the snapshot (Vectra computed them over the eligible chunks of each
// query).
//
// With fields (rank fusion's keyword half) the built-in search weighs the
// chunks' fields as IndexOptions.FieldWeights says; without, it scores
// their text alone, as Vectra does.
func (ks *keywordSearch) keywordHits(ctx context.Context, s *snapshot, sel selection, query string, k int, exclude []topk.Scored, fields bool) ([]QueryResult, error) {
	if k <= 0 || sel.None || s.len() == 0 {
		return nil, nil
	}
	skip := make(map[int32]bool, len(exclude))
	for _, h := range exclude {
		skip[h.Slot] = true
	}
	eligible := func(slot int32) bool { return !skip[slot] && !s.isDead(int(slot)) && sel.Matches(slot) }
	var scores map[int32]float64
	var err error
	if ks.scorer != nil {
		scores, err = ks.scoreKeywords(ctx, s, query, eligible)
	} else {
		var w bm25.Weights
		if fields {
			w = ks.weights.bm25()
		}
		scores, err = ks.bm25Scores(ctx, s, query, w, eligible)
	}
	if err != nil {
		return nil, err
	}
	ranked := make([]topk.Scored, 0, len(scores))
	for slot, sc := range scores {
		ranked = append(ranked, topk.Scored{Key: sc, Slot: slot})
	}
	slices.SortFunc(ranked, s.compare)
	out := make([]QueryResult, 0, min(k, len(ranked)))
	for _, h := range ranked[:min(k, len(ranked))] {
		it, err := s.item(ctx, int(h.Slot))
		if err != nil {
			return nil, err
		}
		md := make(Metadata, len(it.Metadata)+1)
		maps.Copy(md, it.Metadata)
		md["isBm25"] = true
		it.Metadata = md
		out = append(out, QueryResult{Item: it, Score: h.Key})
	}
	return out, nil
}

// bm25Scores are the built-in BM25 scores of the eligible chunks that match
// query, by slot.
func (ks *keywordSearch) bm25Scores(ctx context.Context, s *snapshot, query string, w bm25.Weights, eligible func(slot int32) bool) (map[int32]float64, error) {
	idx, err := ks.bm25For(ctx, s)
	if err != nil {
		return nil, err
	}
	slotOf := func(serial uint32) (int32, bool) {
		i, found := slices.BinarySearch(s.serials, serial)
		return int32(i), found
	}
	return idx.Scores(&ks.vocab, query, w, slotOf, eligible), nil
}

// scoreKeywords are IndexOptions.KeywordScorer's scores of the eligible
// chunks' texts, by slot, for those above 0. A chunk without a span, or
// whose document cannot be read (logged), is left out, as the built-in
// search leaves it out.
func (ks *keywordSearch) scoreKeywords(ctx context.Context, s *snapshot, query string, eligible func(slot int32) bool) (map[int32]float64, error) {
	docs := map[string]*render.Text{}
	var slots []int32
	var texts []string
	for i := range s.len() {
		slot := int32(i)
		id, start, end, ok := ChunkSpan(s.meta[i])
		if !ok || !eligible(slot) {
			continue
		}
		t, read := docs[id]
		if !read {
			raw, err := ks.readDocument(ctx, id)
			if err != nil {
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				ks.log.Warn("read document for keyword search", "folder", ks.names.folder, "document", id, "err", err)
			} else {
				t = render.NewText(raw)
			}
			docs[id] = t
		}
		if t != nil {
			slots, texts = append(slots, slot), append(texts, t.Substring(start, end+1))
		}
	}
	if len(texts) == 0 {
		return nil, nil
	}
	scores, err := ks.scorer.ScoreKeywords(ctx, query, texts)
	if err != nil {
		return nil, fmt.Errorf("score keywords: %w", err)
	}
	if len(scores) != len(texts) {
		return nil, fmt.Errorf("score keywords: %d scores for %d texts: %w", len(scores), len(texts), ErrInvalidArgument)
	}
	out := map[int32]float64{}
	for i, sc := range scores {
		if sc > 0 {
			out[slots[i]] = sc
		}
	}
	return out, nil
}

// readKeywordFile returns the chunks of the folder's keyword file by item
// id; none when there is no file or it is not valid (it is then rebuilt).
func (ks *keywordSearch) readKeywordFile(ctx context.Context) map[string]bm25.Saved {
	raw, err := ks.files.storage.ReadFile(ctx, ks.names.path(keywordFileName))
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			ks.log.Debug("read the keyword file", "folder", ks.names.folder, "err", err)
		}
		return nil
	}
	f, err := bm25.Decode(raw)
	if err != nil {
		ks.log.Debug("the keyword file is not valid; it is rebuilt", "folder", ks.names.folder, "err", err)
		return nil
	}
	return ks.vocab.Load(f)
}

// writeKeywordFile replaces the folder's keyword file with the chunks of
// docs, on storage that can lock folders. A failure (a read-only folder)
// is logged at debug level: the file is an optimisation.
func (ks *keywordSearch) writeKeywordFile(ctx context.Context, s *snapshot, docs []*bm25.Doc) {
	if !ks.files.locks {
		return
	}
	f := &bm25.File{}
	for i, d := range docs {
		if d == nil {
			continue
		}
		docID, start, end, _ := ChunkSpan(s.meta[i])
		if start < 0 || end < 0 || end > math.MaxInt32 {
			continue // a span the file cannot hold: tokenized each time
		}
		f.Add(s.ids[i], docID, start, end, d)
	}
	f.Finish(&ks.vocab)
	if err := ks.files.storage.UpsertFile(ctx, ks.names.path(keywordFileName), bm25.Encode(f)); err != nil {
		ks.log.Debug("write the keyword file", "folder", ks.names.folder, "err", err)
	}
}

// readDocumentText is the default IndexOptions.DocReader: the text of
// "<documentID>.txt" in the index folder, as Vectra's LocalDocument reads
// it. An id that would leave the folder is ErrInvalidArgument.
func (ks *keywordSearch) readDocumentText(ctx context.Context, documentID string) (string, error) {
	name := documentID + ".txt"
	if !pathutil.IsLocal(name) {
		return "", fmt.Errorf("document id %q leaves the index folder: %w", documentID, ErrInvalidArgument)
	}
	raw, err := ks.files.storage.ReadFile(ctx, ks.names.path(name))
	if err != nil {
		return "", err
	}
	return string(raw), nil
}

// FieldWeights are the weights of a chunk's fields in the keyword half of
// rank fusion (IndexOptions.FieldWeights), each beside the weight 1 of its
// text: a query word in the chunk's headings, its document's title or its
// document's name counts Headings, Title or Name times as much as one in
// its text (BM25F: the frequencies are summed before BM25's saturation,
// each field normalised by its own length). 0 leaves a field out.
type FieldWeights struct {
	Headings, Title, Name float64
}

// DefaultFieldWeights returns IndexOptions.FieldWeights' default, measured
// with make eval on Go's documentation (the development set; see
// docs/benchmarks.md).
func DefaultFieldWeights() FieldWeights { return FieldWeights{Headings: 1.5, Title: 2, Name: 2} }

// String is the weights as ParseFieldWeights reads them:
// "headings=1.5,title=2,name=2".
func (w FieldWeights) String() string {
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	return "headings=" + f(w.Headings) + ",title=" + f(w.Title) + ",name=" + f(w.Name)
}

// ParseFieldWeights reads weights written as String writes them; a field
// left out keeps its DefaultFieldWeights weight. A weight that is not a
// finite number of at least 0, or an unknown field, is ErrInvalidArgument.
func ParseFieldWeights(s string) (FieldWeights, error) {
	w := DefaultFieldWeights()
	for part := range strings.SplitSeq(s, ",") {
		if strings.TrimSpace(part) == "" {
			continue
		}
		name, value, ok := strings.Cut(part, "=")
		v, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
		if !ok || err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
			return w, fmt.Errorf("field weight %q: want name=weight, a number of at least 0: %w", part, ErrInvalidArgument)
		}
		switch strings.TrimSpace(name) {
		case "headings":
			w.Headings = v
		case "title":
			w.Title = v
		case "name":
			w.Name = v
		default:
			return w, fmt.Errorf("field weight %q: the fields are headings, title and name: %w", part, ErrInvalidArgument)
		}
	}
	return w, nil
}

func (w FieldWeights) bm25() bm25.Weights {
	return bm25.Weights{max(0, w.Headings), max(0, w.Title), max(0, w.Name)}
}
