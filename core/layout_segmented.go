package core

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/bits"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/foliovec/folio/core/internal/scan"
	"github.com/foliovec/folio/core/internal/segfile"
	"github.com/foliovec/folio/core/internal/vecmath"
)

// Layout is how an index folder stores its items.
type Layout string

const (
	// LayoutFile is Vectra's layout: one index file ("index.json",
	// "index.pb") holding every item, rewritten whole by every commit
	// (streamed, never built in memory). Vectra reads and writes it. It is
	// the default.
	LayoutFile Layout = "file"
	// LayoutSegmented is Folio's own layout: a small manifest
	// ("index.json.segments", "index.pb.segments") naming immutable segment
	// files, each holding a batch of items (vectors as little-endian
	// float32 rows, ids and metadata in the index's codec) and the items
	// of earlier segments that it deletes. A commit writes one segment
	// with what it added, replaced and deleted, then the manifest, so its
	// cost follows the size of the change, not of the index; small
	// segments are merged as commits go, larger ones by CompactIfDue (call
	// it on a timer, as the index manager does), and Compact (and Vacuum)
	// rewrite the items as one segment. Vectra cannot read it: migrate the
	// index to LayoutFile to hand it to Vectra.
	LayoutSegmented Layout = "segmented"
)

// ParseLayout returns the layout named s: "file" (or "") or "segmented".
// Another name is ErrInvalidArgument.
func ParseLayout(s string) (Layout, error) {
	switch Layout(s) {
	case "", LayoutFile:
		return LayoutFile, nil
	case LayoutSegmented:
		return LayoutSegmented, nil
	}
	return "", fmt.Errorf("layout %q: want %q or %q: %w", s, LayoutFile, LayoutSegmented, ErrInvalidArgument)
}

// segLayout is Folio's segmented layout: segment files, each written once,
// named in order by a manifest (the formats are in internal/segfile); a
// commit writes one new segment for what changed, merging small ones, and
// a compaction rewrites them. It is what a LocalIndex on the layout knows
// of its files, guarded by the writer lock.
type segLayout struct {
	ix  *LocalIndex
	man manifest
	// tombs are the serials deleted by some segment's tombstones, sorted:
	// the items of older segment files that no longer count.
	tombs []uint32
	// persisted is the state the files hold: the next commit writes what
	// differs from it.
	persisted *snapshot
}

func (sl *segLayout) kind() Layout      { return LayoutSegmented }
func (sl *segLayout) path() string      { return sl.ix.names.manifestPath() }
func (sl *segLayout) keepsPlaces() bool { return false }
func (sl *segLayout) names() []string   { return sl.man.Names() }

// stats counts the segments and the rows they hold that no longer count.
func (sl *segLayout) stats() LayoutStats {
	st := LayoutStats{Layout: LayoutSegmented, Segments: len(sl.man.Segments)}
	if p := sl.persisted; p != nil {
		st.Tombstones = max(0, sl.man.Rows()-p.count())
	}
	return st
}

// retire deletes the manifest, then drops the segments it named (readers
// in other processes may be reading them); the folder reads as this
// layout until the manifest is gone.
func (sl *segLayout) retire(ctx context.Context) (bool, error) {
	ix := sl.ix
	if err := ix.storage.DeleteFile(ctx, ix.names.manifestPath()); err != nil {
		return true, err
	}
	ix.watch.Note(ctx, ix.names.manifestPath())
	ix.dropLocked(ctx, sl.man.Names())
	// The partitions name rows by the segments' serials: the other layout
	// keeps none (a later conversion back trains them again).
	for _, p := range []string{ix.names.partitionsPath(), ix.names.groupsPath()} {
		if err := ix.storage.DeleteFile(ctx, p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			ix.log.Warn("delete a partitions file", "folder", ix.folder, "file", p, "err", err)
		}
	}
	return false, nil
}

// tidy deletes the index file a conversion to this layout left.
func (sl *segLayout) tidy(ctx context.Context) error {
	return sl.ix.storage.DeleteFile(ctx, sl.ix.names.indexPath())
}

// bulkLoad writes src, checked, as one segment and a manifest naming only
// it, in place of the empty state s.
func (sl *segLayout) bulkLoad(ctx context.Context, s *snapshot, src IndexSource) error {
	ix := sl.ix
	dim, err := checkBulk(ctx, src, s.config.Indexed)
	if err != nil || src.Len == 0 {
		return err
	}
	name := ix.names.newSegmentName()
	seg := segmentSource{
		rows: src.Len,
		dim:  dim,
		row: func(i int) IndexItem {
			it := src.Item(i)
			return IndexItem{ID: it.ID, Metadata: it.Metadata, Vector: it.Vector, Norm: vecmath.Length(it.Vector)}
		},
		ser: func(i int) uint32 { return uint32(i) },
	}
	if err := sl.writeSegment(ctx, name, seg); err != nil {
		sl.discardSegment(ctx, name)
		return fmt.Errorf("write segment: %w", err)
	}
	m := newManifest(s.version, s.config)
	m.NextSerial = uint32(src.Len)
	m.Segments = []segmentEntry{{Name: name, First: 0, Rows: src.Len}}
	if err := sl.writeManifest(ctx, m); err != nil {
		sl.discardSegment(ctx, name)
		return fmt.Errorf("write segments manifest: %w", err)
	}
	ix.graves.dropping = append(ix.graves.dropping, sl.man.Names()...)
	return nil
}

// LayoutStats describes how an index is stored.
type LayoutStats struct {
	Layout Layout
	// Segments and Tombstones are the segmented layout's segment files and
	// the stored rows they hold that no longer count (deleted or replaced
	// items), which Compact removes. Both are 0 on LayoutFile.
	Segments   int
	Tombstones int
}

// readManifest reads the manifest; a missing one is an error wrapping
// fs.ErrNotExist.
func (ix *LocalIndex) readManifest(ctx context.Context) (manifest, error) {
	raw, err := ix.storage.ReadFile(ctx, ix.names.manifestPath())
	if err != nil {
		return manifest{}, err
	}
	return segfile.DecodeManifest(raw)
}

// load reads every segment the manifest names, in order, into l:
// every row stored, those of deleted or replaced items too
// (admit tells them apart), their serials, the vectors, and
// the index's state with its sorted tombstones. On storage that maps files
// (FileMapper) the vectors of the first segments are read in place (l.head,
// kept mapped by l.pin): of each one from the first that has mapMinRows
// rows or more (an index's large segments come first, the small segments
// of recent commits after them).
//
// The manifest's counts are checked against each segment's header, which
// is checked against the file's size, before anything is allocated on
// their word: a damaged or hand-edited manifest fails the load with
// ErrCorrupt, naming the segment, instead of making it allocate what no
// file holds.
func (sl *segLayout) load(ctx context.Context, l *loaded) error {
	ix, m := sl.ix, sl.man
	total := m.Rows()
	arena := newSegArena()
	arena.rowsHint = total
	var items []IndexItem
	arena.items = &items
	var serials, tombs []uint32
	if len(m.Segments) == 0 && m.NextSerial > 0 {
		if err := sl.checkNoSegments(ctx); err != nil {
			return err
		}
	}
	// The rows read in place come first, mapped, or on storage that does
	// not map but reads parts of files, left in the file when the index
	// keeps 4-bit codes.
	inPlace := segfile.LittleEndian && (ix.files.mapper != nil || (ix.files.ranger != nil && ix.codes.nibbles()))
	for i, e := range m.Segments {
		next := m.NextSerial
		if i+1 < len(m.Segments) {
			next = m.Segments[i+1].First
		}
		seg, err := sl.loadEntry(ctx, e, next, arena, l, &inPlace)
		if err != nil {
			return err
		}
		serials = append(reserveRows(serials, len(seg.serials), total), seg.serials...)
		tombs = append(tombs, seg.tombs...)
	}
	slices.Sort(tombs)
	if err := l.adopt(ctx, arena, items); err != nil {
		return err
	}
	l.data = IndexData{Version: m.Version, MetadataConfig: manifestConfig(&m), Items: items}
	l.serials, l.lay, sl.tombs = serials, sl, slices.Compact(tombs)
	return nil
}

// loadEntry reads the segment e names, whose serials are below next: in
// place while *inPlace holds and the segment has mapMinRows rows or more
// (mapped, or left in the file and read in ranges), else decoded into
// arena, which ends *inPlace. Its rows and tombstones are checked
// against e.
func (sl *segLayout) loadEntry(ctx context.Context, e segmentEntry, next uint32, arena *segArena, l *loaded, inPlace *bool) (segment, error) {
	ix := sl.ix
	if !ix.names.ownSegment(e.Name) {
		return segment{}, fmt.Errorf("segment %q: not named as a segment of %q: %w", e.Name, ix.name, ErrCorrupt)
	}
	var seg segment
	var err error
	mapped := false
	switch {
	case !*inPlace || e.Rows < max(ix.mapMin, 1):
	case ix.files.mapper != nil:
		seg, mapped, err = sl.mapSegment(ctx, ix.files.mapper, e.Name, arena, l)
	default:
		seg, mapped, err = sl.rangeSegment(ctx, ix.files.ranger, e.Name, arena, l)
	}
	if !mapped && err == nil {
		*inPlace = false
		// Room for the rows after the mapped ones, and for inserts: for
		// no more than twice the rows read by then, this segment's
		// counted twice (its file vouches for them; those after it are
		// often as many).
		total := sl.man.Rows()
		seg, err = sl.readSegment(ctx, e.Name, arena, func(dim, rows int) int {
			return (ArenaRoom(min(total, 2*(len(*arena.items)+2*rows))) - l.headRows) * dim
		})
	}
	if err != nil {
		return segment{}, err
	}
	if err := checkEntry(e, seg); err != nil {
		return segment{}, err
	}
	if len(seg.serials) > 0 && (seg.serials[0] < e.First || seg.serials[len(seg.serials)-1] >= next) {
		return segment{}, fmt.Errorf("segment %q: serials outside its range: %w", e.Name, ErrCorrupt)
	}
	return seg, nil
}

// adopt makes items, the rows load read, views of arena past the rows
// read in place (which the arena may have moved as it grew), reading
// those in place too when later rows differ in length (a mixed index).
func (l *loaded) adopt(ctx context.Context, arena *segArena, items []IndexItem) error {
	d := arena.Dim
	if d != l.dim {
		// Later rows of other lengths: the rows left in their files are
		// read, for the per-row vectors of a mixed index.
		if err := l.readHead(ctx, items); err != nil {
			return err
		}
	}
	if d > 0 {
		h := l.headRows
		for i := h; i < len(items); i++ {
			items[i].Vector = arena.Data[(i-h)*d : (i-h+1)*d : (i-h+1)*d]
		}
		l.arena = arena.Data[:(len(items)-h)*d]
	}
	l.size = int64(len(l.arena)) * 4
	return nil
}

// readHead reads the rows of l's fetch-only parts (left in their files)
// into memory: the parts then hold them, as do their items' vectors (the
// first of items).
func (l *loaded) readHead(ctx context.Context, items []IndexItem) error {
	if err := l.verifyHead(ctx); err != nil {
		return err
	}
	first := 0
	for k, p := range l.head {
		if p.Vals == nil && p.N > 0 {
			vals := make([]float32, p.N*l.dim)
			if err := p.Fetch(ctx, vals, 0, p.N); err != nil {
				return err
			}
			for i := range p.N {
				items[first+i].Vector = vals[i*l.dim : (i+1)*l.dim : (i+1)*l.dim]
			}
			l.head[k] = scan.Part{N: p.N, Vals: vals}
		}
		first += p.N
	}
	return nil
}

// mapMinRows is the fewest rows of a segment whose vectors are read in
// place from a mapping: smaller ones are copied.
const mapMinRows = 1024

// mappedSet is the segment files whose vectors a state's rows read in
// place (mapped) or in parts (ranged): snapshots hold it in their rows'
// Pin.
type mappedSet struct {
	files  []*mappedFile
	ranged []*rangedFile
	// checks are the checksums of the vectors of each part of the rows'
	// Head, in order.
	checks []*vectorCheck
}

// vectorCheck is the checksum of the vectors of one segment read in place
// or in parts. An open that keeps 4-bit codes leaves it unchecked (it reads
// the codes, not the vectors): every write that copies the segment's rows
// (a compaction, a merge, a conversion, rows moved into memory) verifies
// it first, once for all the states sharing the segment, so that a damaged
// vector is never written out under a fresh checksum.
type vectorCheck struct {
	name string
	rows int
	want uint32
	sum  func(ctx context.Context) (uint32, error) // nil once verified

	mu  sync.Mutex
	err error // the mismatch, once found
}

// verify checks the vectors of the parts of the set that hold rows lo to
// hi-1 (of the Head the set is the pin of), each at most once; a mismatch
// is ErrCorrupt naming the segment, and stays so.
func (m *mappedSet) verify(ctx context.Context, lo, hi int) error {
	first := 0
	for _, c := range m.checks {
		if first < hi && first+c.rows > lo {
			if err := c.verify(ctx); err != nil {
				return err
			}
		}
		first += c.rows
	}
	return nil
}

func (c *vectorCheck) verify(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sum == nil || c.err != nil {
		return c.err
	}
	got, err := c.sum(ctx)
	if err != nil {
		return fmt.Errorf("segment %q: check its vectors: %w", c.name, err)
	}
	if got != c.want {
		c.err = fmt.Errorf("segment %q: %w", c.name, fmt.Errorf("segment: checksum of the vectors mismatch: %w", ErrCorrupt))
		return c.err
	}
	c.sum = nil
	return nil
}

// verifyHead checks the vectors of the rows lo to hi-1 of s that are read
// in place from segments whose open left them unchecked (vectorCheck).
func (s *snapshot) verifyHead(ctx context.Context, lo, hi int) error {
	if set, ok := s.Pin.(*mappedSet); ok && lo < s.HeadRows() {
		return set.verify(ctx, lo, min(hi, s.HeadRows()))
	}
	return nil
}

// verifyHead checks every vector of l's head (vectorCheck).
// releaseHead drops the pages of the files s's first rows are mapped
// from out of the process's memory (see mappedFile.releasePages); a
// failure is no matter.
func (s *snapshot) releaseHead() {
	if set, ok := s.Pin.(*mappedSet); ok {
		for _, f := range set.files {
			_ = f.releasePages()
		}
	}
}

func (l *loaded) verifyHead(ctx context.Context) error {
	if set, ok := l.pin.(*mappedSet); ok {
		return set.verify(ctx, 0, l.headRows)
	}
	return nil
}

// releasePages drops the pages of every file of the set from the
// process's memory, where the storage can (failures are logged at debug
// level: the pages then stay until the mapping is closed).
func (m *mappedSet) releasePages(ix *LocalIndex) {
	for _, f := range m.files {
		if err := f.releasePages(); err != nil {
			ix.log.Debug("release the pages of a mapped segment", "folder", ix.folder, "file", f.name, "err", err)
		}
	}
}

// rangedFile stands for a segment file whose vectors are read in parts:
// it is closed once nothing holds it.
type rangedFile struct {
	name string
	rf   RangeFile
}

// mappedFile stands for a mapped segment file: the mapping is closed once
// nothing holds it.
type mappedFile struct {
	name string
	mf   MappedFile
}

// releasePages drops the mapping's pages from the process's memory (see
// PageReleaser), when the storage can: the mapping stays valid for the
// queries still reading it, which fault in what they read.
func (p *mappedFile) releasePages() error {
	if r, ok := p.mf.(PageReleaser); ok {
		return r.ReleasePages()
	}
	return nil
}

// admit builds the snapshot of the rows load read, and records it as what
// the files hold unless onLoad left strays out (the next save then writes
// it whole). The rows of deleted or replaced items, and those the participant's
// onLoad drops, are dead slots, read in place (no row moves), unless there
// are more than maxDead of them: then the live rows are moved down into a
// compact snapshot.
func (sl *segLayout) admit(ctx context.Context, l *loaded, reload bool) (*snapshot, error) {
	s, err := sl.snapshotOf(ctx, l, reload)
	if err != nil {
		return nil, err
	}
	s.nextSerial = sl.man.NextSerial
	sl.persisted = s
	if sl.ix.strays {
		sl.persisted = nil // the next save writes what is left whole
	}
	return s, nil
}

// snapshotOf is admit's snapshot.
func (sl *segLayout) snapshotOf(ctx context.Context, l *loaded, reload bool) (*snapshot, error) {
	ix := sl.ix
	all, serials := l.data.Items, l.serials
	n := len(all)
	dead := make([]uint64, (n+63)/64)
	ndead := 0
	for i, v := range serials {
		if _, found := slices.BinarySearch(sl.tombs, v); found {
			dead[i>>6] |= 1 << (uint(i) & 63)
			ndead++
		}
	}
	isDead := func(i int) bool { return dead[i>>6]&(1<<(uint(i)&63)) != 0 }
	if ix.part != nil {
		live := make([]IndexItem, 0, n-ndead)
		for i := range all {
			if !isDead(i) {
				live = append(live, all[i])
			}
		}
		data := IndexData{Version: l.data.Version, MetadataConfig: l.data.MetadataConfig, Items: live}
		if err := ix.part.onLoad(ctx, &data, len(live), reload); err != nil {
			return nil, err
		}
		// What onLoad kept, in order, goes back to its row (with the
		// metadata onLoad may have changed); the rows it dropped are dead.
		k := 0
		for i := range all {
			if isDead(i) {
				continue
			}
			if k < len(data.Items) && data.Items[k].ID == all[i].ID {
				all[i] = data.Items[k]
				k++
				continue
			}
			dead[i>>6] |= 1 << (uint(i) & 63)
			ndead++
		}
	}
	if ndead > maxDead(n) {
		// The live rows move: those left in their files are read first,
		// and those of unchecked segments are checked (readHead).
		if err := l.readHead(ctx, all); err != nil {
			return nil, err
		}
		return compactRows(l, isDead)
	}
	s, err := snapshotWithDead(l.data, vectors{arena: l.arena, head: l.head, dim: l.dim, pin: l.pin, headScales: l.headScales}, dead, ndead)
	if err != nil {
		return nil, err
	}
	s.serials = serials
	return s, nil
}

// compactRows builds a snapshot of the rows of l that are not dead: moved
// down in place in l.arena, or copied into a new arena when the first
// rows are mapped.
func compactRows(l *loaded, isDead func(int) bool) (*snapshot, error) {
	items, serials := l.data.Items, l.serials
	arena := l.arena
	d := -1
	if len(items) > 0 && len(items[0].Vector) > 0 && (arena != nil || len(l.head) > 0) && uniform(items) {
		d = len(items[0].Vector)
	}
	if d > 0 && len(l.head) > 0 {
		arena = make([]float32, 0, ArenaRoom(len(items))*d)
	}
	kept := 0
	for i := range items {
		if isDead(i) {
			continue
		}
		if d > 0 {
			dst := arena[kept*d : (kept+1)*d : (kept+1)*d]
			if len(l.head) > 0 {
				copy(dst, items[i].Vector)
			} else if kept != i {
				copy(dst, arena[i*d:(i+1)*d])
			}
			items[i].Vector = dst
		}
		items[kept], serials[kept] = items[i], serials[i]
		kept++
	}
	clear(items[kept:])
	data := l.data
	data.Items = items[:kept]
	if d > 0 {
		arena = arena[:kept*d]
	}
	vec := vectors{arena: arena}
	if d < 0 {
		vec.pin = l.pin // mixed lengths: the rows stay views of the mapping
	}
	s, err := snapshotWithDead(data, vec, nil, 0)
	if err != nil {
		return nil, err
	}
	s.serials = serials[:kept]
	return s, nil
}

// checkNoSegments is the check of a manifest that names no segment
// although items were stored (its next serial is past 0): the commits of
// this version always name one then (a segment of no rows if need be), and
// those of earlier versions could name none only once every item was
// deleted, when the segments left are dropped files. Segment files of the
// index in the folder that are not listed as dropped mean the manifest
// lost its segments (such as by a hand edit): ErrCorrupt, and Vacuum then
// deletes nothing.
func (sl *segLayout) checkNoSegments(ctx context.Context) error {
	ix := sl.ix
	list, err := ix.storage.ListFiles(ctx, ix.folder, ListFilesOnly)
	if err != nil {
		return err
	}
	dropped := map[string]bool{}
	for _, e := range ix.graves.read(ctx) {
		dropped[e.Name] = true
	}
	var stray []string
	for _, fd := range list {
		if ix.names.ownSegment(fd.Name) && !dropped[fd.Name] {
			stray = append(stray, fd.Name)
		}
	}
	if len(stray) > 0 {
		return fmt.Errorf("the segments manifest names no segment of the items stored, but %d segment files are in the folder (%s): %w", len(stray), strings.Join(stray[:min(3, len(stray))], ", "), ErrCorrupt)
	}
	return nil
}

// checkEntry reports whether seg, the segment e names, holds the rows and
// tombstones e says it does: another count is ErrCorrupt.
func checkEntry(e segmentEntry, seg segment) error {
	if len(seg.serials) != e.Rows || len(seg.tombs) != e.Tombstones {
		return fmt.Errorf("segment %q: %d rows and %d tombstones, the manifest says %d and %d: %w", e.Name, len(seg.serials), len(seg.tombs), e.Rows, e.Tombstones, ErrCorrupt)
	}
	return nil
}

// readSegment reads and decodes one segment file; room tells how many
// floats to reserve for the arena once its vector length is known (and
// the rows of the segment).
func (sl *segLayout) readSegment(ctx context.Context, name string, arena *segArena, room func(dim, rows int) int) (segment, error) {
	ix := sl.ix
	r, size, done, err := ix.files.open(ctx, ix.names.path(name))
	if err != nil {
		return segment{}, fmt.Errorf("segment %q: %w", name, err)
	}
	defer done()
	if arena.Data == nil {
		arena.Reserve = room
	}
	seg, err := decodeSegment(r, size, ix.codec, arena)
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return segment{}, ctxErr
		}
		return segment{}, fmt.Errorf("segment %q: %w", name, err)
	}
	return seg, nil
}

// writeSegment writes src as the segment file name, durably.
func (sl *segLayout) writeSegment(ctx context.Context, name string, src segmentSource) error {
	_, err := sl.writeSegmentSum(ctx, name, src)
	return err
}

// writeSegmentSum is writeSegment, returning the checksums it wrote. An
// index that keeps 4-bit codes writes them into the segment.
func (sl *segLayout) writeSegmentSum(ctx context.Context, name string, src segmentSource) (sum segfile.Sums, err error) {
	ix := sl.ix
	src.codes = ix.codes.nibbles()
	err = ix.files.write(ctx, ix.names.path(name), false, func(w io.Writer) error {
		var err error
		sum, err = encodeSegment(w, src, ix.files.encodeIndex)
		return err
	})
	return sum, err
}

// summedSegment is a segment file this index wrote, the checksum it
// summed while writing it, and its rows' scoring scales.
type summedSegment struct {
	name   string
	sum    segfile.Sums
	scales []float64
}

// liveScales are the scoring scales of s's live slots lo to hi-1, in slot
// order: those of the rows slotsSource(ctx, s, lo, hi, …) writes.
func liveScales(s *snapshot, lo, hi int) []float64 {
	if s.ndead == 0 {
		return s.Scale[lo:hi:hi]
	}
	out := make([]float64, 0, hi-lo)
	for i := lo; i < hi; i++ {
		if !s.isDead(i) {
			out = append(out, s.Scale[i])
		}
	}
	return out
}

// writeManifest replaces the manifest, atomically, and records its new
// version as this process's own.
func (sl *segLayout) writeManifest(ctx context.Context, m manifest) error {
	ix := sl.ix
	raw, err := segfile.EncodeManifest(m)
	if err != nil {
		return err
	}
	if err := ix.storage.UpsertFile(ctx, ix.names.manifestPath(), raw); err != nil {
		return err
	}
	ix.watch.Note(ctx, ix.names.manifestPath())
	return nil
}

// slotsSource is the segment holding the live slots lo..hi-1 of s, and
// tombs; ctx bounds the reads of rows left in their files.
func slotsSource(ctx context.Context, s *snapshot, lo, hi int, tombs []uint32) segmentSource {
	dim := s.Dim
	if s.Mixed {
		dim = -1
	}
	if dim < 0 && !s.Mixed {
		dim = 0
	}
	src := segmentSource{
		rows:  hi - lo,
		dim:   dim,
		row:   func(i int) IndexItem { return s.sharedItem(lo + i) },
		ser:   func(i int) uint32 { return s.serials[lo+i] },
		tombs: tombs,
	}
	slot := func(i int) int { return lo + i }
	if s.ndead > 0 {
		live := s.liveSlots(lo, hi)
		src.rows = len(live)
		slot = func(i int) int { return int(live[i]) }
		src.row = func(i int) IndexItem { return s.sharedItem(int(live[i])) }
		src.ser = func(i int) uint32 { return s.serials[live[i]] }
	}
	// The rows read in place from segments whose vectors were not
	// checked are checked before they are written out.
	if err := s.verifyHead(ctx, lo, hi); err != nil {
		src.err = func() error { return err }
		return src
	}
	if lo < s.HeadRows() && s.FetchOnly() {
		// Rows left in their files are read a window at a time: the
		// writer reads the rows in order, a few times over.
		rr := &rowReader{ctx: ctx, s: s}
		src.meta = src.row
		src.row = func(i int) IndexItem { return rr.item(slot(i)) }
		src.err = func() error { return rr.err }
	}
	return src
}

// rowReaderWindow is the rows a rowReader reads at a time: 24 MiB of
// 384-dimension rows.
const rowReaderWindow = 16384

// rowReader gives a segment writer s's items with their vectors, reading
// those of fetch-only rows from their files a window of rows at a time
// into a new buffer (earlier windows stay valid for the vectors handed
// out). Its first failure is kept in err; the vectors are zero from then.
type rowReader struct {
	ctx    context.Context
	s      *snapshot
	lo, hi int // the window's rows, in vals
	vals   []float32
	err    error
}

func (r *rowReader) item(i int) IndexItem {
	it := r.s.sharedItem(i)
	if it.Vector != nil {
		return it
	}
	d := r.s.Dim
	if r.err == nil && (i < r.lo || i >= r.hi) {
		buf := make([]float32, rowReaderWindow*d)
		vals, end, err := r.s.ReadSpan(r.ctx, buf, i, r.s.HeadRows())
		r.lo, r.hi, r.vals, r.err = i, end, vals, err
	}
	if r.err != nil {
		it.Vector = make([]float32, d)
		return it
	}
	it.Vector = r.vals[(i-r.lo)*d : (i-r.lo+1)*d : (i-r.lo+1)*d]
	return it
}

// save stores s on the segmented layout: one new segment with the
// items s has that the files lack and tombstones for the items they hold
// that s lacks, merged with the newest segments of its size class once
// there are mergeFanIn of them, then the manifest. The segments merged away are added to ix.graves.dropping.
// ix.mu is held.
func (sl *segLayout) save(ctx context.Context, s *snapshot) error {
	ix, st := sl.ix, sl
	p := st.persisted
	if p == nil || p.version != s.version || !slices.Equal(p.config.Indexed, s.config.Indexed) {
		return sl.writeAll(ctx, s)
	}
	dead := deadSince(p, s)
	from, _ := slices.BinarySearch(s.serials, p.nextSerial)
	if len(dead) == 0 && from == s.len() {
		st.persisted = s
		return nil
	}
	segs := st.man.Segments
	k, rows, from := mergeInCommit(s, segs, from, liveRows(s, p.nextSerial, s.len()))
	first := p.nextSerial
	if k < len(segs) {
		first = segs[k].First
	}
	tombs := mergeSorted(st.tombs, dead)
	own := dead
	if k < len(segs) {
		// The merged segments' tombstones of older segments go on in the
		// new one; those of the merged rows are gone with them.
		own = tombs[:lowerBound(tombs, first)]
	}
	m := st.man
	m.NextSerial = s.nextSerial
	m.Segments = slices.Clone(segs[:k])
	// A manifest names a segment once items were stored (checkNoSegments),
	// one of no rows when every row was merged away.
	if rows > 0 || len(own) > 0 || (k == 0 && m.NextSerial > 0) {
		name := ix.names.newSegmentName()
		if err := sl.writeSegment(ctx, name, slotsSource(ctx, s, from, s.len(), own)); err != nil {
			return fmt.Errorf("write segment: %w", err)
		}
		m.Segments = append(m.Segments, segmentEntry{Name: name, First: first, Rows: rows, Tombstones: len(own)})
	}
	if err := sl.writeManifest(ctx, m); err != nil {
		return fmt.Errorf("write segments manifest: %w", err)
	}
	for _, e := range segs[k:] {
		ix.graves.dropping = append(ix.graves.dropping, e.Name)
	}
	if k < len(segs) {
		ix.metrics.merges.Add(1)
	}
	st.man, st.tombs, st.persisted = m, tombs, s
	return nil
}

// mergeInCommit returns which segments a commit of s merges into its new
// segment, whose rows (rows live ones) start at from in s: the segments
// from k on, and the new segment's rows and start with them. The newest
// segments no larger than the new one's size class merge with it once
// mergeFanIn of them would become one, unless that writes more than
// mergeInCommitRows (CompactIfDue's work); the merged segment may merge
// again with those of its new class.
func mergeInCommit(s *snapshot, segs []segmentEntry, from, rows int) (k, merged, start int) {
	k = len(segs)
	for {
		class := sizeClass(rows)
		j, more, end := k, 0, from
		for j > 0 {
			lo, _ := slices.BinarySearch(s.serials, segs[j-1].First)
			live := liveRows(s, segs[j-1].First, end)
			if sizeClass(live) > class {
				break
			}
			j, more, end = j-1, more+live, lo
		}
		if k-j+1 < mergeFanIn || rows+more > mergeInCommitRows {
			return k, rows, from
		}
		k, rows, from = j, rows+more, end
	}
}

// writeAll stores s as one segment and a manifest naming only it
// (a new index, or one whose version changed). The segments the old
// manifest named are added to ix.graves.dropping.
func (sl *segLayout) writeAll(ctx context.Context, s *snapshot) error {
	ix := sl.ix
	if len(s.moved) > 0 {
		// Segments store items in serial order: put the moved ones back
		// in their places first.
		s = s.rebuilt()
	}
	m := newManifest(s.version, s.config)
	m.NextSerial = s.nextSerial
	if s.count() > 0 || m.NextSerial > 0 { // a segment of no rows too: see checkNoSegments
		name := ix.names.newSegmentName()
		if err := sl.writeSegment(ctx, name, slotsSource(ctx, s, 0, s.len(), nil)); err != nil {
			return fmt.Errorf("write segment: %w", err)
		}
		m.Segments = append(m.Segments, segmentEntry{Name: name, First: 0, Rows: s.count()})
	}
	if err := sl.writeManifest(ctx, m); err != nil {
		return fmt.Errorf("write segments manifest: %w", err)
	}
	ix.graves.dropping = append(ix.graves.dropping, sl.man.Names()...)
	sl.man, sl.tombs, sl.persisted = m, nil, s
	return nil
}

// mergeFanIn is how many segments of one size class a commit merges into
// one: n single-item commits leave at most mergeFanIn·log₈(n) segments,
// each item is rewritten about log₈(n) times over its life, and seven
// commits in eight leave every segment a reader has in place (so that it
// reads only the new one).
const mergeFanIn = 8

// mergeInCommitRows is the most rows a commit writes by merging segments:
// 8,192 (12 MiB of 384-dimensional vectors; in practice merges of eight
// segments of about 512 rows, 6 MiB), so that no single write waits on a
// large merge. Larger merges are left to CompactIfDue, which a server runs
// in the background.
const mergeInCommitRows = 1 << 13

// Compaction is due (CompactIfDue) when the segments hold more
// tombstoned rows than a quarter of their rows, and at least
// compactMinTombstones of them, or when there are more than
// compactMaxSegments segments (the large ones commits no longer merge).
const (
	compactMinTombstones = 4096
	compactMaxSegments   = 48
)

// compactionDue reports whether the layout l warrants a compaction.
func compactionDue(l *LayoutStats, rows int) bool {
	if l == nil || l.Layout != LayoutSegmented {
		return false
	}
	return l.Tombstones >= max(compactMinTombstones, rows/4) || l.Segments > compactMaxSegments
}

// CompactIfDue runs Compact when the segmented layout has gathered enough
// rows of deleted or replaced items (a quarter of its rows, and at least
// 4,096) or more than 48 segments; otherwise it merges the newest run of
// mergeFanIn (8) or more segments of one size class that commits leave
// (they merge only runs of up to mergeInCommitRows rows, so that no write
// waits on a large merge), as Compact rewrites them, into one segment; and
// otherwise it returns at once with an empty report: a cheap check, meant
// to be called in the background, on a timer or after writes, as the index
// manager and so folio serve do. It never blocks queries, and writers
// only while it swaps the manifest.
func (ix *LocalIndex) CompactIfDue(ctx context.Context) (CompactReport, error) {
	if err := ctx.Err(); err != nil {
		return CompactReport{}, err
	}
	if ix.cur.Load() != nil {
		// What other processes committed counts too (a process that only
		// compacts would never see it otherwise).
		if err := ix.refresh(ctx); err != nil {
			return CompactReport{}, WrapOp(ctx, "compact", ix.folder, err)
		}
	}
	l, s := ix.layoutStats.Load(), ix.cur.Load()
	var rows int
	switch {
	case l != nil && s != nil:
		rows = s.count() + l.Tombstones
	case l != nil:
		return CompactReport{}, nil // a file layout being read
	default:
		// Not loaded yet: the manifest tells, without loading the index,
		// from the tombstones its segments carry.
		m, err := ix.readManifest(ctx)
		if errors.Is(err, fs.ErrNotExist) {
			return CompactReport{}, nil // not segmented, or not created
		}
		if err != nil {
			return CompactReport{}, WrapOp(ctx, "compact", ix.folder, err)
		}
		l = &LayoutStats{Layout: LayoutSegmented, Segments: len(m.Segments)}
		for _, e := range m.Segments {
			l.Tombstones += e.Tombstones
		}
		rows = m.Rows()
	}
	if compactionDue(l, rows) {
		return ix.Compact(ctx)
	}
	if l.Layout != LayoutSegmented || l.Segments < mergeFanIn {
		return CompactReport{}, nil
	}
	return ix.rewrite(ctx, "merge segments", rewriteMerge)
}

// mergeRun returns the run of segments of m for CompactIfDue to merge:
// one that starts with a segment of some size class and holds the
// segments after it of that class or smaller (segments of tombstones,
// small ones of recent commits), mergeFanIn or more of that class and more
// rows than a commit merges; of those, the one that starts newest.
func mergeRun(m manifest) (segRun, bool) {
	segs := m.Segments
	for j := len(segs) - 1; j >= 0; j-- {
		c := sizeClass(segs[j].Rows)
		same, rows, k := 0, 0, j
		for ; k < len(segs) && sizeClass(segs[k].Rows) <= c; k++ {
			rows += segs[k].Rows
			if sizeClass(segs[k].Rows) == c {
				same++
			}
		}
		if same >= mergeFanIn && rows > mergeInCommitRows {
			return segRun{j, k}, true
		}
	}
	return segRun{}, false
}

// sizeClass is ⌊log₈ rows⌋ (0 for 0).
func sizeClass(rows int) int {
	c := 0
	for rows >= mergeFanIn {
		rows /= mergeFanIn
		c++
	}
	return c
}

// liveRows counts the live slots of s from the serial first up to slot
// end.
func liveRows(s *snapshot, first uint32, end int) int {
	lo, _ := slices.BinarySearch(s.serials, first)
	if s.ndead == 0 {
		return max(end-lo, 0)
	}
	n := 0
	for i := lo; i < end; i++ {
		if !s.isDead(i) {
			n++
		}
	}
	return n
}

// deadSince returns the serials of the items live in p that s lacks, in
// order. When s extends p (its slots are p's with rows appended, as a
// commit that keeps the base's rows leaves them) it compares the dead
// bitsets, a word at a time; else it walks both.
func deadSince(p, s *snapshot) []uint32 {
	n := p.len()
	var out []uint32
	if n > 0 && n <= s.len() && &p.serials[0] == &s.serials[0] {
		for w := 0; w < len(s.dead) && w*64 < n; w++ {
			fresh := s.dead[w]
			if w < len(p.dead) {
				fresh &^= p.dead[w]
			}
			for fresh != 0 {
				i := w*64 + bits.TrailingZeros64(fresh)
				fresh &= fresh - 1
				if i < n {
					out = append(out, p.serials[i])
				}
			}
		}
		return out
	}
	j := 0
	for i, v := range p.serials {
		if p.isDead(i) {
			continue
		}
		for j < s.len() && s.serials[j] < v {
			j++
		}
		if j == s.len() || s.serials[j] != v || s.isDead(j) {
			out = append(out, v)
		}
	}
	return out
}

// missingSerials returns the serials of old (sorted) that cur (sorted)
// lacks.
func missingSerials(old, cur []uint32) []uint32 {
	var out []uint32
	j := 0
	for _, v := range old {
		for j < len(cur) && cur[j] < v {
			j++
		}
		if j == len(cur) || cur[j] != v {
			out = append(out, v)
		}
	}
	return out
}

// mergeSorted returns the sorted union of two sorted lists.
func mergeSorted(a, b []uint32) []uint32 {
	if len(b) == 0 {
		return a
	}
	out := make([]uint32, 0, len(a)+len(b))
	out = append(out, a...)
	out = append(out, b...)
	slices.Sort(out)
	return slices.Compact(out)
}

func lowerBound(list []uint32, v uint32) int {
	i, _ := slices.BinarySearch(list, v)
	return i
}

// CompactReport is what Compact did.
type CompactReport struct {
	// Segments is how many segment files were merged into one; 0 when
	// there was nothing to do.
	Segments int
	// Tombstones is how many stored rows of deleted or replaced items
	// were removed.
	Tombstones int
}

// Compact rewrites a segmented index's items as one segment without the
// rows of deleted or replaced items, then drops the old segment files
// (deleted once IndexOptions.RetainDropped has passed, as other dropped
// files are). It is a no-op on LayoutFile and when the index is one segment
// without tombstones.
//
// Queries never wait for it, and writers only while it swaps the
// manifest: the new segment is written from the state committed when it
// starts, and commits made meanwhile (in this process or another) keep
// their own segments, after it, with their tombstones. When another
// process compacted or merged the same segments meanwhile, the new segment
// is thrown away and the report is empty. It is safe to call from any
// goroutine, for example on a timer.
func (ix *LocalIndex) Compact(ctx context.Context) (CompactReport, error) {
	return ix.rewrite(ctx, "compact", rewriteAll)
}

// segRun is the segments j to k-1 of a manifest, which a compaction (all
// of them) or a merge rewrites as one.
type segRun struct{ j, k int }

// rewrite compacts (rewriteAll) or merges (rewriteMerge) the index's
// files through its layout, counting and logging the work: the layout
// picks the work under the writer lock, from the state loaded now, and
// does it without the lock.
func (ix *LocalIndex) rewrite(ctx context.Context, op string, mode rewriteMode) (report CompactReport, err error) {
	start := time.Now()
	defer func() {
		m := &ix.metrics
		if report.Segments > 0 || err != nil {
			m.compactions.Add(1)
		}
		if err != nil {
			m.compactionErrors.Add(1)
		}
		took := time.Since(start)
		m.compactionNanos.Add(uint64(took))
		if report.Segments > 0 {
			ix.log.Debug("rewrote segments", "folder", ix.folder, "op", op, "segments", report.Segments, "tombstones", report.Tombstones, "took", took)
		}
	}()
	if err := ix.mu.LockContext(ctx); err != nil {
		return CompactReport{}, err
	}
	s, err := ix.loadLocked(ctx)
	var work func(context.Context) (CompactReport, error)
	if err == nil {
		work = ix.lay.rewriter(s, mode)
	}
	ix.mu.Unlock()
	if err == nil && work != nil {
		report, err = work(ctx)
	}
	if err != nil {
		return CompactReport{}, WrapOp(ctx, op, ix.folder, err)
	}
	return report, nil
}

// rewriter returns the rewrite of the run of segments mode picks in the
// files of s (nil when s is not what they hold, or there is nothing to
// do): rewriteAll every segment, when there are several or tombstones;
// rewriteMerge the run mergeRun picks. ix.mu is held; the rewrite runs
// without it (rewriteRun).
func (sl *segLayout) rewriter(s *snapshot, mode rewriteMode) func(context.Context) (CompactReport, error) {
	if sl.persisted != s {
		return nil
	}
	m, tombs := sl.man, sl.tombs
	run, ok := segRun{0, len(m.Segments)}, len(m.Segments) > 1 || len(tombs) > 0
	if mode == rewriteMerge {
		run, ok = mergeRun(m)
	}
	if !ok {
		return nil
	}
	return func(ctx context.Context) (CompactReport, error) { return sl.rewriteRun(ctx, s, m, tombs, run) }
}

// rewriteRun rewrites run, segments of before (whose sorted tombstones
// are tombs), as one segment holding their live rows in s and, unless the
// run starts the manifest, the tombstones of the segments before it; then
// it installs it in their place (install). The state s stays what queries
// read meanwhile; the swap reads the newest under the folder's lock and
// keeps what others committed since.
func (sl *segLayout) rewriteRun(ctx context.Context, s *snapshot, before manifest, tombs []uint32, run segRun) (CompactReport, error) {
	ix := sl.ix
	lo, hi := 0, s.len()
	var first uint32
	var own []uint32
	if run.j < len(before.Segments) {
		first = before.Segments[run.j].First
		lo = lowerBound(s.serials, first)
	}
	if run.k < len(before.Segments) {
		hi = lowerBound(s.serials, before.Segments[run.k].First)
	}
	if run.j > 0 {
		own = tombs[:lowerBound(tombs, first)]
	}
	name := ix.names.newSegmentName()
	sum, err := sl.writeSegmentSum(ctx, name, slotsSource(ctx, s, lo, hi, own))
	if err != nil {
		sl.discardSegment(ctx, name)
		return CompactReport{}, fmt.Errorf("write segment: %w", err)
	}
	// Reading the index again after the rewrite maps this segment: its
	// checksum is known, so the reading need not sum (and so touch) every
	// byte of the file while the old mapping is still in memory.
	ix.summed.Store(&summedSegment{name: name, sum: sum, scales: liveScales(s, lo, hi)})
	defer ix.summed.Store(nil)
	entry := segmentEntry{Name: name, First: first, Rows: liveRows(s, first, hi), Tombstones: len(own)}
	rep, err := sl.install(ctx, entry, before, run, tombs)
	if err != nil || rep.Segments == 0 {
		sl.discardSegment(ctx, name)
	}
	return rep, err
}

// install makes the newest manifest name the rewritten segment e in place
// of the run of segments of before, when the newest manifest still starts
// with before's segments up to the run's end.
func (sl *segLayout) install(ctx context.Context, e segmentEntry, before manifest, run segRun, tombs []uint32) (CompactReport, error) {
	ix := sl.ix
	if err := ix.mu.LockContext(ctx); err != nil {
		return CompactReport{}, err
	}
	defer ix.mu.Unlock()
	unlock, err := ix.lockFolder(ctx)
	if err != nil {
		return CompactReport{}, err
	}
	defer unlock()
	if err := ix.refreshLocked(ctx); err != nil {
		return CompactReport{}, err
	}
	// The layout read now: another, when another process converted the
	// folder since.
	st, ok := ix.lay.(*segLayout)
	j, k := run.j, run.k
	if !ok || len(st.man.Segments) < k || !slices.Equal(st.man.Names()[:k], before.Names()[:k]) {
		return CompactReport{}, nil
	}
	// Vacuum in another process deletes segment files no manifest names,
	// under the folder's lock, which is held from here to the manifest.
	if ok, err := ix.storage.PathExists(ctx, ix.names.path(e.Name)); err != nil || !ok {
		return CompactReport{}, err
	}
	m := st.man
	m.Segments = slices.Concat(st.man.Segments[:j], []segmentEntry{e}, st.man.Segments[k:])
	if err := st.writeManifest(ctx, m); err != nil {
		ix.watch.SetUnknown()
		return CompactReport{}, fmt.Errorf("write segments manifest: %w", err)
	}
	st.man = m
	if j == 0 {
		// The tombstones known when the compaction began are in no file
		// any more; those of commits since are, in their own segments.
		// (A merge of later segments leaves some in no file: they name
		// serials no row has any more, which is harmless.)
		st.tombs = missingSerials(st.tombs, tombs)
	}
	ix.publishLayout()
	gone := before.Names()[j:k]
	ix.dropLocked(ctx, gone)
	sl.leaveDropped(ctx, gone)
	rows := 0
	for _, old := range before.Segments[j:k] {
		rows += old.Rows
	}
	return CompactReport{Segments: k - j, Tombstones: rows - e.Rows}, nil
}

// leaveDropped reads the index again when its rows are read from a
// mapping of one of the segments gone, just dropped, so that the old
// files' space is freed once the queries still on them end, rather than
// when the process does. ix.mu is held.
func (sl *segLayout) leaveDropped(ctx context.Context, gone []string) {
	ix := sl.ix
	cur := ix.cur.Load()
	if cur == nil || cur.Pin == nil || !readsInPlace(cur.Pin, gone) {
		return
	}
	if _, err := ix.read(ctx, true, false); err != nil {
		ix.log.Warn("read the index again after a compaction", "folder", ix.folder, "err", err)
	} else if old, ok := cur.Pin.(*mappedSet); ok && ix.cur.Load().Pin != cur.Pin {
		// Queries still on the old state fault in what they read; the
		// rest of the old files' pages leave memory now rather than when
		// the mappings are closed.
		old.releasePages(ix)
	}
}

// readsInPlace reports whether a state pinning pin reads rows in place
// from one of the segment files names (or pin is not a set of segments).
func readsInPlace(pin any, names []string) bool {
	set, ok := pin.(*mappedSet)
	if !ok {
		return true
	}
	for _, f := range set.files {
		if slices.Contains(names, f.name) {
			return true
		}
	}
	for _, f := range set.ranged {
		if slices.Contains(names, f.name) {
			return true
		}
	}
	return false
}

// refreshLocked reads the index again when another process committed
// since this one last read or wrote it. ix.mu is held.
func (ix *LocalIndex) refreshLocked(ctx context.Context) error {
	changed, err := ix.watch.Changed(ctx)
	if err != nil || !changed {
		return err
	}
	_, err = ix.readLocked(ctx, true)
	return err
}

// discardSegment deletes a segment file no manifest names; failures are
// logged (Vacuum removes it later).
func (sl *segLayout) discardSegment(ctx context.Context, name string) {
	ix := sl.ix
	if err := ix.storage.DeleteFile(context.WithoutCancel(ctx), ix.names.path(name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		ix.log.Warn("remove unused segment", "folder", ix.folder, "file", name, "err", err)
	}
}

// readNew brings a segmented index up to date with the manifest
// another process wrote, reading only the segments it added when the
// manifest still starts with the ones loaded: their tombstones mark slots
// dead and their rows are appended, as a commit of this process would. ok
// is false when that cannot be done (another layout, a compaction or a
// merge since): the caller reads everything. A document index reads its
// catalog again and admits the new rows as a full load would (onLoad).
// ix.mu is held.
func (sl *segLayout) readNew(ctx context.Context) (s *snapshot, ok bool, err error) {
	ix := sl.ix
	cur := ix.cur.Load()
	if cur == nil || sl.persisted != cur || cur.Mixed {
		return nil, false, nil
	}
	m, err := ix.readManifest(ctx)
	if err != nil {
		return nil, false, nil
	}
	old := sl.man
	n := len(old.Segments)
	if m.Version != old.Version || !slices.Equal(manifestConfig(&m).Indexed, manifestConfig(&old).Indexed) ||
		len(m.Segments) < n || !slices.Equal(m.Names()[:n], old.Names()) {
		return nil, false, nil
	}
	add, ok, err := sl.readAdded(ctx, m.Segments[n:], cur.nextSerial)
	if !ok || err != nil {
		return nil, false, err
	}
	if ix.part != nil {
		data := IndexData{Version: m.Version, MetadataConfig: manifestConfig(&m), Items: add.items}
		if err := ix.part.onLoad(ctx, &data, cur.count()+len(add.items)-len(add.tombs), true); err != nil {
			return nil, false, err
		}
		if len(data.Items) != len(add.items) {
			add.serials, add.items = keptSerials(add.items, data.Items, add.serials), data.Items
		}
	}
	s, err = sl.applyAdded(ctx, cur, m, add)
	if err != nil {
		return nil, false, err
	}
	return s, true, nil
}

// addedRows are the rows and tombstones of the segments another process
// appended.
type addedRows struct {
	items          []IndexItem
	serials, tombs []uint32
}

// readAdded reads the segments entries name, appended after the rows
// loaded, whose serials are below next; ok is false when they are not
// (a full read tells what happened).
func (sl *segLayout) readAdded(ctx context.Context, entries []segmentEntry, next uint32) (add addedRows, ok bool, err error) {
	ix := sl.ix
	for _, e := range entries {
		if !ix.names.ownSegment(e.Name) {
			return add, false, fmt.Errorf("segment %q: not named as a segment of %q: %w", e.Name, ix.name, ErrCorrupt)
		}
		seg, err := sl.readSegment(ctx, e.Name, newSegArena(), nil)
		if err == nil {
			err = checkEntry(e, seg)
		}
		if errors.Is(err, fs.ErrNotExist) {
			return add, false, nil // replaced again since: the full read tells
		}
		if err != nil {
			return add, false, err
		}
		for i := range seg.items {
			if seg.serials[i] < next {
				return add, false, nil // not rows appended after ours
			}
			next = seg.serials[i] + 1
		}
		add.items = append(add.items, seg.items...)
		add.serials = append(add.serials, seg.serials...)
		add.tombs = append(add.tombs, seg.tombs...)
	}
	return add, true, nil
}

// applyAdded applies add, read from the segments of m past those of cur,
// to cur as a commit of this process would: their tombstones mark slots
// dead, their rows are appended with the serials they were stored with.
// The result is what the files hold, unless strays were left out.
func (sl *segLayout) applyAdded(ctx context.Context, cur *snapshot, m manifest, add addedRows) (*snapshot, error) {
	ix := sl.ix
	b := newBatch(cur)
	for _, it := range add.items {
		b.put(pendingItem{id: it.ID, meta: it.Metadata, file: it.MetadataFile, vec: it.Vector, norm: it.Norm, scale: vecmath.FastScale(it.Vector)}, 0, false)
	}
	base := int32(cur.len())
	for _, t := range add.tombs {
		if p, found := slices.BinarySearch(cur.serials, t); found {
			if !cur.isDead(p) {
				b.removeAt(int32(p))
			}
		} else if j, found := slices.BinarySearch(add.serials, t); found && !b.deleted[base+int32(j)] {
			b.removeAt(base + int32(j))
		}
	}
	if err := b.readBase(ctx); err != nil {
		return nil, err
	}
	s := b.apply()
	if s == cur { // nothing new but the catalog, read by onLoad
		sl.man = m
		return s, nil
	}
	live := add.serials[:0:0]
	for j, v := range add.serials {
		if !b.deleted[base+int32(j)] {
			live = append(live, v)
		}
	}
	if len(live) > 0 {
		copy(s.serials[s.len()-len(live):], live)
	}
	s.nextSerial = max(m.NextSerial, s.nextSerial)
	if ix.rerank > 0 {
		var from *snapshot
		if b.keepsBaseRows() {
			from = cur
		}
		c, err := ix.codesFor(ctx, s, from.quantCodes(), sl)
		if err != nil {
			return nil, err
		}
		s.quant.Store(c)
	}
	ix.keywords.updateBM25(ctx, b, s)
	slices.Sort(add.tombs)
	sl.man, sl.tombs, sl.persisted = m, mergeSorted(sl.tombs, slices.Compact(add.tombs)), s
	if ix.strays {
		sl.persisted = nil // the next save writes what is left whole
	}
	return s, nil
}
