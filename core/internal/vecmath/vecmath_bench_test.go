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
// 256 MiB of uint64 with the same split as BenchmarkDotMany, and of 1 GiB,
// beyond any cache (this machine reports a 260 MiB L3 shared with others).
func BenchmarkMemoryBandwidth(b *testing.B) {
	for _, mib := range []int{256, 1024} {
		b.Run(fmt.Sprintf("size=%dMiB", mib), func(b *testing.B) {
			data := make([]uint64, mib<<20/8)
			var want uint64
			for i := range data {
				data[i] = uint64(i)
				want += uint64(i)
			}
			for _, workers := range workerCounts() {
				b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
					b.SetBytes(int64(len(data)) * 8)
					sums := make([]uint64, workers)
					for b.Loop() {
						split(len(data), workers, func(lo, hi int) {
							sums[lo*workers/len(data)] = sum64(data[lo:hi])
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
		})
	}
}

// sum64 sums a with four independent accumulators: a read-only pass as
// fast as memory allows.
func sum64(a []uint64) uint64 {
	var s0, s1, s2, s3 uint64
	i := 0
	for ; i+4 <= len(a); i += 4 {
		x := a[i : i+4 : i+4]
		s0 += x[0]
		s1 += x[1]
		s2 += x[2]
		s3 += x[3]
	}
	for ; i < len(a); i++ {
		s0 += a[i]
	}
	return s0 + s1 + s2 + s3
}
