package vecmath

// The 4-bit kernels of the coarse scan: dot products of a query's int8
// weights with rows of unsigned 4-bit codes, summed exactly in int32.
//
// A row of d codes is packed into NibbleStride(d) bytes, a block of 32
// bytes per 64 codes: byte j of block b holds code 64b+j in its low nibble
// and code 64b+32+j in its high one; codes past d are zero. A query is
// NibbleDims(d) int8 weights in [-127, 127], in the codes' order, zero
// past d. Every product sums to at most 15·127 per code, far inside int32.

// NibbleBlock is the multiple every 4-bit row's length is padded to, in
// codes.
const NibbleBlock = 64

// NibbleDims is the padded number of codes (and query weights) of a row
// of d values.
func NibbleDims(d int) int { return (d + NibbleBlock - 1) / NibbleBlock * NibbleBlock }

// NibbleStride is the bytes of a packed 4-bit row of d values.
func NibbleStride(d int) int { return NibbleDims(d) / 2 }

// PackNibbles packs codes (each in [0, 15], len(codes) ≤ 2·len(row)) into
// row, of NibbleStride bytes, zero past the codes.
func PackNibbles(row []byte, codes []uint8) {
	clear(row)
	for i, c := range codes {
		b, j := i/NibbleBlock, i%NibbleBlock
		if j < NibbleBlock/2 {
			row[b*NibbleBlock/2+j] |= c & 0x0F
		} else {
			row[b*NibbleBlock/2+j-NibbleBlock/2] |= (c & 0x0F) << 4
		}
	}
}

// Nibble returns code i of a packed row.
func Nibble(row []byte, i int) uint8 {
	b, j := i/NibbleBlock, i%NibbleBlock
	if j < NibbleBlock/2 {
		return row[b*NibbleBlock/2+j] & 0x0F
	}
	return row[b*NibbleBlock/2+j-NibbleBlock/2] >> 4
}

// DotNibbleMany writes into out[i] the dot product of q (a multiple of
// NibbleBlock weights) with the i-th packed row of codes, len(q)/2 bytes a
// row. It panics if codes holds fewer than len(out) rows.
func DotNibbleMany(q []int8, codes []byte, out []int32) {
	checkNibble(len(q), len(codes), len(out))
	if len(q) == 0 {
		clear(out)
		return
	}
	if hasAVX2FMA {
		dotNibbleManyAVX2(q, codes, out)
		return
	}
	dotNibbleManyGeneric(q, codes, out)
}

// DotNibbleManyIdx writes into out[i] the dot product of q with packed row
// rows[i] of codes (see DotNibbleMany): the scan of a candidate list. It
// panics if out is shorter than rows or a row is out of range.
func DotNibbleManyIdx(q []int8, codes []byte, rows []int32, out []int32) {
	out = out[:len(rows)]
	checkNibble(len(q), 0, 0)
	if len(q) == 0 {
		clear(out)
		return
	}
	if hasAVX2FMA {
		dotNibbleManyIdxAVX2(q, codes, rows, out)
		return
	}
	dotNibbleManyIdxGeneric(q, codes, rows, out)
}

func checkNibble(dims, codes, rows int) {
	if dims%NibbleBlock != 0 {
		panic("vecmath: 4-bit query length is not a multiple of NibbleBlock")
	}
	if dims != 0 && codes/(dims/2) < rows {
		panic("vecmath: codes hold fewer rows than out")
	}
}

func dotNibbleGeneric(q []int8, row []byte) int32 {
	const half = NibbleBlock / 2
	var s0, s1 int32
	for b := 0; b < len(q)/NibbleBlock; b++ {
		qb, rb := q[b*NibbleBlock:(b+1)*NibbleBlock], row[b*half:(b+1)*half]
		for j, c := range rb {
			s0 += int32(qb[j]) * int32(c&0x0F)
			s1 += int32(qb[j+half]) * int32(c>>4)
		}
	}
	return s0 + s1
}

func dotNibbleManyGeneric(q []int8, codes []byte, out []int32) {
	n := len(q) / 2
	for i := range out {
		out[i] = dotNibbleGeneric(q, codes[i*n:(i+1)*n])
	}
}

func dotNibbleManyIdxGeneric(q []int8, codes []byte, rows []int32, out []int32) {
	n := len(q) / 2
	for i, r := range rows {
		out[i] = dotNibbleGeneric(q, codes[int(r)*n:(int(r)+1)*n])
	}
}
