//go:build amd64 && !purego

package vecmath

// hasAVX2FMA reports whether the CPU and the OS support AVX2 and FMA. It is
// set once, when the package is initialised, and never changes.
var hasAVX2FMA = cpuHasAVX2FMA()

// cpuHasAVX2FMA checks CPUID for AVX, AVX2 and FMA and XGETBV for the OS
// saving the YMM registers.
func cpuHasAVX2FMA() bool

// dot1AVX2 returns the dot product of the n values at a and at b.
//
//go:noescape
func dot1AVX2(a, b *float32, n int) float32

// dot4AVX2 writes into out the dot products of the n values at q with the n
// values at each of r0..r3, and prefetches the n values at each of p0..p3
// (the next rows to scan; pass r0..r3 again when there are none). A
// prefetch never faults, but p0..p3 must be rows of the arena all the same.
//
//go:noescape
func dot4AVX2(q *float32, n int, r0, r1, r2, r3 *float32, out *[4]float32, p0, p1, p2, p3 *float32)

// sumAVX2 returns the sum of the n values at p, n a positive multiple of
// 32, 128 bytes an iteration into four accumulators: as fast as this core
// reads a stream.
//
//go:noescape
func sumAVX2(p *float32, n int) float32

func dotAVX2(a, b []float32) float32 {
	n := min(len(a), len(b))
	if n == 0 {
		return 0
	}
	return dot1AVX2(&a[0], &b[0], n)
}

// dotRowsAVX2 writes into out[0..count) the dot products of the n values at
// q with the count contiguous rows of n values at rows, read in memory
// order, prefetching ahead bytes past each line it reads. n, count >= 1.
// A row's result is bitwise the one dot4AVX2 gives it.
//
//go:noescape
func dotRowsAVX2(q *float32, n int, rows *float32, count int, out *float32, ahead int)

// rowsPrefetchBytes is how far ahead of its reads dotRowsAVX2 prefetches
// (measured on 100k×384, two workers: 9.0 ms with none, 8.7 ms at 1 KiB,
// about the same at 2 and 4 KiB).
const rowsPrefetchBytes = 1 << 10

// dotRows4QAVX2 writes into out[j][0..count) the dot products of the n
// values at q[j] with the count contiguous rows of n values at rows, for
// the four queries j, reading each block of a row once for all four. n,
// count >= 1. Each result is bitwise the one dotRowsAVX2 gives.
//
//go:noescape
func dotRows4QAVX2(q *[4]*float32, n int, rows *float32, count int, out *[4]*float32, next *float32)

func dotManyAVX2(q, arena, out []float32) {
	d := len(q)
	if d == 0 {
		clear(out)
		return
	}
	if len(out) == 0 {
		return
	}
	_ = arena[len(out)*d-1] // the rows lie within the arena
	dotRowsAVX2(&q[0], d, &arena[0], len(out), &out[0], rowsPrefetchBytes)
}

// dot4TailAVX2 writes into out (one to three values) the dot products of
// q with the first len(out) of rows, through the four-row kernel.
func dot4TailAVX2(q []float32, r [4][]float32, out []float32) {
	var tail [4]float32
	dot4AVX2(&q[0], len(q), &r[0][0], &r[1][0], &r[2][0], &r[3][0], &tail, &r[0][0], &r[1][0], &r[2][0], &r[3][0])
	copy(out, tail[:])
}

func dotManyIdxAVX2(q, arena []float32, rows []int32, out []float32) {
	d := len(q)
	out = out[:len(rows)]
	if d == 0 {
		clear(out)
		return
	}
	i := 0
	for ; i+4 <= len(rows); i += 4 {
		next := rows[i : i+4] // the next four rows, or these at the end
		if i+8 <= len(rows) {
			next = rows[i+4 : i+8]
		}
		dot4AVX2(&q[0], d,
			&row(arena, rows[i], d)[0], &row(arena, rows[i+1], d)[0],
			&row(arena, rows[i+2], d)[0], &row(arena, rows[i+3], d)[0],
			(*[4]float32)(out[i:i+4]),
			&row(arena, next[0], d)[0], &row(arena, next[1], d)[0],
			&row(arena, next[2], d)[0], &row(arena, next[3], d)[0])
	}
	if i < len(rows) {
		// As in dotManyAVX2: the tail through the four-row kernel.
		var r [4][]float32
		for j := range r {
			r[j] = row(arena, rows[min(i+j, len(rows)-1)], d)
		}
		dot4TailAVX2(q, r, out[i:])
	}
}

// dotInt8x1AVX2 returns the dot product of the n int8 values at a and at
// b; n is a positive multiple of 32, values lie in [-127, 127].
//
//go:noescape
func dotInt8x1AVX2(a, b *int8, n int) int32

// dotInt8x4AVX2 writes into out the dot products of the n int8 values at
// q with the n values at each of r0..r3 (n as for dotInt8x1AVX2).
//
// It prefetches the n values at each of p0..p3 (the next rows to scan, or
// r0..r3 again), as dot4AVX2 does.
//
//go:noescape
func dotInt8x4AVX2(q *int8, n int, r0, r1, r2, r3 *int8, out *[4]int32, p0, p1, p2, p3 *int8)

func dotInt8AVX2(a, b []int8) int32 {
	if len(a) == 0 {
		return 0
	}
	b = b[:len(a)]
	return dotInt8x1AVX2(&a[0], &b[0], len(a))
}

// int8PrefetchBytes is how far ahead of the rows it scores dotInt8ManyAVX2
// prefetches: int8 rows are short, and prefetching only the next four, as
// the float32 kernel does, leaves the scan waiting on memory (measured on
// 100k×384: 1.75 ms with the next four rows, 0.61 ms 16 KiB ahead).
const int8PrefetchBytes = 16 << 10

func dotInt8ManyAVX2(q, codes []int8, out []int32) {
	d := len(q)
	if d == 0 {
		clear(out)
		return
	}
	ahead := max(4, int8PrefetchBytes/d&^3) // rows
	i := 0
	for ; i+4 <= len(out); i += 4 {
		r := codes[i*d : (i+4)*d]
		p := r // four rows further on, or these near the end
		if i+ahead+4 <= len(out) {
			p = codes[(i+ahead)*d : (i+ahead+4)*d]
		}
		dotInt8x4AVX2(&q[0], d, &r[0], &r[d], &r[2*d], &r[3*d], (*[4]int32)(out[i:i+4]),
			&p[0], &p[d], &p[2*d], &p[3*d])
	}
	for ; i < len(out); i++ {
		out[i] = dotInt8x1AVX2(&q[0], &codes[i*d : (i+1)*d][0], d)
	}
}

func dotInt8ManyIdxAVX2(q, codes []int8, rows []int32, out []int32) {
	d := len(q)
	out = out[:len(rows)]
	if d == 0 {
		clear(out)
		return
	}
	i := 0
	for ; i+4 <= len(rows); i += 4 {
		next := rows[i : i+4] // the next four rows, or these at the end
		if i+8 <= len(rows) {
			next = rows[i+4 : i+8]
		}
		dotInt8x4AVX2(&q[0], d,
			&int8Row(codes, rows[i], d)[0], &int8Row(codes, rows[i+1], d)[0],
			&int8Row(codes, rows[i+2], d)[0], &int8Row(codes, rows[i+3], d)[0],
			(*[4]int32)(out[i:i+4]),
			&int8Row(codes, next[0], d)[0], &int8Row(codes, next[1], d)[0],
			&int8Row(codes, next[2], d)[0], &int8Row(codes, next[3], d)[0])
	}
	for ; i < len(rows); i++ {
		out[i] = dotInt8x1AVX2(&q[0], &int8Row(codes, rows[i], d)[0], d)
	}
}

// int8Row returns row r of a row-major int8 matrix of d columns.
func int8Row(codes []int8, r int32, d int) []int8 {
	return codes[int(r)*d : (int(r)+1)*d]
}

func dotMany4AVX2(qs *[4][]float32, arena, next []float32, outs *[4][]float32) {
	d, rows := len(qs[0]), len(outs[0])
	if rows == 0 {
		return
	}
	if d == 0 {
		for _, out := range outs {
			clear(out)
		}
		return
	}
	_ = arena[rows*d-1] // the rows lie within the arena
	var q, out [4]*float32
	for j := range 4 {
		q[j], out[j] = &qs[j][:d][0], &outs[j][:rows][0]
	}
	pf := &arena[0]
	if len(next) >= rows*d {
		pf = &next[0]
	}
	dotRows4QAVX2(&q, d, &arena[0], rows, &out, pf)
}

// dotNibblex4AVX2 writes into out the dot products of the 2n int8 weights
// at q with the n bytes of packed 4-bit codes at each of r0..r3 (n a
// positive multiple of 32), prefetching the same offsets of p0..p3 (the
// next rows to scan, or r0..r3 again), as dotInt8x4AVX2 does.
//
//go:noescape
func dotNibblex4AVX2(q *int8, n int, r0, r1, r2, r3 *byte, out *[4]int32, p0, p1, p2, p3 *byte)

// nibblePrefetchBytes is how far ahead of the block it reads
// dotNibbleManyAVX2 prefetches (measured on 1M×384, one core: 17–19.9
// GB/s at 512 bytes, as fast as a plain read of one stream; 14–15 GB/s
// at 1 to 2 KiB, 13.5 at 4 KiB; four rows in lockstep with the int8
// kernel's prefetch 16 KiB ahead read 11.8–13.7 GB/s).
const nibblePrefetchBytes = 512

// dotNibbleRowsAVX2 writes into out[0..count) the dot products of the 2n
// weights at q with the count contiguous packed rows of n bytes at rows,
// read in memory order, prefetching ahead bytes past each block it reads
// (a prefetch never faults, past the codes' end included). n is a
// positive multiple of 32, count >= 1. A row's result is the one
// dotNibblex4AVX2 gives it.
//
//go:noescape
func dotNibbleRowsAVX2(q *int8, n int, rows *byte, count int, out *int32, ahead int)

func dotNibbleManyAVX2(q []int8, codes []byte, out []int32) {
	n := len(q) / 2 // bytes a row
	if n == 0 {
		clear(out)
		return
	}
	if len(out) == 0 {
		return
	}
	_ = codes[len(out)*n-1] // the rows lie within the codes
	dotNibbleRowsAVX2(&q[0], n, &codes[0], len(out), &out[0], nibblePrefetchBytes)
}

func dotNibbleManyIdxAVX2(q []int8, codes []byte, rows []int32, out []int32) {
	n := len(q) / 2
	out = out[:len(rows)]
	if n == 0 {
		clear(out)
		return
	}
	i := 0
	for ; i+4 <= len(rows); i += 4 {
		next := rows[i : i+4] // the next four rows, or these at the end
		if i+8 <= len(rows) {
			next = rows[i+4 : i+8]
		}
		dotNibblex4AVX2(&q[0], n,
			&nibbleRow(codes, rows[i], n)[0], &nibbleRow(codes, rows[i+1], n)[0],
			&nibbleRow(codes, rows[i+2], n)[0], &nibbleRow(codes, rows[i+3], n)[0],
			(*[4]int32)(out[i:i+4]),
			&nibbleRow(codes, next[0], n)[0], &nibbleRow(codes, next[1], n)[0],
			&nibbleRow(codes, next[2], n)[0], &nibbleRow(codes, next[3], n)[0])
	}
	if i < len(rows) {
		var tail [4]int32
		for j := range tail {
			tail[j] = rows[min(i+j, len(rows)-1)]
		}
		dotNibbleTail(q, codes, tail, out[i:])
	}
}

// dotNibbleTail writes into out (one to three values) the dot products of
// q with the first len(out) of rows, through the four-row kernel.
func dotNibbleTail(q []int8, codes []byte, rows [4]int32, out []int32) {
	n := len(q) / 2
	var res [4]int32
	r := [4]*byte{}
	for j := range r {
		r[j] = &nibbleRow(codes, rows[j], n)[0]
	}
	dotNibblex4AVX2(&q[0], n, r[0], r[1], r[2], r[3], &res, r[0], r[1], r[2], r[3])
	copy(out, res[:])
}

// nibbleRow returns row r of packed 4-bit rows of n bytes.
func nibbleRow(codes []byte, r int32, n int) []byte {
	return codes[int(r)*n : (int(r)+1)*n]
}
