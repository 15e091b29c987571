package core

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/foliovec/folio/core/internal/ivf"
	"github.com/foliovec/folio/core/internal/scan"

	"github.com/foliovec/folio/core/internal/bm25"
	"github.com/foliovec/folio/core/internal/filter"
	"github.com/foliovec/folio/core/internal/slotmap"
	"github.com/foliovec/folio/core/internal/topk"
	"github.com/foliovec/folio/core/internal/vecmath"
	"github.com/foliovec/folio/core/pathutil"
)

// snapshot is one committed state of an index. It is never modified after
// it is published (the BM25 keyword index is filled in lazily, once, behind
// its own synchronisation), so any number of readers use it without locks
// while a writer builds the next one.
//
// Items live in columns indexed by slot, in storage order. When every
// vector has the same length the vectors are one contiguous row-major
// arena; a file written by another tool with vectors of different lengths
// keeps one slice per item instead (mixed), and queries take a slower path
// with Vectra's prefix semantics.
type snapshot struct {
	version int
	config  MetadataConfig

	ids   []string
	meta  []Metadata // inline metadata, shared read-only with callers
	files sideCars   // side-car file names, "" when none
	norms []float64  // the norm reported as IndexItem.Norm (as read from the file, or computed on insert)

	// Rows are the vectors, as the scan reads them: one arena when every
	// vector has the same length, else one slice per slot (Mixed), and each
	// one's scoring scale (vecmath.FastScale of the vector alone, so equal
	// vectors score equal whatever path stored them; 0 for a vector with
	// no direction, which scores 0 and ranks after every other item).
	scan.Rows

	idMap *idIndex // id → first slot holding it; see slotMap

	// serials are stable, strictly increasing item numbers aligned with
	// slots; the BM25 keyword index refers to items by serial so that a
	// delete does not renumber it.
	serials    []uint32
	nextSerial uint32

	postings *filter.Postings // posting lists of the indexed metadata fields

	// dead marks the slots of items a commit deleted or replaced without
	// rebuilding the columns (bit i%64 of dead[i/64]); ndead counts them.
	// Readers skip them: queries ask the scans for ndead more results and
	// drop these. A commit rebuilds the columns once they would be more
	// than maxDead. Published bitsets are never modified.
	dead  []uint64
	ndead int

	// moved and placeOf place the items a commit replaced without
	// rebuilding the columns at their old places in storage order (see
	// places.go); nil when none.
	moved, placeOf map[int32]int32

	quant atomic.Pointer[coarse] // codes for the quantized scan; nil unless the index uses it

	bm25   atomic.Pointer[bm25.Index] // nil until the first hybrid query, or a commit derives it
	bm25Mu sync.Mutex                 // serialises the lazy BM25 build
}

// len is the number of slots, dead ones included.
func (s *snapshot) len() int { return len(s.ids) }

// count is the number of items: the live slots.
func (s *snapshot) count() int { return len(s.ids) - s.ndead }

// isDead reports whether slot i holds a deleted or replaced item.
func (s *snapshot) isDead(i int) bool {
	w := i >> 6
	return s.ndead > 0 && w < len(s.dead) && s.dead[w]&(1<<(uint(i)&63)) != 0
}

// maxDead is the most dead slots a snapshot of n slots keeps before a
// commit rebuilds its columns: few enough that queries skip them for
// nothing measurable, many enough that a commit deleting or replacing
// items rarely copies every vector.
func maxDead(n int) int { return min(max(n/256, 256), 4096) }

// markDead marks the slots below n among positions dead, on a copy of the
// bitset (s's own, shared with its base until now).
func (s *snapshot) markDead(positions map[int32]bool, n int) {
	var dead []uint64
	for p := range positions {
		if int(p) >= n {
			continue
		}
		if dead == nil {
			dead = make([]uint64, (n+63)/64)
			copy(dead, s.dead)
		}
		w, bit := int(p)>>6, uint64(1)<<(uint(p)&63)
		if dead[w]&bit == 0 {
			dead[w] |= bit
			s.ndead++
		}
	}
	if dead != nil {
		s.dead = dead
	}
}

// liveSlots returns the live slots in lo..hi-1, ascending.
func (s *snapshot) liveSlots(lo, hi int) []int32 {
	out := make([]int32, 0, hi-lo)
	for i := lo; i < hi; i++ {
		if !s.isDead(i) {
			out = append(out, int32(i))
		}
	}
	return out
}

// dropDead removes the hits on dead slots and keeps the best k.
func (s *snapshot) dropDead(hits []topk.Scored, k int) []topk.Scored {
	if s.ndead == 0 {
		return hits
	}
	out := hits[:0]
	for _, h := range hits {
		if !s.isDead(int(h.Slot)) {
			out = append(out, h)
		}
	}
	return out[:min(len(out), k)]
}

// item returns slot i as an IndexItem sharing the snapshot's memory, but
// for a vector read from a file, which it copies. Only a row that is not
// in memory can fail to read.
func (s *snapshot) item(ctx context.Context, i int) (IndexItem, error) {
	it := s.sharedItem(i)
	if s.InHead(i) {
		// A mapped file's memory must not outlive the snapshots that pin
		// it: a caller gets its own copy, read from the file when the
		// rows can be (Fetch keeps the mapping's pages out of memory).
		v := make([]float32, s.Dim)
		if err := s.ReadVector(ctx, v, i); err != nil {
			if it.Vector == nil {
				return IndexItem{}, fmt.Errorf("read the vector of item %q: %w", it.ID, err)
			}
			copy(v, it.Vector)
		}
		it.Vector = v
	}
	return it, nil
}

// sharedItem is item i with its vector shared with the rows, Head's too:
// for use while s is held (writing it to a file).
func (s *snapshot) sharedItem(i int) IndexItem {
	return IndexItem{
		ID:           s.ids[i],
		Metadata:     s.meta[i],
		Vector:       s.Vector(i),
		Norm:         s.norms[i],
		MetadataFile: s.files.at(i),
	}
}

// source is the content to serialise, item by item. Vectors share the
// arena; those of rows left in their files are read (ctx bounds the
// reads), and failed reports a failure to read one: what was serialised
// is then not to be used.
func (s *snapshot) source(ctx context.Context) (src IndexSource, failed func() error) {
	item := s.sharedItem
	failed = func() error { return nil }
	if err := s.verifyHead(ctx, 0, s.len()); err != nil {
		failed = func() error { return err }
	} else if s.FetchOnly() {
		rr := &rowReader{ctx: ctx, s: s}
		item, failed = rr.item, func() error { return rr.err }
	}
	src = IndexSource{Version: s.version, MetadataConfig: cloneConfig(s.config), Len: s.len(), Item: item}
	if s.ndead > 0 {
		live := s.storageOrder()
		src.Len, src.Item = len(live), func(i int) IndexItem { return item(int(live[i])) }
	}
	return src, failed
}

func cloneConfig(c MetadataConfig) MetadataConfig {
	if c.Indexed == nil {
		return MetadataConfig{}
	}
	return MetadataConfig{Indexed: slices.Clone(c.Indexed)}
}

// newEmptySnapshot is the state of a freshly created index.
func newEmptySnapshot(version int, config MetadataConfig) *snapshot {
	s := &snapshot{version: version, config: cloneConfig(config), Rows: scan.Rows{Dim: -1, Gen: new(scan.Lineage)}, idMap: readyIDs(slotmap.New(nil), false)}
	s.postings = filter.BuildPostings(s.config.Indexed, s.meta)
	return s
}

// snapshotFromData builds a snapshot from a decoded index file. It takes
// ownership of data and of arena, the array the decoder placed the vectors
// in (nil if unknown; see VectorArenaDecoder). Side-car names that would
// leave the index folder make the file corrupt.
func snapshotFromData(data IndexData, arena []float32) (*snapshot, error) {
	return snapshotWithDead(data, vectors{arena: arena}, nil, 0)
}

// vectors is where the items' vectors of a loaded index are: arena, as
// snapshotFromData takes it, after head, the first rows read in place from
// a mapped file that pin keeps mapped.
type vectors struct {
	arena      []float32
	head       []scan.Part // the first rows, read in place (scan.Rows.Head)
	dim        int         // the length of head's rows
	pin        any
	headScales []float64 // the scales of head's rows, when known
}

// sideCars is a snapshot's column of side-car file names, one a row, ""
// for a row without one; rows past its end have none. Most indexes have no
// side-cars at all, and their column stays empty: at 10M rows a column of
// empty names took 171 MB.
type sideCars []string

// at is row i's side-car, "" for none.
func (c sideCars) at(i int) string {
	if i < len(c) {
		return c[i]
	}
	return ""
}

// with returns c with row i's side-car f, for rows given in increasing
// order, each at or past c's end (a new snapshot's rows, or a commit's
// appended ones): a row without one leaves c as it is.
func (c sideCars) with(i int, f string) sideCars {
	if f == "" {
		return c
	}
	for len(c) < i {
		c = append(c, "")
	}
	return append(c[:i], f)
}

// snapshotWithDead is snapshotFromData with the rows marked in dead (bit
// i%64 of dead[i/64]; ndead of them) kept as dead slots: the id map names
// only live rows.
func snapshotWithDead(data IndexData, vec vectors, dead []uint64, ndead int) (*snapshot, error) {
	n := len(data.Items)
	room := ArenaRoom(n)
	s := &snapshot{
		version: data.Version,
		config:  cloneConfig(data.MetadataConfig),
		// The columns have the arena's room for the first commits'
		// inserts, which then append in place instead of copying them.
		ids:        make([]string, n, room),
		meta:       make([]Metadata, n, room),
		norms:      make([]float64, n, room),
		Rows:       scan.Rows{Scale: make([]float64, n, room), Dim: -1},
		serials:    make([]uint32, n, room),
		nextSerial: uint32(n),
	}
	if ndead > 0 {
		s.dead, s.ndead = dead, ndead
	}
	for i := range data.Items {
		it := &data.Items[i]
		if it.MetadataFile != "" && !pathutil.IsLocal(it.MetadataFile) {
			return nil, fmt.Errorf("item %q: metadataFile %q leaves the index folder: %w", it.ID, it.MetadataFile, ErrCorrupt)
		}
		s.ids[i] = it.ID
		s.meta[i] = it.Metadata
		if it.Metadata == nil {
			s.meta[i] = Metadata{}
		}
		s.files = s.files.with(i, it.MetadataFile)
		s.norms[i] = it.Norm
		s.serials[i] = uint32(i)
	}
	// The id map is built apart (see idIndex): a query needs none.
	s.idMap = s.lazyIDs(n, ndead)
	// A mixed index keeps views of the mapped rows too: Pin holds them.
	s.Pin = vec.pin
	s.Gen = new(scan.Lineage)
	if h := headRows(vec.head); h > 0 && uniformDim(data.Items[h:], vec.dim) {
		s.Dim, s.Head, s.Arena = vec.dim, vec.head, vec.arena
		if h := s.HeadRows(); len(vec.headScales) == h {
			copy(s.Scale, vec.headScales)
			s.computeScalesFrom(h)
		} else {
			s.computeScales()
		}
	} else if !s.setVectors(data.Items, vec.arena, true) {
		s.computeScales()
	}
	s.postings = filter.BuildPostings(s.config.Indexed, s.meta)
	return s, nil
}

// headRows is the rows of parts.
func headRows(parts []scan.Part) int {
	n := 0
	for _, p := range parts {
		n += p.N
	}
	return n
}

// uniformDim reports whether the items' vectors all have length d.
func uniformDim(items []IndexItem, d int) bool {
	for i := range items {
		if len(items[i].Vector) != d {
			return false
		}
	}
	return true
}

// uniform reports whether the items' vectors all have one length.
func uniform(items []IndexItem) bool {
	for i := range items {
		if len(items[i].Vector) != len(items[0].Vector) {
			return false
		}
	}
	return true
}

// computeScales sets the scoring scale of every vector, on all cores for
// large indexes. The length is summed in float32 by the dot-product kernel
// (scores carry a float32 dot product anyway), falling back to float64 when
// float32 underflows to 0 or overflows.
func (s *snapshot) computeScales() { s.computeScalesFrom(0) }

// computeScalesFrom is computeScales for the rows from the first on.
func (s *snapshot) computeScalesFrom(first int) {
	vecmath.ParallelRanges(s.len()-first, scan.MinRowsPerWorker, func(lo, hi int) {
		for i := first + lo; i < first+hi; i++ {
			s.Scale[i] = vecmath.FastScale(s.Vector(i))
		}
	})
}

// setVectors stores the items' vectors: as one arena when their lengths
// agree, else per item. When the decoder placed the vectors one after
// another in a single array (decoded, or reachable from the first vector's
// capacity), the arena adopts it without copying. When it copies into a
// new arena and wantScales is set, it computes the scoring scales on the
// way, while each row is in cache, and reports true.
func (s *snapshot) setVectors(items []IndexItem, decoded []float32, wantScales bool) (scaled bool) {
	n := len(items)
	if n == 0 {
		return false
	}
	d := len(items[0].Vector)
	for i := range items {
		if len(items[i].Vector) != d {
			s.Mixed = true
			s.Vecs = make([][]float32, n)
			for j := range items {
				s.Vecs[j] = slices.Clip(items[j].Vector)
				if s.Vecs[j] == nil {
					s.Vecs[j] = []float32{}
				}
			}
			return false
		}
	}
	s.Dim = d
	if d == 0 {
		return false
	}
	if vecmath.IsArenaOf(decoded, d, len(items), func(i int) []float32 { return items[i].Vector }) {
		s.Arena = decoded[:n*d] // its capacity is the engine's: later inserts append there
		return false
	}
	if arena, ok := vecmath.Contiguous(n, d, func(i int) []float32 { return items[i].Vector }); ok {
		s.Arena = arena
		return false
	}
	s.Arena = make([]float32, n*d, ArenaRoom(n)*d)
	vecmath.ParallelRanges(n, scan.MinRowsPerWorker, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			row := s.Arena[i*d : (i+1)*d : (i+1)*d]
			copy(row, items[i].Vector)
			if wantScales {
				s.Scale[i] = vecmath.FastScale(row)
			}
		}
	})
	return wantScales
}

// DefaultRerankFactor is the number of candidates a quantized scan keeps
// per requested result when IndexOptions.RerankFactor is 0: a top-10 query
// re-ranks the 100 best int8 scores exactly. With it, recall@10 against
// the exact scan measures 1.0 on Gaussian and on clustered 384-dimension
// data (see TestQuantizedRecall).
const DefaultRerankFactor = 10

// DefaultRerankFactorInt4 is DefaultRerankFactor for 4-bit codes
// (ScanCodes CodesInt4): a top-10 query re-ranks the 400 best 4-bit
// scores exactly. With it, recall@10 against the exact scan measures 1.0
// on Gaussian, clustered and tightly clustered 384-dimension data (see
// TestQuantizedRecall), where 300 held 0.965 of the tight clusters' top 10.
const DefaultRerankFactorInt4 = 40

// DefaultNarrowFactor is the candidates per requested result that the
// 4-bit pass hands the int8 codes when IndexOptions.NarrowFactor is 0
// (ScanCodes CodesInt4Int8): a top-10 query narrows the 1,000 best 4-bit
// scores to the 100 best int8 scores, and re-ranks those. On clustered
// 384-dimension data at 1M rows recall@10 measured 1.0000 with it, 0.9997
// at 40 and 0.9984 at 20, where 4-bit codes alone need 1,000 rows
// re-ranked for 1.0000.
const DefaultNarrowFactor = 100

// coarse is a snapshot's codes for the quantized scan: int8, 4-bit or
// both, as IndexOptions.ScanCodes says.
type coarse struct {
	int8  *scan.Codes
	int4  *scan.Nibbles
	parts *ivf.Partitions // the rows by nearest centroid (IndexOptions.Partitions); nil for none
	// groups is a copy of the 4-bit codes of parts' first rows, grouped
	// by partition; rows after them are read in place.
	groups *scan.Grouped
}

// narrowing is the int8 stage of the 4-bit scan, keeping factor
// candidates per result (nil unless c has both codes).
func (c *coarse) narrowing(factor int) *scan.Narrowing {
	if c == nil || c.int4 == nil || c.int8 == nil {
		return nil
	}
	return &scan.Narrowing{Codes: c.int8, Factor: factor}
}

// rows is the number of rows coded.
func (c *coarse) rows() int {
	if c.int4 != nil {
		return c.int4.Rows()
	}
	return c.int8.Rows()
}

// quantize returns s's codes of the given kind: when s's rows are those
// prev codes with rows appended (prev non-nil), prev's codes are shared
// and only the new rows coded. Nil when s's rows have no codes (vectors
// of mixed lengths). Rows read from a file to be coded may fail to read.
func quantize(ctx context.Context, s *snapshot, prev *coarse, kind ScanCodes) (*coarse, error) {
	if prev == nil {
		prev = &coarse{}
	}
	c := &coarse{}
	var err error
	if kind.nibbles() {
		if c.int4, err = scan.QuantizeNibbles(ctx, &s.Rows, s.len(), prev.int4); c.int4 == nil {
			return nil, err
		}
	}
	if kind != CodesInt4 {
		if c.int8, err = scan.Quantize(ctx, &s.Rows, s.len(), prev.int8); c.int8 == nil {
			return nil, err
		}
	}
	return c, nil
}

// DefaultTargetRecall is IndexOptions.TargetRecall when it is 0.
const DefaultTargetRecall = 0.99

// PartitionMinRows is the fewest rows an index partitions
// (IndexOptions.Partitions): below it, a scan of every row's 4-bit codes
// takes well under a millisecond.
const PartitionMinRows = 50_000

// partitioning is IndexOptions.Partitions as the engine holds it; the zero
// value partitions nothing.
type partitioning struct {
	target  float64 // the recall the probes are calibrated for
	minRows int     // the fewest rows partitioned (PartitionMinRows; tests lower it)
}

// partitionSeed draws the partitions' samples and calibration queries: the
// same rows partition alike on every open.
const partitionSeed = 0x5eed

// codesFor returns s's codes (quantize), partitioned when the index
// partitions: prev's partitions when s keeps prev's rows and adds few,
// else the current state's or the stored ones carried over to s's rows
// (rekeyed), else trained anew on s's rows. lay is the layout s was read
// from or is committed to.
func (ix *LocalIndex) codesFor(ctx context.Context, s *snapshot, prev *coarse, lay layout) (*coarse, error) {
	c, err := quantize(ctx, s, prev, ix.codes)
	if err != nil || c == nil || ix.parting.target == 0 || s.len() < ix.parting.minRows {
		return c, err
	}
	if p := prev.partitions(); p != nil && p.Rows() <= s.len() && s.len()-p.Rows() <= retrainAfter(p.Rows()) {
		// The rows added since are a tail every query reads whole.
		c.parts, c.groups = p, prev.groups
		return c, nil
	}
	src := rowSource{rows: &s.Rows, n: s.len()}
	all := selection{Meta: s.meta, All: true}
	truth := func(ctx context.Context, q []float32, k int) ([]int32, error) {
		hits, err := ix.codeScan(ctx, s, c, all, q, k)
		slots := make([]int32, len(hits))
		for i, h := range hits {
			slots[i] = h.Slot
		}
		return slots, err
	}
	parts := ix.rekeyed(ctx, s, lay)
	if parts == nil {
		if parts, err = ivf.Build(ctx, src, ivf.PartitionsFor(s.len()), partitionSeed); err != nil {
			return nil, err
		}
	}
	if parts.Target != ix.parting.target {
		// Trained now, or read from a file calibrated for another
		// target (stored again for this one).
		if err := parts.Calibrate(ctx, src, calibrationK, ix.parting.target, partitionSeed, truth); err != nil {
			return nil, err
		}
		if ix.saved.parts == parts {
			ix.saved = savedPartitions{}
		}
	}
	c.parts = parts
	if c.groups = ix.mappedGroups(ctx, c); c.groups != nil {
		// The open's checksums brought the segments' codes in: queries
		// read the mapped copy instead.
		s.releaseHead()
	} else {
		c.groups = groupCodes(s, c.int4, parts)
	}
	return c, nil
}

// savedPartitions is what the folder's partitions file and grouped codes
// file hold.
type savedPartitions struct {
	parts *ivf.Partitions // the partitions file's, rekeyed to the current rows
	sum   uint32          // the partitions file's CRC-32C: the grouped codes file's token
	// inOrder reports whether the file numbers the rows as the current
	// state does (a state whose rows moved, as a compaction's, renumbers
	// them): the grouped codes file's rows are numbered as the file's.
	inOrder bool
	groups  *scan.Grouped // the grouped codes file's codes, as mapped or written; nil when unknown
}

// mappedGroups returns the codes of c's partitions grouped by partition
// from a mapping of the folder's grouped codes file, when the storage maps
// files and the file goes with the partitions file those partitions came
// from, numbering the rows as c does; nil otherwise. The open then reads
// none of the codes in the segments: the queries fault in the groups they
// probe. ix.mu is held.
func (ix *LocalIndex) mappedGroups(ctx context.Context, c *coarse) *scan.Grouped {
	sv, p := &ix.saved, c.parts
	if ix.files.mapper == nil || c.int4 == nil || !p.Pays || sv.parts != p || !sv.inOrder {
		return nil
	}
	if sv.groups != nil {
		return sv.groups
	}
	mf, err := ix.files.mapper.MapFile(ctx, ix.names.groupsPath())
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			ix.log.Warn("map the grouped codes file: the codes are grouped again", "folder", ix.folder, "err", err)
		}
		return nil
	}
	g, token, err := scan.DecodeGrouped(mf.Bytes())
	if err == nil && (token != sv.sum || !g.Covers(p.Lists())) {
		err = errors.New("it goes with other partitions")
	}
	if err != nil {
		mf.Close()
		ix.log.Warn("the grouped codes file cannot be used: the codes are grouped again", "folder", ix.folder, "err", err)
		return nil
	}
	runtime.AddCleanup(g, func(mf MappedFile) { mf.Close() }, mf)
	sv.groups = g
	return g
}

// groupCodes copies codes grouped by p's partitions, when there are 4-bit
// codes and the partitions pay (nil otherwise), then drops the pages of
// the files the codes were copied from out of the process's memory: the
// queries read the copy.
func groupCodes(s *snapshot, codes *scan.Nibbles, p *ivf.Partitions) *scan.Grouped {
	if codes == nil || !p.Pays {
		return nil
	}
	g := scan.GroupNibbles(codes, p.Lists())
	s.releaseHead()
	return g
}

// rekeyed returns partitions for s's rows carried over from the current
// state's or from the folder's partitions file, when lay names each row
// by a serial that no other vector ever takes (a layout that keeps no
// places: a replaced item is a new row) and they cover all of s's rows but
// a tail that queries may read whole; nil otherwise. ix.mu is held.
func (ix *LocalIndex) rekeyed(ctx context.Context, s *snapshot, lay layout) *ivf.Partitions {
	if lay.keepsPlaces() {
		return nil
	}
	fits := func(p *ivf.Partitions) bool {
		return p.Rows() > 0 && s.len()-p.Rows() <= retrainAfter(p.Rows())
	}
	if cur := ix.cur.Load(); cur != nil && cur != s {
		// A state that moves the rows (a compaction, a commit that
		// rebuilds the columns, a reload) trains the partitions again
		// unless its rows are nearly all theirs: that is when the rows
		// committed since join them.
		if old := cur.quantCodes().partitions(); old != nil {
			move, inOrder := serialMove(cur.serials, s.serials), true
			p, ok := old.Rekey(func(r int32) int32 {
				at := move(r)
				inOrder = inOrder && at == r
				return at
			})
			if !ok || s.len()-p.Rows() > p.Rows()/64 {
				return nil // the file holds these partitions or older ones
			}
			if sv := &ix.saved; sv.parts == old {
				// The file names rows by serial: it still holds them.
				sv.parts, sv.inOrder = p, sv.inOrder && inOrder
			}
			return p
		}
	}
	data, err := ix.storage.ReadFile(ctx, ix.names.partitionsPath())
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			ix.log.Warn("read the partitions file: the partitions are trained again", "folder", ix.folder, "err", err)
		}
		return nil
	}
	p, keys, _, checks, err := ivf.Decode(data)
	if err != nil {
		ix.log.Warn("the partitions file cannot be read: the partitions are trained again", "folder", ix.folder, "err", err)
		return nil
	}
	serials := make([]uint32, len(keys))
	for i, k := range keys {
		serials[i] = k.Serial
	}
	move := serialMove(serials, s.serials) // both increasing: one walk
	stale, inOrder := false, true
	q, ok := p.Rekey(func(r int32) int32 {
		at := move(r)
		if at < 0 {
			inOrder = false
			return -1 // deleted since
		}
		if r%idChecks == 0 && idHash(s.ids[at]) != keys[r].IDHash {
			stale = true
		}
		inOrder = inOrder && at == r
		return at
	})
	if !ok || stale || !fits(q) {
		return nil
	}
	for _, c := range checks {
		at, found := slices.BinarySearch(s.serials, keys[c.Key].Serial)
		if h, err := vectorHash(ctx, s, at); found && (err != nil || h != c.Hash) {
			return nil // other vectors under the same ids
		}
	}
	ix.saved = savedPartitions{parts: q, sum: crc32.Checksum(data, castagnoli), inOrder: inOrder}
	return q
}

// idChecks is the share of the rows whose id an open checks against the
// partitions file's hash of it: one in idChecks. A serial names one row,
// with one id, for as long as it lives (a replaced item is a new row), so
// a file whose ids differ is another index's and differs nearly
// everywhere; hashing every id took 2.3 s of a 10M-row open.
const idChecks = 16

// partitionChecks is how many rows' vectors a partitions file keeps a hash
// of.
const partitionChecks = 16

// vectorHash is a hash of the vector of row i of s.
func vectorHash(ctx context.Context, s *snapshot, i int) (uint32, error) {
	v := make([]float32, s.Dim)
	if err := s.Rows.ReadVector(ctx, v, i); err != nil {
		return 0, err
	}
	b := make([]byte, 0, 4*len(v))
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return crc32.Checksum(b, castagnoli), nil
}

// serialMove maps each row of a state whose rows have the serials from to
// its row in a state whose rows have the serials to (both increasing), -1
// for a row the second lacks.
func serialMove(from, to []uint32) func(int32) int32 {
	move := make([]int32, len(from))
	j := 0
	for i, v := range from {
		for j < len(to) && to[j] < v {
			j++
		}
		move[i] = -1
		if j < len(to) && to[j] == v {
			move[i] = int32(j)
		}
	}
	return func(r int32) int32 { return move[r] }
}

// idHash is the hash of an id a partitions file keeps beside its row's
// serial, to tell a file of another index from the folder's own.
func idHash(id string) uint32 {
	// Read in place: a copy of each of millions of ids would take longer
	// than their hashes.
	return crc32.Update(0, castagnoli, unsafe.Slice(unsafe.StringData(id), len(id)))
}

// castagnoli is the CRC-32C table of the partitions files' hashes.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// savePartitions writes the partitions of s to the folder's partitions
// file when they are not there already and the layout names rows by
// serial, so that the next open reads them instead of training them; and,
// where the storage maps files, their codes grouped by partition to the
// grouped codes file, which the next open maps instead of copying every
// row's codes (that file numbers rows as the partitions file does: the
// partitions file is written again when s's rows moved since). The files
// are derived from the index: a failure is logged and leaves the next open
// to train or group them. ix.mu is held.
func (ix *LocalIndex) savePartitions(ctx context.Context, s *snapshot) {
	c := s.quantCodes()
	p, sv := c.partitions(), &ix.saved
	if p == nil || ix.lay.keepsPlaces() {
		return
	}
	groups := ix.files.mapper != nil && c.groups != nil && c.groups != sv.groups
	if p != sv.parts || groups && !sv.inOrder {
		if !ix.writePartitions(ctx, s, p) {
			return
		}
	}
	if !groups {
		return
	}
	err := ix.files.write(ctx, ix.names.groupsPath(), true, func(w io.Writer) error { return c.groups.Encode(w, sv.sum) })
	if err != nil {
		ix.log.Warn("write the grouped codes file: the next open groups the codes again", "folder", ix.folder, "err", err)
		return
	}
	sv.groups = c.groups
}

// writePartitions writes p, the partitions of s, to the partitions file,
// reporting whether it did (a failure is logged).
func (ix *LocalIndex) writePartitions(ctx context.Context, s *snapshot, p *ivf.Partitions) bool {
	keys := make([]ivf.RowKey, p.Rows())
	for i := range keys {
		keys[i] = ivf.RowKey{Serial: s.serials[i], IDHash: idHash(s.ids[i])}
	}
	below := s.serials[p.Rows()-1] + 1
	var checks []ivf.RowCheck
	for j := range partitionChecks {
		i := j * p.Rows() / partitionChecks
		h, err := vectorHash(ctx, s, i)
		if err != nil {
			ix.log.Warn("read a vector for the partitions file: the next open trains them again", "folder", ix.folder, "err", err)
			return false
		}
		checks = append(checks, ivf.RowCheck{Key: uint32(i), Hash: h})
	}
	sum := crc32.New(castagnoli)
	err := ix.files.write(ctx, ix.names.partitionsPath(), true, func(w io.Writer) error {
		return p.Encode(io.MultiWriter(w, sum), keys, below, checks)
	})
	if err != nil {
		ix.log.Warn("write the partitions file: the next open trains them again", "folder", ix.folder, "err", err)
		return false
	}
	ix.saved = savedPartitions{parts: p, sum: sum.Sum32(), inOrder: true}
	return true
}

// retrainAfter is how many rows commits may add after partitions of rows
// rows before the next commit trains them again: every query reads the
// rows added since whole, so they are kept to an eighth, and the
// partitions trained at most once every that many rows.
func retrainAfter(rows int) int { return max(rows/8, 4096) }

// calibrationK is the k of the calibration's queries: the top 10, the
// most common ask.
const calibrationK = 10

// rowSource is a snapshot's first n rows as partitions read them.
type rowSource struct {
	rows *scan.Rows
	n    int
}

func (r rowSource) Rows() int { return r.n }
func (r rowSource) Dim() int  { return r.rows.Dim }
func (r rowSource) Read(ctx context.Context, dst []float32, i int) error {
	return r.rows.ReadVector(ctx, dst, i)
}
func (r rowSource) Each(ctx context.Context, lo, hi int, fn func(first int, vals []float32)) error {
	return r.rows.Each(ctx, lo, hi, fn)
}

// quantCodes returns s's codes, or nil when s has none (s may be nil).
func (s *snapshot) quantCodes() *coarse {
	if s == nil {
		return nil
	}
	return s.quant.Load()
}

// idIndex is a snapshot's map from ids to slots, built once, by its first
// use (a write, GetItem) or by the goroutine a read starts for it, rather
// than before the read returns: queries never need it, and a million ids
// take a tenth of a second to map.
type idIndex struct {
	once   sync.Once
	build  func() (*slotmap.Map, bool)
	slots  *slotmap.Map
	dupIDs bool // some id is in more than one slot (only in files written by others)
}

// lazyIDs is the idIndex of s's n slots (ndead of them dead), built at its
// first use.
func (s *snapshot) lazyIDs(n, ndead int) *idIndex {
	return &idIndex{build: func() (*slotmap.Map, bool) {
		// Backwards, so that the first of duplicate ids keeps its slot,
		// with one hash of each id: a repeated one leaves the size.
		slots := make(map[string]int32, n-ndead)
		dup := false
		for i := n - 1; i >= 0; i-- {
			if s.isDead(i) {
				continue
			}
			size := len(slots)
			slots[s.ids[i]] = int32(i)
			if len(slots) == size {
				dup = true
			}
		}
		return slotmap.New(slots), dup
	}}
}

// readyIDs is an idIndex already built.
func readyIDs(slots *slotmap.Map, dupIDs bool) *idIndex {
	x := &idIndex{slots: slots, dupIDs: dupIDs}
	x.once.Do(func() {})
	return x
}

func (x *idIndex) get() *idIndex {
	x.once.Do(func() {
		x.slots, x.dupIDs = x.build()
		x.build = nil
	})
	return x
}

// slotMap returns the map from ids to their first slot.
func (s *snapshot) slotMap() *slotmap.Map { return s.idMap.get().slots }

// dupIDs reports whether some id is in more than one slot.
func (s *snapshot) dupIDs() bool { return s.idMap.get().dupIDs }

// outliers is the number of rows the 4-bit codes list as outliers, which
// every query scores exactly (0 without 4-bit codes).
// bytes is the memory c's codes take (0 for none).
func (c *coarse) bytes() int64 {
	if c == nil {
		return 0
	}
	var b int64
	if c.int8 != nil {
		b += c.int8.Bytes()
	}
	if c.int4 != nil {
		b += c.int4.Bytes()
	}
	if c.groups != nil {
		b += c.groups.Bytes()
	}
	return b
}

// partitions returns c's partitions, nil for none (c may be nil).
func (c *coarse) partitions() *ivf.Partitions {
	if c == nil {
		return nil
	}
	return c.parts
}

func (c *coarse) outliers() int {
	if c == nil || c.int4 == nil {
		return 0
	}
	return c.int4.Outliers()
}
