package vecmath

// Dot returns the dot product of a and b over min(len(a), len(b)) elements.
func Dot(a, b []float32) float32 {
	if hasAVX2FMA {
		return dotAVX2(a, b)
	}
	return dotGeneric(a, b)
}

// DotMany writes into out[i] the dot product of q with the i-th row of arena,
// a row-major matrix of len(out) rows of len(q) columns. It panics if arena
// holds fewer than len(out)*len(q) values.
func DotMany(q, arena, out []float32) {
	checkArena(len(q), len(arena), len(out))
	if hasAVX2FMA {
		dotManyAVX2(q, arena, out)
		return
	}
	dotManyGeneric(q, arena, out)
}

// DotManyIdx writes into out[i] the dot product of q with row rows[i] of
// arena, a row-major matrix of len(q) columns: the scan of a candidate list
// (a filtered query). It panics if out is shorter than rows or a row is out
// of range.
func DotManyIdx(q, arena []float32, rows []int32, out []float32) {
	out = out[:len(rows)]
	if hasAVX2FMA {
		dotManyIdxAVX2(q, arena, rows, out)
		return
	}
	dotManyIdxGeneric(q, arena, rows, out)
}

func checkArena(d, arena, rows int) {
	if d != 0 && arena/d < rows {
		panic("vecmath: arena holds fewer rows than out")
	}
}

// Sum returns the sum of v's values, read as fast as this core streams
// memory. It is the read floor the scan benchmarks compare a scan of the
// same vectors with, not a numerically careful sum.
func Sum(v []float32) float32 {
	if hasAVX2FMA && len(v) >= 32 {
		n := len(v) &^ 31
		return sumAVX2(&v[0], n) + sumGeneric(v[n:])
	}
	return sumGeneric(v)
}

// DotMany4 is DotMany for four queries of one length at once: it writes
// into outs[j][i] the dot product of qs[j] with row i of arena, for the
// len(outs[0]) rows (every outs[j] at least that long), each bitwise what
// DotMany gives. It reads each row once for the four, which a batched scan
// of rows already in cache gains by. It panics if arena holds fewer rows
// or the queries' lengths differ.
//
// next, when at least as long as the rows read, is the rows a caller will
// score next: they are fetched into cache meanwhile (without changing any
// result), so a scan that scores each block of rows for several groups of
// four overlaps reading the next block with scoring this one. nil fetches
// nothing.
func DotMany4(qs *[4][]float32, arena, next []float32, outs *[4][]float32) {
	d := len(qs[0])
	for _, q := range qs[1:] {
		if len(q) != d {
			panic("vecmath: DotMany4 queries of different lengths")
		}
	}
	checkArena(d, len(arena), len(outs[0]))
	if hasAVX2FMA {
		dotMany4AVX2(qs, arena, next, outs)
		return
	}
	for j := range 4 {
		dotManyGeneric(qs[j], arena, outs[j][:len(outs[0])])
	}
}
