package vecmath

// The int8 kernels of the quantized scan: dot products of int8 codes,
// summed exactly in int32. Codes lie in [-127, 127] (never -128) and every
// row is padded with zeros to a multiple of Int8Block values, so the
// kernels have no tail to handle; a row of Int8Block values or fewer
// multiples sums to at most 127·127·len < 2^31 for any length an index
// holds.

// Int8Block is the multiple every int8 row length is padded to.
const Int8Block = 32

// Int8Stride is the padded length of an int8 row for vectors of d values.
func Int8Stride(d int) int { return (d + Int8Block - 1) / Int8Block * Int8Block }

// DotInt8 returns the dot product of a and b, both of the same length, a
// multiple of Int8Block, with values in [-127, 127].
func DotInt8(a, b []int8) int32 {
	checkInt8(len(a), len(b), 1)
	if len(a) == 0 {
		return 0
	}
	if hasAVX2FMA {
		return dotInt8AVX2(a, b)
	}
	return dotInt8Generic(a, b)
}

// DotInt8Many writes into out[i] the dot product of q with the i-th row of
// codes, a row-major matrix of len(out) rows of len(q) values. len(q) is a
// multiple of Int8Block and every value lies in [-127, 127]. It panics if
// codes holds fewer than len(out) rows.
func DotInt8Many(q, codes []int8, out []int32) {
	checkInt8(len(q), len(codes), len(out))
	if len(q) == 0 {
		clear(out)
		return
	}
	if hasAVX2FMA {
		dotInt8ManyAVX2(q, codes, out)
		return
	}
	dotInt8ManyGeneric(q, codes, out)
}

// DotInt8ManyIdx writes into out[i] the dot product of q with row rows[i]
// of codes (see DotInt8Many): the scan of a candidate list. It panics if
// out is shorter than rows or a row is out of range.
func DotInt8ManyIdx(q, codes []int8, rows []int32, out []int32) {
	out = out[:len(rows)]
	if len(q)%Int8Block != 0 {
		panic("vecmath: int8 row length is not a multiple of Int8Block")
	}
	if len(q) == 0 {
		clear(out)
		return
	}
	if hasAVX2FMA {
		dotInt8ManyIdxAVX2(q, codes, rows, out)
		return
	}
	dotInt8ManyIdxGeneric(q, codes, rows, out)
}

func checkInt8(d, codes, rows int) {
	if d%Int8Block != 0 {
		panic("vecmath: int8 row length is not a multiple of Int8Block")
	}
	if d != 0 && codes/d < rows {
		panic("vecmath: codes hold fewer rows than out")
	}
}

func dotInt8Generic(a, b []int8) int32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 int32
	for i := 0; i+4 <= len(a); i += 4 {
		s0 += int32(a[i]) * int32(b[i])
		s1 += int32(a[i+1]) * int32(b[i+1])
		s2 += int32(a[i+2]) * int32(b[i+2])
		s3 += int32(a[i+3]) * int32(b[i+3])
	}
	return (s0 + s1) + (s2 + s3)
}

func dotInt8ManyGeneric(q, codes []int8, out []int32) {
	d := len(q)
	for i := range out {
		out[i] = dotInt8Generic(q, codes[i*d:(i+1)*d])
	}
}

func dotInt8ManyIdxGeneric(q, codes []int8, rows []int32, out []int32) {
	d := len(q)
	for i, r := range rows {
		out[i] = dotInt8Generic(q, codes[int(r)*d:(int(r)+1)*d])
	}
}
