package vecmath

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"testing"
)

// The query scan is memory-bound: compare the MB/s of BenchmarkDotMany with
// that of BenchmarkMemoryBandwidth at the same worker count, measured in the
// same run. ns/op is the time of one query over the whole arena.

const benchRows = 100_000

// workerCounts is 1 and GOMAXPROCS (the engine's split), once if equal.
func workerCounts() []int {
	return slices.Compact([]int{1, runtime.GOMAXPROCS(0)})
}

// split runs fn over [0, n) cut into workers contiguous ranges, one
// goroutine each, as the engine splits a query's rows.
func split(n, workers int, fn func(lo, hi int)) {
	if workers == 1 {
		fn(0, n)
		return
	}
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := n*w/workers, n*(w+1)/workers
		wg.Go(func() { fn(lo, hi) })
	}
	wg.Wait()
}

func BenchmarkDotMany(b *testing.B) {
	for _, d := range []int{384, 1536} {
		b.Run(fmt.Sprintf("d=%d", d), func(b *testing.B) {
			r := rand.New(rand.NewPCG(1, uint64(d)))
			q, arena := randVec(r, d), randVec(r, benchRows*d)
			out := make([]float32, benchRows)
			for _, k := range kernels() {
				if k.name == "dispatch" {
					continue
				}
				for _, workers := range workerCounts() {
					b.Run(fmt.Sprintf("%s/workers=%d", k.name, workers), func(b *testing.B) {
						b.SetBytes(int64(len(arena)) * 4)
						for b.Loop() {
							split(benchRows, workers, func(lo, hi int) {
								k.dotMany(q, arena[lo*d:hi*d], out[lo:hi])
							})
						}
					})
				}
			}
		})
	}
}

// BenchmarkDotManyIdx: a filtered query, 10% of 100k rows (sorted, as the
// engine gathers candidates in slot order). MB/s counts the rows read.
func BenchmarkDotManyIdx(b *testing.B) {
	const d = 384
	r := rand.New(rand.NewPCG(2, d))
	q, arena := randVec(r, d), randVec(r, benchRows*d)
	var rows []int32
	for i := range int32(benchRows) {
		if r.IntN(10) == 0 {
			rows = append(rows, i)
		}
	}
	out := make([]float32, len(rows))
	for _, k := range kernels() {
		if k.name == "dispatch" {
			continue
		}
		for _, workers := range workerCounts() {
			b.Run(fmt.Sprintf("d=%d/%s/workers=%d", d, k.name, workers), func(b *testing.B) {
				b.SetBytes(int64(len(rows)) * d * 4)
				for b.Loop() {
					split(len(rows), workers, func(lo, hi int) {
						k.dotManyIdx(q, arena, rows[lo:hi], out[lo:hi])
					})
				}
			})
		}
	}
}

// BenchmarkMemoryBandwidth is the machine's read bandwidth: a plain sum of
// 256 MiB of uint64 with the same split over workers as BenchmarkDotMany,
// and of 1 GiB, beyond any cache (this machine reports a 260 MiB L3 shared
// with other tenants). Each worker reads its range as 1 sequential stream,
// and as 8 streams in lockstep: one core's read rate is bounded by how many
// cache misses it keeps in flight, and one stream leaves the hardware
// prefetchers idle part of the time. DotMany reads its rows as one stream
// and prefetches ahead of it; the scan package's
// BenchmarkExactScanAgainstReadFloor compares the whole scan with a read of
// the same vectors.
func BenchmarkMemoryBandwidth(b *testing.B) {
	for _, mib := range []int{256, 1024} {
		b.Run(fmt.Sprintf("size=%dMiB", mib), func(b *testing.B) {
			data := make([]uint64, mib<<20/8)
			var want uint64
			for i := range data {
				data[i] = uint64(i)
				want += uint64(i)
			}
			for _, streams := range []int{1, 8} {
				for _, workers := range workerCounts() {
					b.Run(fmt.Sprintf("streams=%d/workers=%d", streams, workers), func(b *testing.B) {
						b.SetBytes(int64(len(data)) * 8)
						sums := make([]uint64, workers)
						for b.Loop() {
							split(len(data), workers, func(lo, hi int) {
								sums[lo*workers/len(data)] = sumStreams(data[lo:hi], streams)
							})
						}
						var got uint64
						for _, s := range sums {
							got += s
						}
						if got != want {
							b.Fatalf("sum = %d, want %d", got, want)
						}
					})
				}
			}
		})
	}
}

// sumStreams sums a, read as n equal parts in lockstep, one 64-byte cache
// line of each part per round, then the values left over.
func sumStreams(a []uint64, n int) uint64 {
	part := len(a) / n / 8 * 8
	var s0, s1 uint64
	for i := 0; i < part; i += 8 {
		for k := range n {
			x := a[k*part+i : k*part+i+8 : k*part+i+8]
			s0 += x[0] + x[2] + x[4] + x[6]
			s1 += x[1] + x[3] + x[5] + x[7]
		}
	}
	for _, x := range a[n*part:] {
		s0 += x
	}
	return s0 + s1
}
