package core

import (
	"context"
	"errors"
	"maps"
	"slices"
	"sync"

	"github.com/foliovec/folio/core/jsvalue"

	"github.com/foliovec/folio/core/internal/bm25"
)

// bm25Index is the keyword index of hybrid queries over a snapshot's chunk
// items (items whose inline metadata has documentId, startPos and endPos):
// per term, the chunks holding it and how often, by serial (which deletes
// do not renumber); per slot, the chunk's length and terms. It is immutable
// once published. A commit derives the next one from its parent's: it
// copies the per-term list headers and rewrites only the lists of terms
// that chunks gained or lost, reading the text of new chunks' documents
// once per document. The first hybrid query on a snapshot with none builds
// it from every chunk.
type bm25Index struct {
	postings [][]bm25Posting // by term id, ascending serial
	docs     []*bm25Doc      // aligned with slots; nil: not an indexed chunk
	chunks   int
	totalLen int64
}

type bm25Posting struct {
	serial uint32
	tf     uint32
}

type bm25Doc struct {
	length int32 // terms in the chunk, stop words excluded
	terms  []bm25TermFreq
}

type bm25TermFreq struct {
	term uint32
	tf   uint32
}

// bm25Vocab numbers terms. It only grows; it is shared by every snapshot of
// a LocalIndex, behind its own lock.
type bm25Vocab struct {
	mu    sync.RWMutex
	ids   map[string]uint32
	terms []string // by id
}

// id returns term's number, assigning the next one to a new term.
func (v *bm25Vocab) id(term string) uint32 {
	v.mu.Lock()
	defer v.mu.Unlock()
	if id, ok := v.ids[term]; ok {
		return id
	}
	if v.ids == nil {
		v.ids = map[string]uint32{}
	}
	id := uint32(len(v.ids))
	v.ids[term] = id
	v.terms = append(v.terms, term)
	return id
}

// idsOf returns the numbers of terms, assigning new ones, under one lock.
func (v *bm25Vocab) idsOf(terms []string) []uint32 {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.ids == nil {
		v.ids = map[string]uint32{}
	}
	out := make([]uint32, len(terms))
	for i, term := range terms {
		id, ok := v.ids[term]
		if !ok {
			id = uint32(len(v.ids))
			v.ids[term] = id
			v.terms = append(v.terms, term)
		}
		out[i] = id
	}
	return out
}

// termsOf returns the terms numbered ids (each below the vocabulary's
// size).
func (v *bm25Vocab) termsOf(ids []uint32) []string {
	v.mu.RLock()
	defer v.mu.RUnlock()
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = v.terms[id]
	}
	return out
}

// lookup returns term's number, if it has one.
func (v *bm25Vocab) lookup(term string) (uint32, bool) {
	v.mu.RLock()
	defer v.mu.RUnlock()
	id, ok := v.ids[term]
	return id, ok
}

// bm25For returns the keyword index of s, building it on first use.
func (ix *LocalIndex) bm25For(ctx context.Context, s *snapshot) (*bm25Index, error) {
	if idx := s.bm25.Load(); idx != nil {
		return idx, nil
	}
	s.bm25Mu.Lock()
	defer s.bm25Mu.Unlock()
	if idx := s.bm25.Load(); idx != nil {
		return idx, nil
	}
	idx, err := ix.buildBM25(ctx, s)
	if err != nil {
		return nil, err
	}
	s.bm25.Store(idx)
	return idx, nil
}

// updateBM25 derives the keyword index of s, which batch b commits, from
// its base's, when the base has one. Failures are logged and leave s
// without one (the next hybrid query builds it).
func (ix *LocalIndex) updateBM25(ctx context.Context, b *batch, s *snapshot) {
	base := b.base
	old := base.bm25.Load()
	if old == nil || s == base {
		return
	}
	unchanged := func(i int) (int, bool) { return i, i < base.len() }
	if len(b.edits) > 0 || len(b.deleted) > 0 {
		unchanged = func(i int) (int, bool) {
			serial := s.serials[i]
			if serial >= base.nextSerial {
				return 0, false
			}
			p, found := slices.BinarySearch(base.serials, serial)
			if !found {
				return 0, false
			}
			if _, edited := b.edits[int32(p)]; edited {
				return 0, false
			}
			return p, true
		}
	}
	idx, err := ix.deriveBM25(ctx, s, base, old, unchanged)
	if err != nil {
		ix.log.Warn("core: update keyword index", "folder", ix.folder, "err", err)
		return
	}
	s.bm25.Store(idx)
}

// deriveBM25 builds the keyword index of s from old, the index of parent
// (nil parent: old is empty). unchanged(i) returns the parent slot that
// slot i of s is an unchanged copy of.
func (ix *LocalIndex) deriveBM25(ctx context.Context, s, parent *snapshot, old *bm25Index, unchanged func(i int) (int, bool)) (*bm25Index, error) {
	idx := &bm25Index{docs: make([]*bm25Doc, s.len()), chunks: old.chunks, totalLen: old.totalLen}
	kept := make([]bool, len(old.docs))
	var fresh []int
	for i := range s.len() {
		if p, ok := unchanged(i); ok {
			idx.docs[i] = old.docs[p]
			kept[p] = true
			continue
		}
		if _, _, _, ok := ChunkSpan(s.meta[i]); ok {
			fresh = append(fresh, i)
		}
	}
	if err := ix.indexChunks(ctx, s, fresh, idx.docs); err != nil {
		return nil, err
	}

	removed := map[uint32][]uint32{} // term → serials that lost it
	for p, d := range old.docs {
		if d == nil || kept[p] {
			continue
		}
		idx.chunks--
		idx.totalLen -= int64(d.length)
		for _, t := range d.terms {
			removed[t.term] = append(removed[t.term], parent.serials[p])
		}
	}
	added := map[uint32][]bm25Posting{}
	for _, i := range fresh {
		d := idx.docs[i]
		if d == nil {
			continue
		}
		idx.chunks++
		idx.totalLen += int64(d.length)
		for _, t := range d.terms {
			added[t.term] = append(added[t.term], bm25Posting{serial: s.serials[i], tf: t.tf})
		}
	}
	idx.postings = slices.Clone(old.postings)
	for t := range added {
		if int(t) >= len(idx.postings) {
			idx.postings = append(idx.postings, make([][]bm25Posting, int(t)+1-len(idx.postings))...)
		}
	}
	for t, serials := range removed {
		gone := make(map[uint32]bool, len(serials))
		for _, sr := range serials {
			gone[sr] = true
		}
		list := make([]bm25Posting, 0, len(idx.postings[t]))
		for _, p := range idx.postings[t] {
			if !gone[p.serial] {
				list = append(list, p)
			}
		}
		idx.postings[t] = list
	}
	for t, ps := range added {
		list := idx.postings[t]
		if _, rewritten := removed[t]; !rewritten {
			list = slices.Clip(list) // never append into a list the parent shares
		}
		list = append(list, ps...)
		if !slices.IsSortedFunc(list, cmpPostings) {
			slices.SortFunc(list, cmpPostings)
		}
		idx.postings[t] = list
	}
	return idx, nil
}

func cmpPostings(a, b bm25Posting) int {
	switch {
	case a.serial < b.serial:
		return -1
	case a.serial > b.serial:
		return 1
	}
	return 0
}

// indexChunks tokenizes the chunks at slots, reading each document's text
// once, and stores their entries in docs. A document that cannot be read
// leaves its chunks out (logged), as Vectra skips them; a cancelled ctx
// stops the build.
func (ix *LocalIndex) indexChunks(ctx context.Context, s *snapshot, slots []int, docs []*bm25Doc) error {
	byDoc := map[string][]int{}
	var order []string
	for _, i := range slots {
		id, _, _, _ := ChunkSpan(s.meta[i])
		if _, seen := byDoc[id]; !seen {
			order = append(order, id)
		}
		byDoc[id] = append(byDoc[id], i)
	}
	for _, id := range order {
		text, err := ix.docReader(ctx, id)
		if err != nil {
			if ctxErr := ctx.Err(); ctxErr != nil && errors.Is(err, ctxErr) {
				return ctxErr
			}
			ix.log.Warn("core: read document for keyword search", "folder", ix.folder, "document", id, "err", err)
			continue
		}
		units := jsvalue.UTF16(text)
		for _, i := range byDoc[id] {
			_, start, end, _ := ChunkSpan(s.meta[i])
			docs[i] = ix.bm25Doc(chunkText(units, start, end))
		}
	}
	return nil
}

// bm25Doc tokenizes one chunk's text.
func (ix *LocalIndex) bm25Doc(text string) *bm25Doc {
	tf := map[uint32]uint32{}
	var n int32
	bm25.Tokens(text, func(term string) {
		tf[ix.vocab.id(term)]++
		n++
	})
	d := &bm25Doc{length: n, terms: make([]bm25TermFreq, 0, len(tf))}
	for _, t := range slices.Sorted(maps.Keys(tf)) {
		d.terms = append(d.terms, bm25TermFreq{term: t, tf: tf[t]})
	}
	return d
}

// keywordHits returns up to k BM25 matches of query among the selected
// chunks that are not in exclude (the vector results), best first, equal
// scores in storage order; each a copy of the item with "isBm25": true
// added to a copy of its inline metadata, scored with its raw BM25 score.
// Document frequencies and the average length are those of every chunk in
// the snapshot (Vectra computed them over the eligible chunks of each
// query).
func (ix *LocalIndex) keywordHits(ctx context.Context, s *snapshot, sel selection, query string, k int, exclude []scored) ([]QueryResult, error) {
	if k <= 0 || sel.none || s.len() == 0 {
		return nil, nil
	}
	idx, err := ix.bm25For(ctx, s)
	if err != nil {
		return nil, err
	}
	if idx.chunks == 0 {
		return nil, nil
	}
	terms := map[uint32]bool{}
	bm25.Tokens(query, func(term string) {
		if id, ok := ix.vocab.lookup(term); ok && int(id) < len(idx.postings) {
			terms[id] = true
		}
	})
	skip := make(map[int32]bool, len(exclude))
	for _, h := range exclude {
		skip[h.slot] = true
	}
	eligible := map[int32]bool{}
	scores := map[int32]float64{}
	n := float64(idx.chunks)
	avgdl := float64(idx.totalLen) / n
	for _, t := range slices.Sorted(maps.Keys(terms)) {
		list := idx.postings[t]
		if len(list) == 0 {
			continue
		}
		df := float64(len(list))
		idf := bm25.IDF(n, df)
		for _, p := range list {
			i, found := slices.BinarySearch(s.serials, p.serial)
			if !found {
				continue
			}
			slot := int32(i)
			ok, seen := eligible[slot]
			if !seen {
				ok = !skip[slot] && sel.matches(slot)
				eligible[slot] = ok
			}
			if !ok {
				continue
			}
			scores[slot] += bm25.Score(idf, float64(p.tf), float64(idx.docs[slot].length), avgdl)
		}
	}
	ranked := make([]scored, 0, len(scores))
	for slot, sc := range scores {
		ranked = append(ranked, scored{key: sc, slot: slot})
	}
	slices.SortFunc(ranked, func(a, b scored) int {
		if a.better(b) {
			return -1
		}
		return 1
	})
	out := make([]QueryResult, 0, min(k, len(ranked)))
	for _, h := range ranked[:min(k, len(ranked))] {
		it := s.item(int(h.slot))
		md := make(Metadata, len(it.Metadata)+1)
		maps.Copy(md, it.Metadata)
		md["isBm25"] = true
		it.Metadata = md
		out = append(out, QueryResult{Item: it, Score: h.key})
	}
	return out, nil
}
