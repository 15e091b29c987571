package bm25

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/foliovec/folio/core/internal/docfields"
	"github.com/foliovec/folio/core/jsvalue"
)

// Index is the keyword index over a snapshot's chunks: per term, the
// chunks holding it and how often, by serial (a number that deletes do not
// renumber); per slot, the chunk's length and terms. It is immutable once
// built: Derive makes the next one without touching it.
type Index struct {
	postings [][]Posting // by term id, ascending serial
	docs     []*Doc      // aligned with slots; nil: not an indexed chunk
	chunks   int
	totalLen int64
	// fieldLen sums the chunks' FieldLen.
	fieldLen [NumFields - 1]int64
}

// Posting is a chunk holding a term, by serial, and the term's frequency
// in it.
type Posting struct{ Serial, TF uint32 }

// Doc is one chunk's entry: its length in terms (stop words excluded), the
// lengths of its other fields, and its terms by vocabulary id, ascending,
// with their frequencies (a field's terms are its own vocabulary entries:
// FieldTerm).
type Doc struct {
	Length   int32
	FieldLen [NumFields - 1]int32 // Headings, Title, Name
	Terms    []TermFreq
}

// Field is a part of a chunk that keyword search weighs apart: its text,
// the headings above it, its document's title and its document's name.
type Field uint8

// The fields of a chunk.
const (
	Body Field = iota
	Headings
	Title
	Name
	NumFields
)

// FieldTerm is term as a term of field f in the vocabulary: the term
// itself for Body, else a control character naming f, then the term.
func FieldTerm(f Field, term string) string {
	if f == Body {
		return term
	}
	return string(rune(f)) + term
}

// Weights are how much a match in each field other than the body counts
// beside one in the body, in Scores (BM25F); 0 leaves the field out.
type Weights [NumFields - 1]float64

// fieldB is BM25's length normalisation of each field but the body's (B):
// a title or a name is short whatever its length, headings a little less
// so.
var fieldB = [NumFields - 1]float64{0.5, 0.3, 0.3}

// Docs returns the entries aligned with the snapshot's slots (nil for a
// slot that is not an indexed chunk). Do not change them.
func (idx *Index) Docs() []*Doc { return idx.docs }

// Chunks is the number of indexed chunks.
func (idx *Index) Chunks() int { return idx.chunks }

// NewIndex is the index of docs, aligned with a snapshot's slots and their
// serials (ascending): its posting lists are filled in slot order, so each
// is sorted by serial as built.
func NewIndex(docs []*Doc, serials []uint32) *Index {
	idx := &Index{docs: docs}
	var counts []int
	for _, d := range docs {
		if d == nil {
			continue
		}
		idx.chunks++
		idx.totalLen += int64(d.Length)
		idx.addFields(d, 1)
		for _, t := range d.Terms {
			if int(t.Term) >= len(counts) {
				counts = append(counts, make([]int, int(t.Term)+1-len(counts))...)
			}
			counts[t.Term]++
		}
	}
	idx.postings = make([][]Posting, len(counts))
	for t, n := range counts {
		if n > 0 {
			idx.postings[t] = make([]Posting, 0, n)
		}
	}
	for i, d := range docs {
		if d == nil {
			continue
		}
		for _, t := range d.Terms {
			idx.postings[t.Term] = append(idx.postings[t.Term], Posting{Serial: serials[i], TF: t.TF})
		}
	}
	return idx
}

// Derive returns the index of a new snapshot from old, its parent's. docs
// and serials are the new snapshot's, aligned with its slots; fresh lists
// the slots whose entries are new; kept[p] says that the parent's slot p
// is in the new snapshot unchanged, and oldSerials are the parent's
// serials. Only the lists of terms that chunks gained or lost are
// rewritten; the others are shared with old.
func (old *Index) Derive(docs []*Doc, serials []uint32, fresh []int, kept []bool, oldSerials []uint32) *Index {
	idx := &Index{docs: docs, chunks: old.chunks, totalLen: old.totalLen, fieldLen: old.fieldLen}
	removed := map[uint32][]uint32{} // term → serials that lost it
	for p, d := range old.docs {
		if d == nil || kept[p] {
			continue
		}
		idx.chunks--
		idx.totalLen -= int64(d.Length)
		idx.addFields(d, -1)
		for _, t := range d.Terms {
			removed[t.Term] = append(removed[t.Term], oldSerials[p])
		}
	}
	added := map[uint32][]Posting{}
	for _, i := range fresh {
		d := docs[i]
		if d == nil {
			continue
		}
		idx.chunks++
		idx.totalLen += int64(d.Length)
		idx.addFields(d, 1)
		for _, t := range d.Terms {
			added[t.Term] = append(added[t.Term], Posting{Serial: serials[i], TF: t.TF})
		}
	}
	idx.postings = slices.Clone(old.postings)
	for t := range added {
		if int(t) >= len(idx.postings) {
			idx.postings = append(idx.postings, make([][]Posting, int(t)+1-len(idx.postings))...)
		}
	}
	for t, serials := range removed {
		gone := make(map[uint32]bool, len(serials))
		for _, sr := range serials {
			gone[sr] = true
		}
		list := make([]Posting, 0, len(idx.postings[t]))
		for _, p := range idx.postings[t] {
			if !gone[p.Serial] {
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
	return idx
}

// addFields adds sign times d's field lengths to the index's sums.
func (idx *Index) addFields(d *Doc, sign int64) {
	for f, n := range d.FieldLen {
		idx.fieldLen[f] += sign * int64(n)
	}
}

func cmpPostings(a, b Posting) int {
	switch {
	case a.Serial < b.Serial:
		return -1
	case a.Serial > b.Serial:
		return 1
	}
	return 0
}

// Scores returns the Okapi BM25 score of every eligible chunk holding a
// term of query, by slot. slotOf finds a serial's slot in the snapshot;
// eligible says whether a slot may be scored (asked once per slot).
// Document frequencies and the average length are those of every chunk in
// the index. With weights w (none zero), a match counts in the chunk's
// other fields too, as BM25F combines them: a term's frequency in each
// field, normalised by that field's length against its average and
// weighed by w (1 for the body), is summed before BM25's saturation, and a
// chunk holds the term if any weighed field does; with zero weights it is
// BM25 over the body alone.
func (idx *Index) Scores(v *Vocab, query string, w Weights, slotOf func(serial uint32) (int32, bool), eligible func(slot int32) bool) map[int32]float64 {
	if idx.chunks == 0 {
		return nil
	}
	var words []string
	seen := map[string]bool{}
	Tokens(query, func(term string) {
		if !seen[term] {
			seen[term] = true
			words = append(words, term)
		}
	})
	slices.Sort(words)
	asked := map[int32]bool{}
	scores := map[int32]float64{}
	n := float64(idx.chunks)
	var avg [NumFields]float64
	avg[Body] = float64(idx.totalLen) / n
	for f := range NumFields - 1 {
		avg[f+1] = float64(idx.fieldLen[f]) / n
	}
	weight := [NumFields]float64{Body: 1}
	copy(weight[1:], w[:])
	type freqs [NumFields]uint32
	for _, word := range words {
		var lists [NumFields][]Posting
		fields := 0
		for f := range NumFields {
			if weight[f] <= 0 {
				continue
			}
			if id, ok := v.Lookup(FieldTerm(f, word)); ok && int(id) < len(idx.postings) && len(idx.postings[id]) > 0 {
				lists[f] = idx.postings[id]
				fields++
			}
		}
		if fields == 0 {
			continue
		}
		var df int
		var tf map[int32]*freqs
		if fields == 1 && lists[Body] != nil {
			df = len(lists[Body]) // the common case: no map
		} else {
			tf = map[int32]*freqs{}
			for f, list := range lists {
				for _, p := range list {
					slot, found := slotOf(p.Serial)
					if !found {
						continue
					}
					e := tf[slot]
					if e == nil {
						e = &freqs{}
						tf[slot] = e
					}
					e[f] = p.TF
				}
			}
			df = len(tf)
		}
		idf := IDF(n, float64(df))
		score := func(slot int32, fr *freqs) {
			ok, seen := asked[slot]
			if !seen {
				ok = eligible(slot)
				asked[slot] = ok
			}
			if !ok {
				return
			}
			d := idx.docs[slot]
			var sum float64
			for f := range NumFields {
				if fr[f] == 0 {
					continue
				}
				l, b := float64(d.Length), B
				if f > Body {
					l, b = float64(d.FieldLen[f-1]), fieldB[f-1]
				}
				norm := 1 - b
				if avg[f] > 0 {
					norm += b * l / avg[f]
				}
				sum += weight[f] * float64(fr[f]) / norm
			}
			scores[slot] += idf * sum * (K1 + 1) / (sum + K1)
		}
		if tf == nil {
			var fr freqs
			for _, p := range lists[Body] {
				if slot, found := slotOf(p.Serial); found {
					fr[Body] = p.TF
					score(slot, &fr)
				}
			}
			continue
		}
		for slot, fr := range tf {
			score(slot, fr)
		}
	}
	return scores
}

// Vocab numbers terms. It only grows; it is shared by every snapshot of an
// index. It is safe for concurrent use.
type Vocab struct {
	mu    sync.RWMutex
	ids   map[string]uint32
	terms []string // by id
}

// IDsOf returns the numbers of terms, assigning new ones, under one lock.
func (v *Vocab) IDsOf(terms []string) []uint32 {
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

// TermsOf returns the terms numbered ids (each below the vocabulary's
// size).
func (v *Vocab) TermsOf(ids []uint32) []string {
	v.mu.RLock()
	defer v.mu.RUnlock()
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = v.terms[id]
	}
	return out
}

// Lookup returns term's number, if it has one.
func (v *Vocab) Lookup(term string) (uint32, bool) {
	v.mu.RLock()
	defer v.mu.RUnlock()
	id, ok := v.ids[term]
	return id, ok
}

// Doc tokenizes one chunk's text into its entry, numbering new terms; the
// chunk's other fields are fields (Headings, Title, Name), "" for none.
func (v *Vocab) Doc(text string, fields [NumFields - 1]string) *Doc {
	var words []string
	Tokens(text, func(term string) { words = append(words, term) })
	d := &Doc{Length: int32(len(words))}
	for f, ft := range fields {
		Tokens(ft, func(term string) {
			words = append(words, FieldTerm(Field(f+1), term))
			d.FieldLen[f]++
		})
	}
	tf := map[uint32]uint32{}
	for _, id := range v.IDsOf(words) {
		tf[id]++
	}
	d.Terms = make([]TermFreq, 0, len(tf))
	for _, t := range slices.Sorted(maps.Keys(tf)) {
		d.Terms = append(d.Terms, TermFreq{Term: t, TF: tf[t]})
	}
	return d
}

// Saved is a chunk's entry read from a keyword file.
type Saved struct {
	DocID      string
	Start, End int
	Doc        *Doc
}

// Load returns the chunks of f by item id, their terms numbered in v.
func (v *Vocab) Load(f *File) map[string]Saved {
	ids := v.IDsOf(f.Terms)
	out := make(map[string]Saved, len(f.Chunks))
	for _, c := range f.Chunks {
		d := &Doc{Length: c.Length, FieldLen: c.FieldLen, Terms: make([]TermFreq, len(c.Terms))}
		for j, t := range c.Terms {
			d.Terms[j] = TermFreq{Term: ids[t.Term], TF: t.TF}
		}
		out[c.ID] = Saved{DocID: c.DocID, Start: c.Start, End: c.End, Doc: d}
	}
	return out
}

// Add appends a chunk's entry d to f, its terms renumbered in f's own
// vocabulary; call Finish once every chunk is added.
func (f *File) Add(id, docID string, start, end int, d *Doc) {
	if f.local == nil {
		f.local = map[uint32]uint32{}
	}
	c := Chunk{ID: id, DocID: docID, Start: start, End: end, Length: d.Length, FieldLen: d.FieldLen, Terms: make([]TermFreq, len(d.Terms))}
	for j, t := range d.Terms {
		k, ok := f.local[t.Term]
		if !ok {
			k = uint32(len(f.vocabIDs))
			f.local[t.Term] = k
			f.vocabIDs = append(f.vocabIDs, t.Term)
		}
		c.Terms[j] = TermFreq{Term: k, TF: t.TF}
	}
	f.Chunks = append(f.Chunks, c)
}

// Finish names the terms of the chunks added, from v.
func (f *File) Finish(v *Vocab) { f.Terms = v.TermsOf(f.vocabIDs) }

// Equal reports whether idx and o hold the same chunks, lengths and
// posting lists: an index derived commit by commit equals the one built
// from scratch.
func (idx *Index) Equal(o *Index) bool {
	if idx.chunks != o.chunks || idx.totalLen != o.totalLen || idx.fieldLen != o.fieldLen {
		return false
	}
	for t := range max(len(idx.postings), len(o.postings)) {
		var a, b []Posting
		if t < len(idx.postings) {
			a = idx.postings[t]
		}
		if t < len(o.postings) {
			b = o.postings[t]
		}
		if !slices.Equal(a, b) {
			return false
		}
	}
	return true
}

// Span is where a chunk's text lies: its document and inclusive UTF-16
// offsets into the document's text.
type Span struct {
	DocID      string
	Start, End int
}

// Tokenize stores in docs[slot] the entry of the chunk at each of slots,
// whose span is span(slot), reading each document's text (and name, its
// URI, "" when unknown) once through read: the chunk's text, the headings
// above it and in it, its document's title and name (package docfields).
// A document that cannot be read leaves its chunks out (skipped is told,
// as Vectra skips them); a ctx that ends stops it with ctx's error.
func (v *Vocab) Tokenize(ctx context.Context, slots []int, span func(slot int) Span, read func(ctx context.Context, docID string) (text, uri string, err error), docs []*Doc, skipped func(docID string, err error)) error {
	byDoc := map[string][]int{}
	var order []string
	for _, i := range slots {
		id := span(i).DocID
		if _, seen := byDoc[id]; !seen {
			order = append(order, id)
		}
		byDoc[id] = append(byDoc[id], i)
	}
	for _, id := range order {
		text, uri, err := read(ctx, id)
		if err != nil {
			if ctxErr := ctx.Err(); ctxErr != nil && errors.Is(err, ctxErr) {
				return ctxErr
			}
			skipped(id, err)
			continue
		}
		units := jsvalue.UTF16(text)
		fields := docfields.Parse(text, uri)
		for _, i := range byDoc[id] {
			sp := span(i)
			docs[i] = v.Doc(jsvalue.Substring(units, float64(sp.Start), float64(sp.End)+1), ChunkFields(fields, sp.Start, sp.End+1))
		}
	}
	return nil
}

// ChunkFields are the fields of a document's chunk at [start, end) (UTF-16
// units) other than its text, for Doc: the headings in effect at its start
// and those in it, its document's title (with its description) and name.
func ChunkFields(f *docfields.Fields, start, end int) [NumFields - 1]string {
	heads := append(f.Path(start), f.Within(start+1, end)...)
	title := f.Title
	if f.Description != "" {
		title += "\n" + f.Description
	}
	return [NumFields - 1]string{strings.Join(heads, "\n"), title, f.Name}
}

// Carry returns the entries of a new snapshot of n slots that old, its
// parent's index, already holds: docs[i] for each slot that unchanged maps
// to a parent slot (kept marks those), and the chunk slots (isChunk) that
// need tokenizing (fresh). Derive then makes the new index.
func (old *Index) Carry(n int, unchanged func(i int) (int, bool), isChunk func(i int) bool) (docs []*Doc, kept []bool, fresh []int) {
	docs, kept = make([]*Doc, n), make([]bool, len(old.docs))
	for i := range n {
		if p, ok := unchanged(i); ok {
			docs[i], kept[p] = old.docs[p], true
		} else if isChunk(i) {
			fresh = append(fresh, i)
		}
	}
	return docs, kept, fresh
}

// Reuse returns the entries a keyword file holds for a snapshot of n
// slots: docs[i] when saved has slot i's chunk (by item id, with the same
// span), and the chunk slots it lacks (fresh). stale reports that the file
// should be written again: it lacked chunks or held others.
func Reuse(saved map[string]Saved, n int, chunk func(i int) (id string, sp Span, ok bool)) (docs []*Doc, fresh []int, stale bool) {
	docs = make([]*Doc, n)
	reused := 0
	for i := range n {
		id, sp, ok := chunk(i)
		if !ok {
			continue
		}
		if c, hit := saved[id]; hit && c.DocID == sp.DocID && c.Start == sp.Start && c.End == sp.End {
			docs[i] = c.Doc
			reused++
			continue
		}
		fresh = append(fresh, i)
	}
	return docs, fresh, len(fresh) > 0 || reused != len(saved)
}
