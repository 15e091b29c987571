package core

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"testing"

	"github.com/foliovec/folio/core/internal/scan"
	"github.com/foliovec/folio/core/internal/vecmath"
)

// partitionTestRows is the fewest rows the tests' indexes partition.
const partitionTestRows = 2_000

// partitionedPair returns two indexes over one folder holding vecs (item
// i: "item-%06d", metadata "rank" i and "category" i%1000): one whose
// queries probe partitions (IndexOptions.Partitions, partitioned from
// partitionTestRows rows on), and one that scans every row's 4-bit codes,
// the same codes the partitions group. Both are loaded.
func partitionedPair(t testing.TB, vecs [][]float32, layout Layout) (parted, whole *LocalIndex) {
	t.Helper()
	return partitionedPairOn(t, newMemTestStorage(), vecs, layout, "")
}

// partitionedPairOn is partitionedPair on the storage st, the items written
// by an index that keeps the codes writerCodes (its segments carry 4-bit
// codes when they include them).
func partitionedPairOn(t testing.TB, st FileStorage, vecs [][]float32, layout Layout, writerCodes ScanCodes) (parted, whole *LocalIndex) {
	t.Helper()
	ctx := context.Background()
	open := func(o IndexOptions) *LocalIndex {
		o.Storage, o.Codec = st, jsonTestCodec{}
		ix, err := NewLocalIndex(idxTestFolder, o)
		if err != nil {
			t.Fatal(err)
		}
		ix.parting.minRows = partitionTestRows
		return ix
	}
	fillPartitionTestIndex(t, open(IndexOptions{ScanCodes: writerCodes}), vecs, layout, "item")
	parted, whole = open(IndexOptions{Partitions: true}), open(IndexOptions{ScanCodes: CodesInt4})
	for _, ix := range []*LocalIndex{parted, whole} {
		if _, err := ix.GetIndexStats(ctx); err != nil {
			t.Fatal(err)
		}
	}
	return parted, whole
}

// Partitioned queries find, on average, the target share of the top 10 of
// a scan of every row, on clustered data where they read a small part of
// the rows, and on data where partitions cannot pay (uniform directions,
// one tight cluster, every vector many times over), where the index
// says so and scans every row. Every score returned is exact.
func TestPartitionedQueriesKeepTheirRecall(t *testing.T) {
	ctx := context.Background()
	const n, d = 8_000, 64
	dups := clusteredUnitVectors(54, n/40, d, 20, 0.5)
	var repeated [][]float32
	for i := range n {
		repeated = append(repeated, dups[i%len(dups)])
	}
	for _, data := range []struct {
		name    string
		vecs    [][]float32
		queries [][]float32
		pays    bool
	}{
		{"clustered", clusteredUnitVectors(51, n, d, 40, 0.5), clusteredUnitVectors(51, 100, d, 40, 0.5)[50:], true},
		{"uniform", gaussianUnitVectors(52, n, d), gaussianUnitVectors(53, 50, d), false},
		{"one cluster", clusteredUnitVectors(55, n, d, 1, 0.05), clusteredUnitVectors(55, 100, d, 1, 0.05)[50:], false},
		{"duplicates", repeated, clusteredUnitVectors(54, 100, d, 20, 0.5)[50:], true},
	} {
		t.Run(data.name, func(t *testing.T) {
			parted, whole := partitionedPair(t, data.vecs, LayoutSegmented)
			stats, err := parted.GetIndexStats(ctx)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d partitions, %.1f probed, %.1f%% of the rows, expected recall %.4f", stats.Partitions, stats.Probes, 100*stats.RowsRead, stats.ExpectedRecall)
			if stats.Partitions == 0 || stats.ExpectedRecall < DefaultTargetRecall {
				t.Fatalf("stats %+v: no partitions, or an expected recall under the target", stats)
			}
			if pays := stats.Probes < float64(stats.Partitions); pays != data.pays {
				t.Errorf("partitions pay: %v, want %v", pays, data.pays)
			}
			before := parted.Metrics().ProbedScans
			if got := recallAt10(t, parted, whole, data.queries, nil); got < 0.98 {
				t.Errorf("recall@10 against a scan of every row = %.4f, want >= 0.98", got)
			}
			probed := parted.Metrics().ProbedScans - before
			if data.pays && probed == 0 || !data.pays && probed != 0 {
				t.Errorf("%d of %d queries probed partitions; partitions pay: %v", probed, len(data.queries), data.pays)
			}
		})
	}
}

// A query far from every centroid, and one with no direction, scan every
// row: they answer as the index without partitions does.
func TestPartitionedQueriesOutsideTheDataScanEveryRow(t *testing.T) {
	ctx := context.Background()
	const n, d = 6_000, 64
	parted, whole := partitionedPair(t, clusteredUnitVectors(61, n, d, 30, 0.5), LayoutSegmented)
	far := gaussianUnitVectors(62, 5, d) // no cluster's direction
	far = append(far, make([]float32, d))
	before := parted.Metrics().ProbedScans
	for i, q := range far {
		got, err := parted.QueryItems(ctx, q, "", 10, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		want, err := whole.QueryItems(ctx, q, "", 10, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		sameResults(t, fmt.Sprintf("query %d", i), got, want)
	}
	if probed := parted.Metrics().ProbedScans - before; probed != 0 {
		t.Errorf("%d queries outside the data probed partitions", probed)
	}
}

// A filter its posting lists answer scans its candidates as without
// partitions; a broad filter they cannot answer is tested on the probed
// rows and keeps the recall; a narrow one scans every row.
func TestPartitionedQueriesWithFilters(t *testing.T) {
	ctx := context.Background()
	const n, d = 8_000, 64
	vecs := clusteredUnitVectors(71, n, d, 40, 0.5)
	queries := clusteredUnitVectors(71, 80, d, 40, 0.5)[40:]
	parted, whole := partitionedPair(t, vecs, LayoutFile)
	exact, err := NewLocalIndex(idxTestFolder, IndexOptions{Storage: parted.storage, Codec: parted.codec})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		filter Filter
		probes bool // queries probe partitions
	}{
		{"posting lists, 0.1%", Filter{"category": map[string]any{"$eq": float64(7)}}, false},
		{"predicate, 50%", Filter{"rank": map[string]any{"$lt": float64(n / 2)}}, true},
		{"predicate, 0.1%", Filter{"rank": map[string]any{"$lt": float64(n / 1000)}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := parted.Metrics().ProbedScans
			if got := recallAt10(t, parted, exact, queries, tc.filter); got < 0.98 {
				t.Errorf("recall@10 against the exact filtered scan = %.4f", got)
			}
			if tc.probes {
				return
			}
			if probed := parted.Metrics().ProbedScans - before; probed != 0 {
				t.Errorf("%d queries probed partitions", probed)
			}
			for i, q := range queries {
				got, err := parted.QueryItems(ctx, q, "", 10, tc.filter, false)
				if err != nil {
					t.Fatal(err)
				}
				want, err := whole.QueryItems(ctx, q, "", 10, tc.filter, false)
				if err != nil {
					t.Fatal(err)
				}
				sameResults(t, fmt.Sprintf("query %d", i), got, want)
			}
		})
	}
}

// A commit's rows are read whole by every query until they number an
// eighth of the rows trained on: a commit of rows far from the others (a
// new topic) is found by queries near them; many rows train the
// partitions again; a batch of queries answers as the same queries alone.
func TestPartitionsFollowCommits(t *testing.T) {
	ctx := context.Background()
	const n, d = 6_000, 64
	vecs := clusteredUnitVectors(81, n, d, 30, 0.5)
	parted, _ := partitionedPair(t, vecs, LayoutSegmented)
	stats, err := parted.GetIndexStats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	trained := parted.cur.Load().quantCodes().parts
	topic := clusteredUnitVectors(82, 5_000, d, 1, 0.5)
	var items []IndexItem
	for i, v := range topic[:4_500] {
		items = append(items, IndexItem{ID: fmt.Sprintf("new-%05d", i), Vector: v, Metadata: Metadata{"rank": float64(n + i), "category": float64(1)}})
	}
	if _, err := parted.BatchInsertItems(ctx, items[:20]); err != nil {
		t.Fatal(err)
	}
	c := parted.cur.Load().quantCodes()
	if c.parts != trained || c.groups.Rows() != n {
		t.Fatalf("a commit of 20 rows trained the partitions again or regrouped the codes")
	}
	exact, err := NewLocalIndex(idxTestFolder, IndexOptions{Storage: parted.storage, Codec: parted.codec})
	if err != nil {
		t.Fatal(err)
	}
	near := topic[4_500:4_530]
	if got := recallAt10(t, parted, exact, near, nil); got < 0.98 {
		t.Errorf("recall@10 of the new rows before training again = %.4f", got)
	}
	if _, err := parted.BatchInsertItems(ctx, items[20:]); err != nil {
		t.Fatal(err)
	}
	c = parted.cur.Load().quantCodes()
	if c.parts.Rows() != n+len(items) || c.groups.Rows() != n+len(items) {
		t.Fatalf("after %d more rows: %d rows partitioned, %d grouped", len(items)-20, c.parts.Rows(), c.groups.Rows())
	}
	// A new index reads what the commits since wrote.
	if exact, err = NewLocalIndex(idxTestFolder, IndexOptions{Storage: parted.storage, Codec: parted.codec}); err != nil {
		t.Fatal(err)
	}
	queries := append(slices.Clone(near), clusteredUnitVectors(81, 60, d, 30, 0.5)[30:]...)
	if got := recallAt10(t, parted, exact, queries, nil); got < 0.98 {
		t.Errorf("recall@10 after the commits = %.4f", got)
	}
	batch := make([]ItemQuery, len(queries))
	for i, q := range queries {
		batch[i] = ItemQuery{Vector: q, TopK: 10}
	}
	res, err := parted.QueryItemsBatch(ctx, batch)
	if err != nil {
		t.Fatal(err)
	}
	for i, q := range batch {
		alone, err := parted.Query(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		sameResults(t, fmt.Sprintf("batch query %d", i), res[i], alone)
	}
	if after, _ := parted.GetIndexStats(ctx); after.Partitions <= stats.Partitions {
		t.Errorf("partitions %d after training on %d more rows, %d before", after.Partitions, len(items), stats.Partitions)
	}
}

// Queries on partitions run beside commits that extend them, from many
// goroutines (run with -race).
func TestPartitionedQueriesBesideCommits(t *testing.T) {
	ctx := context.Background()
	const n, d = 4_000, 32
	parted, _ := partitionedPair(t, clusteredUnitVectors(91, n, d, 20, 0.5), LayoutSegmented)
	queries := clusteredUnitVectors(92, 40, d, 20, 0.5)
	more := clusteredUnitVectors(93, 200, d, 20, 0.5)
	var wg sync.WaitGroup
	errs := make(chan error, 5)
	wg.Go(func() {
		for i, v := range more {
			if _, err := parted.InsertItem(ctx, IndexItem{ID: fmt.Sprintf("more-%d", i), Vector: v}); err != nil {
				errs <- err
				return
			}
		}
	})
	for w := range 4 {
		wg.Go(func() {
			for i := range 100 {
				res, err := parted.QueryItems(ctx, queries[(w*100+i)%len(queries)], "", 5, nil, false)
				if err == nil && len(res) != 5 {
					err = fmt.Errorf("%d results", len(res))
				}
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

func TestPartitionOptions(t *testing.T) {
	for _, r := range []float64{-0.1, 1.5, math.NaN()} {
		_, err := NewLocalIndex(idxTestFolder, IndexOptions{Storage: newMemTestStorage(), Codec: jsonTestCodec{}, Partitions: true, TargetRecall: r})
		if !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("TargetRecall %v: %v, want ErrInvalidArgument", r, err)
		}
	}
	ix, err := NewLocalIndex(idxTestFolder, IndexOptions{Storage: newMemTestStorage(), Codec: jsonTestCodec{}, Partitions: true})
	if err != nil {
		t.Fatal(err)
	}
	if ix.codes != CodesInt4 || ix.parting.target != DefaultTargetRecall || ix.parting.minRows != PartitionMinRows {
		t.Errorf("Partitions alone: codes %q, target %v, from %d rows", ix.codes, ix.parting.target, ix.parting.minRows)
	}
	ix, err = NewLocalIndex(idxTestFolder, IndexOptions{Storage: newMemTestStorage(), Codec: jsonTestCodec{}, Partitions: true, ScanCodes: CodesInt8, TargetRecall: 0.9})
	if err != nil {
		t.Fatal(err)
	}
	if ix.codes != CodesInt8 || ix.parting.target != 0.9 {
		t.Errorf("Partitions with int8 codes: codes %q, target %v", ix.codes, ix.parting.target)
	}
	// Below PartitionMinRows an index scans every row.
	small, _ := partitionedPair(t, clusteredUnitVectors(95, partitionTestRows-1, 16, 5, 0.5), LayoutSegmented)
	if st, err := small.GetIndexStats(context.Background()); err != nil || st.Partitions != 0 {
		t.Errorf("an index of %d rows: %d partitions (%v)", partitionTestRows-1, st.Partitions, err)
	}
}

// On the segmented layout the partitions are stored beside the index: a
// later open reads them instead of training them, a compaction carries
// them over to the rows it keeps, and a file that does not describe the
// folder's rows (cut, or another index's) is trained over. The file
// layout, whose rows change under their numbers, stores none.
func TestPartitionsAreStoredAndReadBack(t *testing.T) {
	ctx := context.Background()
	const n, d = 5_000, 32
	vecs := clusteredUnitVectors(101, n, d, 25, 0.5)
	parted, _ := partitionedPair(t, vecs, LayoutSegmented)
	st := parted.storage
	path := parted.names.partitionsPath()
	trained := parted.cur.Load().quantCodes().parts
	if ok, err := st.PathExists(ctx, path); err != nil || !ok {
		t.Fatalf("no partitions file after the load that trained them (%v)", err)
	}
	reopen := func() *LocalIndex {
		t.Helper()
		ix, err := NewLocalIndex(idxTestFolder, IndexOptions{Storage: st, Codec: parted.codec, Partitions: true})
		if err != nil {
			t.Fatal(err)
		}
		ix.parting.minRows = partitionTestRows
		if _, err := ix.GetIndexStats(ctx); err != nil {
			t.Fatal(err)
		}
		return ix
	}
	again := reopen()
	read := again.cur.Load().quantCodes().parts
	if read != again.saved.parts || read.Gap != trained.Gap || !slices.EqualFunc(read.Lists(), trained.Lists(), slices.Equal) {
		t.Fatal("a second open trained the partitions instead of reading them")
	}
	queries := clusteredUnitVectors(101, 60, d, 25, 0.5)[30:]
	for i, q := range queries {
		a, err := parted.QueryItems(ctx, q, "", 10, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		b, err := again.QueryItems(ctx, q, "", 10, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		sameResults(t, fmt.Sprintf("query %d on the partitions read back", i), b, a)
	}

	// An index opened for another target recall calibrates the stored
	// partitions again, without training them, and stores them so.
	lower, err := NewLocalIndex(idxTestFolder, IndexOptions{Storage: st, Codec: parted.codec, Partitions: true, TargetRecall: 0.8})
	if err != nil {
		t.Fatal(err)
	}
	lower.parting.minRows = partitionTestRows
	low, err := lower.GetIndexStats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	lp := lower.cur.Load().quantCodes().parts
	if lp.Target != 0.8 || low.Probes >= read.Probes || !slices.Equal(lp.C.Data, trained.C.Data) || lower.saved.parts != lp {
		t.Errorf("target 0.8: %.1f probes (%.1f at 0.99), the same centroids: %v, stored: %v", low.Probes, read.Probes, slices.Equal(lp.C.Data, trained.C.Data), lower.saved.parts == lp)
	}
	if back := reopen(); back.cur.Load().quantCodes().parts.Target != DefaultTargetRecall {
		t.Error("the default target reads partitions calibrated for 0.8")
	}

	// Deletes and a compaction move the rows: the partitions follow them.
	deleteAndCompact(t, again, n, 7)
	after := again.cur.Load()
	if p := after.quantCodes().parts; p == nil || p.K() != trained.K() || p.Rows() != after.len() {
		t.Fatalf("after the compaction: partitions %v over %d rows", p != nil, after.len())
	}
	if third := reopen(); third.cur.Load().quantCodes().parts.K() != trained.K() {
		t.Error("an open after the compaction trained the partitions again")
	}

	// A damaged file, or another index's, is trained over.
	for name, damage := range map[string]func([]byte) []byte{
		"cut":     func(b []byte) []byte { return b[:len(b)/2] },
		"another": func(b []byte) []byte { return otherIndexPartitions(t, d) },
		// The same vectors under other ids: only the ids tell it apart.
		"other ids": func(b []byte) []byte { return otherIDsPartitions(t, vecs) },
	} {
		raw, err := st.ReadFile(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		bad := damage(raw)
		if err := st.UpsertFile(ctx, path, bad); err != nil {
			t.Fatal(err)
		}
		ix := reopen()
		stored, err := st.ReadFile(ctx, path)
		if p := ix.cur.Load().quantCodes().parts; err != nil || p == nil || ix.saved.parts != p || bytes.Equal(stored, bad) {
			t.Errorf("%s file: the partitions were not trained and stored again", name)
		}
		if err := st.UpsertFile(ctx, path, raw); err != nil {
			t.Fatal(err)
		}
	}

	// A conversion to the file layout deletes the file.
	conv := reopen()
	if err := conv.ConvertLayout(ctx, LayoutFile); err != nil {
		t.Fatal(err)
	}
	if ok, err := st.PathExists(ctx, path); err != nil || ok {
		t.Errorf("the partitions file is left after a conversion to the file layout (%v)", err)
	}

	fileIx, _ := partitionedPair(t, vecs[:partitionTestRows+10], LayoutFile)
	if ok, _ := fileIx.storage.PathExists(ctx, fileIx.names.partitionsPath()); ok {
		t.Error("an index on the file layout stored its partitions")
	}
}

// deleteAndCompact deletes every step-th of ix's n items ("item-%06d"),
// compacts the index and reads what the compaction installed.
func deleteAndCompact(t *testing.T, ix *LocalIndex, n, step int) {
	t.Helper()
	ctx := context.Background()
	var gone []string
	for i := 0; i < n; i += step {
		gone = append(gone, fmt.Sprintf("item-%06d", i))
	}
	if err := ix.DeleteItems(ctx, gone); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Compact(ctx); err != nil {
		t.Fatal(err)
	}
	if err := ix.mu.LockContext(ctx); err != nil {
		t.Fatal(err)
	}
	_ = ix.refreshLocked(ctx)
	ix.mu.Unlock()
}

// otherIndexPartitions is the partitions file of another index of
// partitionTestRows+100 rows of d values, with other ids.
func otherIndexPartitions(t *testing.T, d int) []byte {
	t.Helper()
	vecs := clusteredUnitVectors(102, partitionTestRows+100, d, 10, 0.5)
	other, _ := partitionedPair(t, vecs, LayoutSegmented)
	ctx := context.Background()
	for i := range vecs {
		if err := other.DeleteItem(ctx, fmt.Sprintf("item-%06d", i)); err != nil {
			t.Fatal(err)
		}
		if i == 50 {
			break
		}
	}
	raw, err := other.storage.ReadFile(ctx, other.names.partitionsPath())
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// fillPartitionTestIndex creates ix on layout and inserts vecs, item i as
// "<prefix>-%06d" with metadata "rank" i and "category" i%1000.
func fillPartitionTestIndex(t testing.TB, ix *LocalIndex, vecs [][]float32, layout Layout, prefix string) {
	t.Helper()
	ctx := context.Background()
	if err := ix.CreateIndex(ctx, CreateIndexConfig{Layout: layout, MetadataConfig: MetadataConfig{Indexed: []string{"category"}}}); err != nil {
		t.Fatal(err)
	}
	items := make([]IndexItem, len(vecs))
	for i, v := range vecs {
		items[i] = IndexItem{ID: fmt.Sprintf("%s-%06d", prefix, i), Vector: v, Metadata: Metadata{"rank": float64(i), "category": float64(i % 1000)}}
	}
	if _, err := ix.BatchInsertItems(ctx, items); err != nil {
		t.Fatal(err)
	}
}

// otherIDsPartitions is the partitions file of an index of vecs, as
// partitionedPair makes, whose items have other ids.
func otherIDsPartitions(t *testing.T, vecs [][]float32) []byte {
	t.Helper()
	ctx := context.Background()
	st := newMemTestStorage()
	ix, err := NewLocalIndex(idxTestFolder, IndexOptions{Storage: st, Codec: jsonTestCodec{}, Partitions: true})
	if err != nil {
		t.Fatal(err)
	}
	ix.parting.minRows = partitionTestRows
	fillPartitionTestIndex(t, ix, vecs, LayoutSegmented, "other")
	if _, err := ix.GetIndexStats(ctx); err != nil {
		t.Fatal(err)
	}
	raw, err := st.ReadFile(ctx, ix.names.partitionsPath())
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// On storage that maps files, the first open that groups the codes by
// partition writes them to the grouped codes file, and a later open maps
// that file instead of copying every row's codes: its answers are the
// same. A damaged file, or one of other partitions, is grouped over and
// written again; a compaction that moves the rows writes both files again,
// which the next open maps; storage that does not map gets no such file;
// a conversion to the file layout deletes it.
func TestGroupedCodesFileIsMapped(t *testing.T) {
	ctx := context.Background()
	const n, d = 5_000, 32
	vecs := clusteredUnitVectors(103, n, d, 25, 0.5)
	st := &mappingTestStorage{memTestStorage: newMemTestStorage()}
	parted, _ := partitionedPairOn(t, st, vecs, LayoutSegmented, CodesInt4)
	path := parted.names.groupsPath()
	first := parted.cur.Load().quantCodes()
	if first.groups == nil || parted.saved.groups != first.groups {
		t.Fatal("the open that grouped the codes did not write them")
	}
	written, err := st.ReadFile(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	reopen := func() (*LocalIndex, *coarse) {
		t.Helper()
		ix, err := NewLocalIndex(idxTestFolder, IndexOptions{Storage: st, Codec: parted.codec, Partitions: true})
		if err != nil {
			t.Fatal(err)
		}
		ix.parting.minRows = partitionTestRows
		if _, err := ix.GetIndexStats(ctx); err != nil {
			t.Fatal(err)
		}
		return ix, ix.cur.Load().quantCodes()
	}
	mapped := func(ix *LocalIndex, c *coarse) bool {
		return c.groups != nil && c.groups.Read() && ix.saved.groups == c.groups && c.groups.Covers(c.parts.Lists())
	}
	queries := clusteredUnitVectors(103, 60, d, 25, 0.5)[30:]
	same := func(what string, got, want *LocalIndex) {
		t.Helper()
		for i, q := range queries {
			a, err := want.QueryItems(ctx, q, "", 10, nil, false)
			if err != nil {
				t.Fatal(err)
			}
			b, err := got.QueryItems(ctx, q, "", 10, nil, false)
			if err != nil {
				t.Fatal(err)
			}
			sameResults(t, fmt.Sprintf("%s, query %d", what, i), b, a)
		}
	}
	maps, read := st.maps.Load(), st.readAtB.Load()
	again, c := reopen()
	if !mapped(again, c) || st.maps.Load() == maps {
		t.Fatal("a second open did not map the grouped codes file")
	}
	// The segment's codes are summed through reads, which leave the
	// mapping's pages alone (an index that does not partition sums them
	// through the mapping, whose pages its scan reads anyway).
	codeBytes := int64(n * vecmath.NibbleStride(d))
	if got := st.readAtB.Load() - read; got < codeBytes {
		t.Errorf("the open read %d bytes through ReadAt, fewer than the %d of the codes: it summed them through the mapping", got, codeBytes)
	}
	read = st.readAtB.Load()
	plainIx, err := NewLocalIndex(idxTestFolder, IndexOptions{Storage: st, Codec: parted.codec, ScanCodes: CodesInt4})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := plainIx.GetIndexStats(ctx); err != nil || st.readAtB.Load()-read >= codeBytes {
		t.Errorf("an open without partitions read %d bytes through ReadAt (%v)", st.readAtB.Load()-read, err)
	}
	if after, _ := st.ReadFile(ctx, path); !bytes.Equal(after, written) {
		t.Error("an open that mapped the grouped codes file wrote it again")
	}
	same("codes mapped", again, parted)

	damaged := map[string]func([]byte) []byte{
		"cut":   func(b []byte) []byte { return b[:len(b)/2] },
		"table": func(b []byte) []byte { b = slices.Clone(b); b[100] ^= 1; return b },
		"empty": func([]byte) []byte { return nil },
		// Well formed, with the partitions file's token, but a row in
		// another partition.
		"other rows": func([]byte) []byte { return otherGroups(t, again) },
	}
	for name, damage := range damaged {
		bad := damage(written)
		if err := st.UpsertFile(ctx, path, bad); err != nil {
			t.Fatal(err)
		}
		ix, c := reopen()
		if c.groups == nil || c.groups.Read() {
			t.Errorf("%s file: the codes were not grouped again", name)
		}
		if now, _ := st.ReadFile(ctx, path); bytes.Equal(now, bad) {
			t.Errorf("%s file: not written again", name)
		}
		same(name+" file", ix, parted)
		if ix2, c2 := reopen(); !mapped(ix2, c2) {
			t.Errorf("%s file: the open after the one that wrote it again did not map it", name)
		}
	}

	// A compaction that moves the rows writes both files again.
	deleteAndCompact(t, again, n, 5)
	third, c := reopen()
	if !mapped(third, c) || c.parts.Rows() != third.cur.Load().len() {
		t.Fatal("the open after a compaction did not map the grouped codes file")
	}
	same("after a compaction", third, again)

	// Storage that does not map files gets no grouped codes file.
	plain, _ := partitionedPair(t, vecs, LayoutSegmented)
	if ok, _ := plain.storage.PathExists(ctx, plain.names.groupsPath()); ok {
		t.Error("an index on storage that does not map wrote a grouped codes file")
	}

	if err := third.ConvertLayout(ctx, LayoutFile); err != nil {
		t.Fatal(err)
	}
	if ok, err := st.PathExists(ctx, path); err != nil || ok {
		t.Errorf("the grouped codes file is left after a conversion to the file layout (%v)", err)
	}
}

// otherGroups is a well-formed grouped codes file for ix's partitions file
// (its token) whose rows are not its partitions': the last row of the
// largest partition moved to another.
func otherGroups(t *testing.T, ix *LocalIndex) []byte {
	t.Helper()
	c := ix.cur.Load().quantCodes()
	lists := slices.Clone(c.parts.Lists())
	big := 0
	for i, l := range lists {
		if len(l) > len(lists[big]) {
			big = i
		}
	}
	to := (big + 1) % len(lists)
	moved := lists[big][len(lists[big])-1]
	lists[big] = lists[big][:len(lists[big])-1]
	lists[to] = slices.Sorted(slices.Values(append(slices.Clone(lists[to]), moved)))
	var buf bytes.Buffer
	if err := scan.GroupNibbles(c.int4, lists).Encode(&buf, ix.saved.sum); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
