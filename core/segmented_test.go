package core

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/foliovec/folio/core/internal/segfile"
	"github.com/foliovec/folio/core/internal/testtok"
)

// twinIndexes are the same items on both layouts: every write goes to
// both, and every read must agree.
type twinIndexes struct {
	t        *testing.T
	file     *LocalIndex
	seg      *LocalIndex
	segStore *memTestStorage
	opts     IndexOptions
	// mapped, when set, is the segmented index's storage: it maps files,
	// and every segment is read in place from its mapping.
	mapped *mappingTestStorage
}

// newTwinIndexes makes the twins; with mapped, the segmented index's
// storage maps files (mappingTestStorage).
func newTwinIndexes(t *testing.T, cfg CreateIndexConfig, opts IndexOptions, mapped ...bool) *twinIndexes {
	t.Helper()
	ctx := context.Background()
	tw := &twinIndexes{t: t, opts: opts}
	open := func(layout Layout) (*LocalIndex, *memTestStorage) {
		st := newMemTestStorage()
		o := opts
		o.Storage, o.Codec = st, jsonTestCodec{}
		if layout == LayoutSegmented && len(mapped) > 0 && mapped[0] {
			tw.mapped = &mappingTestStorage{memTestStorage: st}
			o.Storage = tw.mapped
		}
		ix, err := NewLocalIndex(idxTestFolder, o)
		if err != nil {
			t.Fatal(err)
		}
		ix.mapMin = 1
		c := cfg
		c.Layout = layout
		if err := ix.CreateIndex(ctx, c); err != nil {
			t.Fatal(err)
		}
		return ix, st
	}
	tw.file, _ = open(LayoutFile)
	tw.seg, tw.segStore = open(LayoutSegmented)
	return tw
}

// reopenSegmented replaces the segmented index by a new LocalIndex over its
// storage, which reads its files again.
func (tw *twinIndexes) reopenSegmented() {
	o := tw.opts
	o.Storage, o.Codec = tw.segStore, jsonTestCodec{}
	if tw.mapped != nil {
		o.Storage = tw.mapped
	}
	ix, err := NewLocalIndex(idxTestFolder, o)
	if err != nil {
		tw.t.Fatal(err)
	}
	ix.mapMin = 1
	tw.seg = ix
}

func (tw *twinIndexes) both(what string, f func(ix *LocalIndex) error) {
	tw.t.Helper()
	errFile, errSeg := f(tw.file), f(tw.seg)
	if (errFile == nil) != (errSeg == nil) {
		tw.t.Fatalf("%s: file layout: %v; segmented: %v", what, errFile, errSeg)
	}
}

// sortedItems sorts items by id, side-car names (random) made "sidecar".
func sortedItems(items []IndexItem) []IndexItem {
	out := slices.SortedFunc(slices.Values(items), func(a, b IndexItem) int { return cmp.Compare(a.ID, b.ID) })
	for i := range out {
		if out[i].MetadataFile != "" {
			out[i].MetadataFile = "sidecar"
		}
	}
	return out
}

// check compares every item and a set of queries on both layouts: exact,
// filtered, hybrid (BM25) and batched.
func (tw *twinIndexes) check(what string, rng *rand.Rand, dim int) {
	tw.t.Helper()
	ctx := context.Background()
	a, err := tw.file.ListItems(ctx)
	if err != nil {
		tw.t.Fatal(err)
	}
	b, err := tw.seg.ListItems(ctx)
	if err != nil {
		tw.t.Fatalf("%s: segmented: %v", what, err)
	}
	if !reflect.DeepEqual(sortedItems(a), sortedItems(b)) {
		sa, sb := sortedItems(a), sortedItems(b)
		for i := range min(len(sa), len(sb)) {
			if !reflect.DeepEqual(sa[i], sb[i]) {
				tw.t.Fatalf("%s: items differ:\nfile layout %+v\nsegmented   %+v", what, sa[i], sb[i])
			}
		}
		tw.t.Fatalf("%s: items differ: file layout %d, segmented %d", what, len(a), len(b))
	}
	var batch []ItemQuery
	for q := range 4 {
		query := ItemQuery{Vector: randomVector(rng, dim), TopK: 5}
		if q%2 == 1 {
			query.Filter = Filter{"group": map[string]any{"$lt": float64(3)}}
		}
		if q >= 2 {
			query.Query, query.IsBm25 = twinWords[rng.IntN(len(twinWords))], true
		}
		batch = append(batch, query)
		ra, err := tw.file.Query(ctx, query)
		if err != nil {
			tw.t.Fatal(err)
		}
		rb, err := tw.seg.Query(ctx, query)
		if err != nil {
			tw.t.Fatal(err)
		}
		if !sameAnswers(ra, rb) {
			tw.t.Fatalf("%s: query %d: file layout %v, segmented %v", what, q, resultIDs(ra), resultIDs(rb))
		}
	}
	ba, err := tw.file.QueryItemsBatch(ctx, batch)
	if err != nil {
		tw.t.Fatal(err)
	}
	bb, err := tw.seg.QueryItemsBatch(ctx, batch)
	if err != nil {
		tw.t.Fatal(err)
	}
	for i := range ba {
		if !sameAnswers(ba[i], bb[i]) {
			tw.t.Fatalf("%s: batched query %d: file layout %v, segmented %v", what, i, resultIDs(ba[i]), resultIDs(bb[i]))
		}
	}
}

// sameAnswers compares two answers by id and score, results of equal score
// in either order (storage order differs between the layouts: the
// segmented layout stores a replaced item anew).
func sameAnswers(a, b []QueryResult) bool {
	key := func(rs []QueryResult) []string {
		out := make([]string, len(rs))
		for i, r := range rs {
			out[i] = fmt.Sprintf("%.12f %s %v", r.Score, r.Item.ID, r.Item.Metadata["isBm25"])
		}
		slices.Sort(out)
		return out
	}
	return slices.Equal(key(a), key(b))
}

// twinWords make the documents of the twin indexes' chunks.
var twinWords = strings.Fields("apple river stone cloud maple copper violin harbor lantern meadow falcon quartz")

// twinText is document d's text: words picked by d, so that chunks of
// different documents and spans differ.
func twinText(doc string) string {
	var sb strings.Builder
	h := 0
	for _, c := range doc {
		h = h*31 + int(c)
	}
	for i := range 40 {
		sb.WriteString(twinWords[(h+i*i)%len(twinWords)])
		sb.WriteByte(' ')
	}
	return sb.String()
}

func randomVector(rng *rand.Rand, dim int) []float32 {
	v := make([]float32, dim)
	for i := range v {
		v[i] = float32(rng.NormFloat64())
	}
	return v
}

// TestSegmentedLayoutMatchesFileLayout applies the same random inserts,
// upserts, deletes and batches (10,000 writes) to an index on each layout,
// reopening and compacting the segmented one now and then: both always
// hold the same items and answer exact, filtered, hybrid and batched
// queries the same, with the exact and the quantized scan.
func TestSegmentedLayoutMatchesFileLayout(t *testing.T) {
	for _, quantized := range []bool{false, true} {
		t.Run(fmt.Sprintf("quantized=%v", quantized), func(t *testing.T) {
			testTwinLayouts(t, IndexOptions{RetainDropped: -1, QuantizedScan: quantized}, 10_000, false)
		})
	}
	// The large segments read in place from their mappings (FileMapper), as the
	// file-system storage does: the same answers, and every mapping is
	// closed once no snapshot holds it.
	t.Run("mapped", func(t *testing.T) {
		tw := testTwinLayouts(t, IndexOptions{RetainDropped: -1}, 5_000, true)
		if tw.mapped.maps.Load() == 0 {
			t.Fatal("no segment was mapped")
		}
		tw.seg, tw.file = nil, nil
		for range 50 {
			runtime.GC()
			if tw.mapped.open.Load() == 0 {
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
		t.Fatalf("%d of %d mappings still open with no index holding them", tw.mapped.open.Load(), tw.mapped.maps.Load())
	})
}

func testTwinLayouts(t *testing.T, opts IndexOptions, writes int, mapped bool) *twinIndexes {
	const dim = 8
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(7, 11))
	opts.DocReader = func(_ context.Context, doc string) (string, error) { return twinText(doc), nil }
	tw := newTwinIndexes(t, CreateIndexConfig{MetadataConfig: MetadataConfig{Indexed: []string{"group"}}}, opts, mapped)
	item := func() IndexItem {
		id := fmt.Sprintf("item-%d", rng.IntN(300))
		start := rng.IntN(30)
		md := Metadata{"group": float64(rng.IntN(6)), "documentId": fmt.Sprint("doc", rng.IntN(20)), "startPos": float64(start * 5), "endPos": float64(start*5 + 20 + rng.IntN(40))}
		if rng.IntN(4) == 0 {
			md["note"] = strings.Repeat("x", rng.IntN(5)) // not indexed: a side-car
		}
		return IndexItem{ID: id, Vector: randomVector(rng, dim), Metadata: md}
	}
	for step := 0; step < writes; {
		switch op := rng.IntN(20); {
		case op < 10:
			it := item()
			tw.both("upsert", func(ix *LocalIndex) error { _, err := ix.UpsertItem(ctx, it); return err })
			step++
		case op < 14:
			id := fmt.Sprintf("item-%d", rng.IntN(300))
			tw.both("delete", func(ix *LocalIndex) error { return ix.DeleteItem(ctx, id) })
			step++
		case op < 19:
			items := make([]IndexItem, 1+rng.IntN(30))
			for i := range items {
				items[i] = item()
			}
			del := []string{fmt.Sprintf("item-%d", rng.IntN(300)), fmt.Sprintf("item-%d", rng.IntN(300))}
			tw.both("batch", func(ix *LocalIndex) error {
				if err := ix.BeginUpdate(ctx); err != nil {
					return err
				}
				for _, it := range items {
					if _, err := ix.UpsertItem(ctx, it); err != nil {
						ix.CancelUpdate()
						return err
					}
				}
				if err := ix.DeleteItems(ctx, del); err != nil {
					ix.CancelUpdate()
					return err
				}
				return ix.EndUpdate(ctx)
			})
			step += len(items) + len(del)
		default:
			tw.reopenSegmented()
		}
		if rng.IntN(300) == 0 {
			if _, err := tw.seg.Compact(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if rng.IntN(20) == 0 {
			tw.check(fmt.Sprintf("write %d", step), rng, dim)
		}
	}
	tw.reopenSegmented()
	tw.check("end", rng, dim)
	stats, err := tw.seg.GetIndexStats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if stats.Storage.Layout != LayoutSegmented || stats.Storage.Segments < 2 || stats.Storage.Tombstones == 0 {
		t.Fatalf("stats %+v, want the segmented layout with segments and tombstones", stats.Storage)
	}
	rep, err := tw.seg.Vacuum(ctx)
	if err != nil {
		t.Fatal(err)
	}
	stats, _ = tw.seg.GetIndexStats(ctx)
	if stats.Storage.Segments != 1 || stats.Storage.Tombstones != 0 || rep.Compacted.Segments == 0 {
		t.Fatalf("after Vacuum: %+v (report %+v), want one segment and no tombstones", stats.Storage, rep)
	}
	tw.reopenSegmented()
	tw.check("after vacuum", rng, dim)
	segs := 0
	for _, n := range tw.segStore.fileNames(idxTestFolder) {
		if strings.HasSuffix(n, segfile.Ext) {
			segs++
		}
	}
	if segs != 1 {
		t.Fatalf("folder holds %d segment files after Vacuum, want 1", segs)
	}
	return tw
}

// TestSegmentedCorruptSegment checks that a damaged segment fails the load
// with ErrCorrupt.
func TestSegmentedCorruptSegment(t *testing.T) {
	ctx := context.Background()
	ix, st := newCreatedIndex(t, CreateIndexConfig{Layout: LayoutSegmented})
	mustInsert(t, ix, "a", []float32{1, 2, 3}, nil)
	for _, n := range st.fileNames(idxTestFolder) {
		if strings.HasSuffix(n, segfile.Ext) {
			raw, _ := st.ReadFile(ctx, idxTestFolder+"/"+n)
			raw[segfile.HeaderLen+2] ^= 0xff
			if err := st.UpsertFile(ctx, idxTestFolder+"/"+n, raw); err != nil {
				t.Fatal(err)
			}
		}
	}
	_, err := reopen(t, st).ListItems(ctx)
	if !errors.Is(err, ErrCorrupt) {
		t.Fatalf("got %v, want ErrCorrupt", err)
	}
}

// segReadCounter is a MemoryStorage (folder locks and file versions
// included) that counts the reads of segment files.
type segReadCounter struct {
	*MemoryStorage
	mu    sync.Mutex
	reads int
}

func (c *segReadCounter) ReadFile(ctx context.Context, p string) ([]byte, error) {
	if strings.HasSuffix(p, segfile.Ext) {
		c.mu.Lock()
		c.reads++
		c.mu.Unlock()
	}
	return c.MemoryStorage.ReadFile(ctx, p)
}

func (c *segReadCounter) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.reads
}

// TestSegmentedReaderReadsOnlyNewSegments has a writer and a reader (two
// LocalIndex values, as two processes) share a segmented folder: after
// each commit the reader holds exactly the writer's items, and it has read
// only the segments written since its last read, unless a merge replaced
// segments it had.
func TestSegmentedReaderReadsOnlyNewSegments(t *testing.T) {
	ctx := context.Background()
	st := &segReadCounter{MemoryStorage: NewMemoryStorage()}
	opts := IndexOptions{Storage: st, Codec: jsonTestCodec{}, FreshnessInterval: time.Nanosecond, RetainDropped: time.Hour, QuantizedScan: true}
	writer, err := NewLocalIndex(idxTestFolder, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := writer.CreateIndex(ctx, CreateIndexConfig{Layout: LayoutSegmented, MetadataConfig: MetadataConfig{Indexed: []string{"group"}}}); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 5))
	items := make([]IndexItem, 400)
	for i := range items {
		items[i] = IndexItem{ID: fmt.Sprint("i", i), Vector: randomVector(rng, 8), Metadata: Metadata{"group": float64(i % 4)}}
	}
	if _, err := writer.BatchInsertItems(ctx, items); err != nil {
		t.Fatal(err)
	}
	reader, err := NewLocalIndex(idxTestFolder, opts)
	if err != nil {
		t.Fatal(err)
	}
	incremental := 0
	for step := range 40 {
		id := fmt.Sprint("i", rng.IntN(500))
		switch step % 3 {
		case 0, 1:
			_, err = writer.UpsertItem(ctx, IndexItem{ID: id, Vector: randomVector(rng, 8), Metadata: Metadata{"group": float64(step % 4)}})
		default:
			err = writer.DeleteItem(ctx, id)
		}
		if err != nil {
			t.Fatal(err)
		}
		before := st.count()
		segsBefore := len(writer.lay.(*segLayout).man.Segments)
		got, err := reader.ListItems(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := writer.ListItems(ctx)
		if !reflect.DeepEqual(sortedItems(got), sortedItems(want)) {
			t.Fatalf("step %d: the reader holds %d items, the writer %d", step, len(got), len(want))
		}
		if read := st.count() - before; read <= 1 {
			incremental++
		} else if read > segsBefore {
			t.Fatalf("step %d: the reader read %d segments of %d", step, read, segsBefore)
		}
		q := randomVector(rng, 8)
		a, err := reader.QueryItems(ctx, q, "", 5, Filter{"group": float64(1)}, false)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := writer.QueryItems(ctx, q, "", 5, Filter{"group": float64(1)}, false)
		if !reflect.DeepEqual(resultIDs(a), resultIDs(b)) {
			t.Fatalf("step %d: reader %v, writer %v", step, resultIDs(a), resultIDs(b))
		}
	}
	if incremental < 20 {
		t.Fatalf("only %d of 40 reloads read just the new segment", incremental)
	}
}

// TestFirstReadUnderTheFolderLock opens an index for the first time in
// calls that take the folder's lock before they read it (Vacuum,
// ConvertLayout) while the folder lists dropped files, which the first
// read collects under that same lock: the calls must not wait on
// themselves.
func TestFirstReadUnderTheFolderLock(t *testing.T) {
	st := NewMemoryStorage()
	opts := IndexOptions{Storage: st, Codec: jsonTestCodec{}, RetainDropped: time.Hour}
	writer, err := NewLocalIndex(idxTestFolder, opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := writer.CreateIndex(ctx, CreateIndexConfig{MetadataConfig: MetadataConfig{Indexed: []string{"k"}}}); err != nil {
		t.Fatal(err)
	}
	for range 2 { // the second replaces the first, dropping its side-car
		if _, err := writer.UpsertItem(ctx, IndexItem{ID: "a", Vector: []float32{1, 2}, Metadata: Metadata{"note": "x"}}); err != nil {
			t.Fatal(err)
		}
	}
	for name, call := range map[string]func(ctx context.Context, ix *LocalIndex) error{
		"Vacuum":        func(ctx context.Context, ix *LocalIndex) error { _, err := ix.Vacuum(ctx); return err },
		"ConvertLayout": func(ctx context.Context, ix *LocalIndex) error { return ix.ConvertLayout(ctx, LayoutSegmented) },
	} {
		ix, err := NewLocalIndex(idxTestFolder, opts)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		if err := call(ctx, ix); err != nil {
			t.Fatalf("%s on a first read: %v", name, err)
		}
		cancel()
	}
}

// TestConvertLayoutResumes interrupts conversions both ways at every write
// and delete (the storage fails from then on, as if the process died):
// the index always reads as before, and converting again finishes.
func TestConvertLayoutResumes(t *testing.T) {
	ctx := context.Background()
	for _, to := range []Layout{LayoutSegmented, LayoutFile} {
		from := LayoutFile
		if to == LayoutFile {
			from = LayoutSegmented
		}
		for crash := 1; ; crash++ {
			ix, st := newCreatedIndex(t, CreateIndexConfig{Layout: from, MetadataConfig: MetadataConfig{Indexed: []string{"k"}}})
			for i := range 6 {
				mustInsert(t, ix, fmt.Sprint("i", i), []float32{float32(i), 1}, Metadata{"k": float64(i), "note": "side-car"})
			}
			want := mustList(t, ix)
			st.crashAt = st.mutations + crash
			err := reopen(t, st).ConvertLayout(ctx, to)
			st.crashAt = 0
			if got := mustList(t, reopen(t, st)); !reflect.DeepEqual(got, want) {
				t.Fatalf("to %s, crash at mutation %d: the items differ", to, crash)
			}
			if err := reopen(t, st).ConvertLayout(ctx, to); err != nil {
				t.Fatalf("to %s, crash at mutation %d: converting again: %v", to, crash, err)
			}
			again := reopen(t, st)
			if got := mustList(t, again); !reflect.DeepEqual(got, want) {
				t.Fatalf("to %s, crash at mutation %d: the items differ after finishing", to, crash)
			}
			if stats, _ := again.GetIndexStats(ctx); stats.Storage.Layout != to {
				t.Fatalf("to %s, crash at mutation %d: layout %s", to, crash, stats.Storage.Layout)
			}
			if err == nil {
				break // the conversion made fewer writes than crash: every point was tried
			}
		}
	}
}

// TestSegmentedDocumentReaderReadsOnlyNewSegments: a reader of a segmented
// document index (another LocalDocumentIndex on the same storage) follows
// a writer's upserts, replacements and deletes by reading the new segments
// and the catalog, and answers as the writer does.
func TestSegmentedDocumentReaderReadsOnlyNewSegments(t *testing.T) {
	ctx := context.Background()
	st := &segReadCounter{MemoryStorage: NewMemoryStorage()}
	open := func() *LocalDocumentIndex {
		d, err := NewLocalDocumentIndex(LocalDocumentIndexConfig{
			FolderPath: idxTestFolder, Embeddings: &docTestEmbeddings{maxTokens: 10_000}, Tokenizer: testtok.Char{},
			ChunkingConfig: ChunkingConfig{ChunkSize: 40},
			IndexOptions:   IndexOptions{Storage: st, Codec: jsonTestCodec{}, FreshnessInterval: time.Nanosecond, RetainDropped: time.Hour},
		})
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	writer := open()
	if err := writer.CreateIndex(ctx, CreateIndexConfig{Layout: LayoutSegmented}); err != nil {
		t.Fatal(err)
	}
	reader := open()
	words := strings.Fields("red green blue cyan magenta yellow black white orange purple")
	incremental := 0
	for step := range 30 {
		uri := fmt.Sprint("doc", step%7)
		var err error
		if step%5 == 4 {
			err = writer.DeleteDocument(ctx, uri)
		} else {
			_, err = writer.UpsertDocument(ctx, uri, strings.Repeat(words[step%len(words)]+" ", 12+step), "txt", nil, nil)
		}
		if err != nil {
			t.Fatal(err)
		}
		before := st.count()
		got, err := reader.ListDocuments(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := writer.ListDocuments(ctx)
		if len(got) != len(want) {
			t.Fatalf("step %d: the reader lists %d documents, the writer %d", step, len(got), len(want))
		}
		if st.count()-before <= 2 {
			incremental++
		}
		q := words[step%len(words)]
		a, err := reader.QueryDocuments(ctx, q, &DocumentQueryOptions{MaxDocuments: 5})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := writer.QueryDocuments(ctx, q, &DocumentQueryOptions{MaxDocuments: 5})
		if len(a) != len(b) || (len(a) > 0 && (a[0].URI() != b[0].URI() || a[0].Score != b[0].Score)) {
			t.Fatalf("step %d: the reader and the writer answer %q differently", step, q)
		}
	}
	if incremental < 15 {
		t.Fatalf("only %d of 30 reloads read just the new segments", incremental)
	}
}
