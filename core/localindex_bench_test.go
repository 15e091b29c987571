package core

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/foliovec/folio/core/internal/vecmath"
)

// Benchmarks of the LocalIndex engine on Gaussian unit vectors with a
// 10-valued "category" and a "year" field, both indexed. Opening real index
// files is benchmarked in the root module, with the real codecs.

// ixBenchCodec is a codec whose index file is a few bytes, so benchmarks
// measure the engine, not the serialisation (measured by the codecs).
type ixBenchCodec struct{ jsonTestCodec }

func (ixBenchCodec) SerializeIndex(d IndexData) ([]byte, error) {
	return []byte(fmt.Sprintf(`{"version":%d,"metadata_config":{},"items":[]}`, d.Version)), nil
}

var ixBenchIndexed = MetadataConfig{Indexed: []string{"category", "year"}}

func ixBenchItems(n, d int) []IndexItem {
	vecs := gaussianUnitVectors(1, n, d)
	items := make([]IndexItem, n)
	for i := range items {
		items[i] = IndexItem{
			ID:       fmt.Sprintf("item-%07d", i),
			Vector:   vecs[i],
			Metadata: Metadata{"category": fmt.Sprint("c", i%10), "year": 1990 + i%35},
		}
	}
	return items
}

// ixBenchIndex builds an index of n items of dimension d directly from
// decoded data (no copy of the vectors).
func ixBenchIndex(b *testing.B, n, d int) *LocalIndex {
	b.Helper()
	items := ixBenchItems(n, d)
	for i := range items {
		items[i].Norm = vecmath.Length(items[i].Vector)
		items[i].Metadata = Metadata{"category": items[i].Metadata["category"], "year": float64(items[i].Metadata["year"].(int))}
	}
	s, err := snapshotFromData(IndexData{Version: 1, MetadataConfig: ixBenchIndexed, Items: items}, nil)
	if err != nil {
		b.Fatal(err)
	}
	ix, err := NewLocalIndex("bench", IndexOptions{Storage: newMemTestStorage(), Codec: ixBenchCodec{}})
	if err != nil {
		b.Fatal(err)
	}
	ix.cur.Store(s)
	return ix
}

func ixBenchQuery(b *testing.B, n, d int, filter Filter) {
	ix := ixBenchIndex(b, n, d)
	queries := gaussianUnitVectors(2, 64, d)
	ctx := context.Background()
	runtime.GC()
	b.ResetTimer()
	cpu := processCPUTime()
	for i := 0; b.Loop(); i++ {
		res, err := ix.QueryItems(ctx, queries[i%len(queries)], "", 10, filter, false)
		if err != nil || len(res) != 10 {
			b.Fatal(len(res), err)
		}
	}
	reportCPU(b, cpu)
}

// reportCPU reports the process CPU time per op since start: on a machine
// shared with other work, wall time grows with the load while CPU time
// does not; CPU time / GOMAXPROCS estimates the unloaded wall time of a
// scan that keeps every core busy.
func reportCPU(b *testing.B, start time.Duration) {
	if d := processCPUTime() - start; d > 0 {
		b.ReportMetric(float64(d.Microseconds())/1000/float64(b.N), "cpu-ms/op")
	}
}

func BenchmarkQuery100kx384(b *testing.B) { ixBenchQuery(b, 100_000, 384, nil) }

func BenchmarkQuery100kx384Filtered10pct(b *testing.B) {
	ixBenchQuery(b, 100_000, 384, Filter{"category": "c3"})
}

func BenchmarkQuery100kx384FilteredRange(b *testing.B) {
	ixBenchQuery(b, 100_000, 384, Filter{"year": Filter{"$gte": 2020}})
}

func BenchmarkQuery100kx1536(b *testing.B) { ixBenchQuery(b, 100_000, 1536, nil) }

func BenchmarkQuery1Mx384(b *testing.B) { ixBenchQuery(b, 1_000_000, 384, nil) }

// BenchmarkBuild100kx384Batch inserts 100k items in one BatchInsertItems
// on an empty index; the index file write is a few bytes (ixBenchCodec).
func BenchmarkBuild100kx384Batch(b *testing.B) {
	items := ixBenchItems(100_000, 384)
	ctx := context.Background()
	var cpuTotal time.Duration
	for b.Loop() {
		b.StopTimer()
		st := newMemTestStorage()
		ix, _ := NewLocalIndex("bench", IndexOptions{Storage: st, Codec: ixBenchCodec{}})
		if err := ix.CreateIndex(ctx, CreateIndexConfig{MetadataConfig: ixBenchIndexed}); err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		b.StartTimer()
		cpu := processCPUTime()
		if _, err := ix.BatchInsertItems(ctx, items); err != nil {
			b.Fatal(err)
		}
		cpuTotal += processCPUTime() - cpu
	}
	b.ReportMetric(float64(cpuTotal.Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

// BenchmarkInsertInto100kx384 is one single write (insert outside a batch)
// into an index of 100k×384 items, on each layout: engine work and the
// writes to the in-memory storage (ixBenchCodec encodes a few bytes for the
// file layout; the segmented layout writes its segment of one row).
func BenchmarkInsertInto100kx384(b *testing.B) {
	items := ixBenchItems(100_000, 384)
	v := gaussianUnitVectors(3, 1, 384)[0]
	ctx := context.Background()
	for _, layout := range []Layout{LayoutFile, LayoutSegmented} {
		b.Run(string(layout), func(b *testing.B) {
			ix, err := NewLocalIndex("bench", IndexOptions{Storage: newMemTestStorage(), Codec: ixBenchCodec{}})
			if err != nil {
				b.Fatal(err)
			}
			if err := ix.CreateIndex(ctx, CreateIndexConfig{MetadataConfig: ixBenchIndexed, Layout: layout}); err != nil {
				b.Fatal(err)
			}
			if _, err := ix.BatchInsertItems(ctx, items); err != nil {
				b.Fatal(err)
			}
			runtime.GC()
			for i := 0; b.Loop(); i++ {
				if _, err := ix.InsertItem(ctx, IndexItem{ID: fmt.Sprint("new-", i), Vector: v, Metadata: Metadata{"category": "c1", "year": 2001}}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSnapshotFromData100kx384 is the engine's share of opening an
// index: building the snapshot (slot map, norms, postings) from decoded
// data, with vectors in separate slices (copied into the arena) or in the
// decoder's arena (adopted, see VectorArenaDecoder).
func BenchmarkSnapshotFromData100kx384(b *testing.B) {
	const n, d = 100_000, 384
	items := ixBenchItems(n, d)
	arena := make([]float32, 0, n*d)
	for i := range items {
		arena = append(arena, items[i].Vector...)
		items[i].Metadata = Metadata{"category": items[i].Metadata["category"], "year": float64(items[i].Metadata["year"].(int))}
	}
	for _, adopt := range []bool{false, true} {
		name := "Copy"
		if adopt {
			name = "Arena"
		}
		b.Run(name, func(b *testing.B) {
			for i := range items {
				items[i].Vector = append([]float32(nil), arena[i*d:(i+1)*d]...)
				if adopt {
					items[i].Vector = arena[i*d : (i+1)*d : (i+1)*d]
				}
			}
			var dec []float32
			if adopt {
				dec = arena
			}
			cpu := processCPUTime()
			for b.Loop() {
				if _, err := snapshotFromData(IndexData{Version: 1, MetadataConfig: ixBenchIndexed, Items: items}, dec); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, cpu)
		})
	}
}
