//go:build amd64 && !purego

#include "textflag.h"

// tailmask<>: eight all-ones lanes then eight zero lanes. The 8 lanes at
// byte offset 4*(8-k) have their first k lanes set: the mask of a masked
// load of the last k < 8 values of a row, which never touches memory past
// the row's end.
DATA tailmask<>+0(SB)/8, $0xffffffffffffffff
DATA tailmask<>+8(SB)/8, $0xffffffffffffffff
DATA tailmask<>+16(SB)/8, $0xffffffffffffffff
DATA tailmask<>+24(SB)/8, $0xffffffffffffffff
DATA tailmask<>+32(SB)/8, $0
DATA tailmask<>+40(SB)/8, $0
DATA tailmask<>+48(SB)/8, $0
DATA tailmask<>+56(SB)/8, $0
GLOBL tailmask<>(SB), RODATA|NOPTR, $64

// func cpuHasAVX2FMA() bool
TEXT ·cpuHasAVX2FMA(SB), NOSPLIT, $0-1
	// Leaf 0: the highest leaf must reach 7.
	XORL AX, AX
	XORL CX, CX
	CPUID
	CMPL AX, $7
	JB   no

	// Leaf 1, ECX: FMA (bit 12), OSXSAVE (bit 27), AVX (bit 28).
	MOVL $1, AX
	XORL CX, CX
	CPUID
	ANDL $0x18001000, CX
	CMPL CX, $0x18001000
	JNE  no

	// XCR0: the OS saves the XMM (bit 1) and YMM (bit 2) state.
	XORL CX, CX
	XGETBV
	ANDL $6, AX
	CMPL AX, $6
	JNE  no

	// Leaf 7, sub-leaf 0, EBX: AVX2 (bit 5).
	MOVL $7, AX
	XORL CX, CX
	CPUID
	ANDL $0x20, BX
	JZ   no

	MOVB $1, ret+0(FP)
	RET

no:
	MOVB $0, ret+0(FP)
	RET

// func dot1AVX2(a, b *float32, n int) float32
//
// n >= 1. Four accumulators of 8 lanes over 32 values per iteration, then 8
// at a time, then a masked load for the last n%8.
TEXT ·dot1AVX2(SB), NOSPLIT, $0-28
	MOVQ a+0(FP), SI
	MOVQ b+8(FP), DI
	MOVQ n+16(FP), CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	XORQ AX, AX
	MOVQ CX, DX
	ANDQ $-32, DX
	JZ   one8

loop32:
	VMOVUPS     (SI)(AX*4), Y4
	VMOVUPS     32(SI)(AX*4), Y5
	VMOVUPS     64(SI)(AX*4), Y6
	VMOVUPS     96(SI)(AX*4), Y7
	VFMADD231PS (DI)(AX*4), Y4, Y0
	VFMADD231PS 32(DI)(AX*4), Y5, Y1
	VFMADD231PS 64(DI)(AX*4), Y6, Y2
	VFMADD231PS 96(DI)(AX*4), Y7, Y3
	ADDQ $32, AX
	CMPQ AX, DX
	JB   loop32

one8:
	MOVQ CX, DX
	SUBQ AX, DX
	CMPQ DX, $8
	JB   tail1
	VMOVUPS     (SI)(AX*4), Y4
	VFMADD231PS (DI)(AX*4), Y4, Y0
	ADDQ $8, AX
	JMP  one8

tail1:
	TESTQ DX, DX
	JZ    reduce1
	LEAQ  tailmask<>(SB), BX
	NEGQ  DX
	VMOVUPS    32(BX)(DX*4), Y8
	VMASKMOVPS (SI)(AX*4), Y8, Y4
	VMASKMOVPS (DI)(AX*4), Y8, Y5
	VFMADD231PS Y5, Y4, Y1

reduce1:
	VADDPS Y1, Y0, Y0
	VADDPS Y3, Y2, Y2
	VADDPS Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS  X1, X0, X0
	VHADDPS X0, X0, X0
	VHADDPS X0, X0, X0
	VZEROUPPER
	MOVSS X0, ret+24(FP)
	RET

// func dot4AVX2(q *float32, n int, r0, r1, r2, r3 *float32, out *[4]float32, p0, p1, p2, p3 *float32)
//
// n >= 1. Each iteration loads 16 values of q once and multiplies them into
// the four rows: eight independent accumulators (two per row). Then 8 at a
// time, then a masked load for the last n%8. Each iteration also prefetches
// the line at the same offset of the rows p0..p3 (the next four rows the
// caller will scan), so their first misses are already under way: with
// rows of a few hundred values the hardware prefetchers alone restart too
// often.
TEXT ·dot4AVX2(SB), NOSPLIT, $0-88
	MOVQ q+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ r0+16(FP), R8
	MOVQ r1+24(FP), R9
	MOVQ r2+32(FP), R10
	MOVQ r3+40(FP), R11
	MOVQ p0+56(FP), BX
	MOVQ p1+64(FP), R12
	MOVQ p2+72(FP), R13
	MOVQ p3+80(FP), DI
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	XORQ AX, AX
	MOVQ CX, DX
	ANDQ $-16, DX
	JZ   four8

loop16:
	PREFETCHT0  (BX)(AX*4)
	PREFETCHT0  (R12)(AX*4)
	PREFETCHT0  (R13)(AX*4)
	PREFETCHT0  (DI)(AX*4)
	VMOVUPS     (SI)(AX*4), Y8
	VMOVUPS     32(SI)(AX*4), Y9
	VFMADD231PS (R8)(AX*4), Y8, Y0
	VFMADD231PS 32(R8)(AX*4), Y9, Y1
	VFMADD231PS (R9)(AX*4), Y8, Y2
	VFMADD231PS 32(R9)(AX*4), Y9, Y3
	VFMADD231PS (R10)(AX*4), Y8, Y4
	VFMADD231PS 32(R10)(AX*4), Y9, Y5
	VFMADD231PS (R11)(AX*4), Y8, Y6
	VFMADD231PS 32(R11)(AX*4), Y9, Y7
	ADDQ $16, AX
	CMPQ AX, DX
	JB   loop16

four8:
	MOVQ CX, DX
	SUBQ AX, DX
	CMPQ DX, $8
	JB   tail4
	VMOVUPS     (SI)(AX*4), Y8
	VFMADD231PS (R8)(AX*4), Y8, Y0
	VFMADD231PS (R9)(AX*4), Y8, Y2
	VFMADD231PS (R10)(AX*4), Y8, Y4
	VFMADD231PS (R11)(AX*4), Y8, Y6
	ADDQ $8, AX
	SUBQ $8, DX

tail4:
	TESTQ DX, DX
	JZ    reduce4
	LEAQ  tailmask<>(SB), BX
	NEGQ  DX
	VMOVUPS     32(BX)(DX*4), Y10
	VMASKMOVPS  (SI)(AX*4), Y10, Y8
	VMASKMOVPS  (R8)(AX*4), Y10, Y9
	VFMADD231PS Y9, Y8, Y1
	VMASKMOVPS  (R9)(AX*4), Y10, Y9
	VFMADD231PS Y9, Y8, Y3
	VMASKMOVPS  (R10)(AX*4), Y10, Y9
	VFMADD231PS Y9, Y8, Y5
	VMASKMOVPS  (R11)(AX*4), Y10, Y9
	VFMADD231PS Y9, Y8, Y7

reduce4:
	VADDPS  Y1, Y0, Y0
	VADDPS  Y3, Y2, Y2
	VADDPS  Y5, Y4, Y4
	VADDPS  Y7, Y6, Y6
	// Pairwise sums: Y0 = [r0 r0 r1 r1 | r0 r0 r1 r1], Y4 likewise for r2, r3.
	VHADDPS Y2, Y0, Y0
	VHADDPS Y6, Y4, Y4
	// Y0 = [r0 r1 r2 r3 | r0 r1 r2 r3], each lane a partial sum.
	VHADDPS Y4, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS  X1, X0, X0
	MOVQ    out+48(FP), DI
	VMOVUPS X0, (DI)
	VZEROUPPER
	RET

// func dotRowsAVX2(q *float32, n int, rows *float32, count int, out *float32, ahead int)
//
// n >= 1, count >= 1. It writes into out[i] the dot product of the n values
// at q with row i of the count contiguous rows of n values at rows, reading
// the rows in memory order: one stream, which the hardware prefetchers
// follow without restarting (measured on 100k×384: 8.7 ms against 10.2 ms
// for four rows in lockstep, with a plain read of the same vectors taking
// 7.8 ms). It also prefetches the line ahead bytes past each line it reads;
// a prefetch never faults, past the arena's end included.
//
// A row's arithmetic is dot4AVX2's exactly (two accumulators taking the
// 8-value blocks in turn, one more block into the first, the masked tail
// into the second, the same pairwise reduction), so that a row scores
// alike whichever kernel reads it.
TEXT ·dotRowsAVX2(SB), NOSPLIT, $0-48
	MOVQ q+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ rows+16(FP), R8
	MOVQ count+24(FP), R9
	MOVQ out+32(FP), DI
	MOVQ ahead+40(FP), R13
	ADDQ R8, R13             // R13: the prefetch pointer, ahead bytes past R8
	MOVQ CX, DX
	ANDQ $-16, DX            // DX: the values taken 16 at a time
	MOVQ CX, R10
	SUBQ DX, R10             // R10: the rest, 0..15
	MOVQ R10, R11
	ANDQ $7, R11             // R11: the masked tail, n%8
	LEAQ tailmask<>(SB), BX
	MOVQ R11, R12
	NEGQ R12
	VMOVUPS 32(BX)(R12*4), Y10
	SHLQ $2, CX              // CX: a row's bytes

rowsloop:
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	XORQ AX, AX
	TESTQ DX, DX
	JZ   rows8

rows16:
	PREFETCHT0  (R13)(AX*4)
	VMOVUPS     (SI)(AX*4), Y8
	VMOVUPS     32(SI)(AX*4), Y9
	VFMADD231PS (R8)(AX*4), Y8, Y0
	VFMADD231PS 32(R8)(AX*4), Y9, Y1
	ADDQ $16, AX
	CMPQ AX, DX
	JB   rows16

rows8:
	CMPQ R10, $8
	JB   rowstail
	VMOVUPS     (SI)(AX*4), Y8
	VFMADD231PS (R8)(AX*4), Y8, Y0
	ADDQ $8, AX

rowstail:
	TESTQ R11, R11
	JZ    rowsreduce
	VMASKMOVPS  (SI)(AX*4), Y10, Y8
	VMASKMOVPS  (R8)(AX*4), Y10, Y9
	VFMADD231PS Y9, Y8, Y1

rowsreduce:
	// As dot4AVX2's reduction of one row: [a0+a1, a2+a3, ...], then
	// (a0+a1)+(a2+a3) per 128-bit half, then the two halves.
	VADDPS  Y1, Y0, Y0
	VHADDPS Y0, Y0, Y0
	VHADDPS Y0, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS  X1, X0, X0
	MOVSS   X0, (DI)
	ADDQ $4, DI
	ADDQ CX, R8
	ADDQ CX, R13
	DECQ R9
	JNZ  rowsloop
	VZEROUPPER
	RET

// func dotRows4QAVX2(q *[4]*float32, n int, rows *float32, count int, out *[4]*float32, next *float32)
//
// n >= 1, count >= 1. For each of the count contiguous rows of n values at
// rows, it writes into out[j][i] the dot product of the n values at q[j]
// with row i, for the four queries j: each 8-value block of a row is loaded
// once for the four queries (eight accumulators, two per query), which
// cuts the loads of a batched scan of rows already in cache by 40 %. Each
// dot product's arithmetic is dotRowsAVX2's (and dot4AVX2's) exactly.
TEXT ·dotRows4QAVX2(SB), NOSPLIT, $0-48
	MOVQ q+0(FP), AX
	MOVQ 0(AX), R8
	MOVQ 8(AX), R9
	MOVQ 16(AX), R10
	MOVQ 24(AX), R11
	MOVQ n+8(FP), CX
	MOVQ rows+16(FP), SI
	MOVQ count+24(FP), R12
	MOVQ CX, DX
	ANDQ $-16, DX            // DX: the values taken 16 at a time
	MOVQ CX, R13
	SUBQ DX, R13             // R13: the rest, 0..15
	MOVQ R13, R14
	ANDQ $7, R14             // R14: the masked tail, n%8
	LEAQ tailmask<>(SB), BX
	MOVQ R14, AX
	NEGQ AX
	VMOVUPS 32(BX)(AX*4), Y15
	MOVQ next+40(FP), R15    // R15: the row of next to prefetch
	SHLQ $2, CX              // CX: a row's bytes
	XORQ DI, DI              // DI: the row's offset into each out

q4row:
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	XORQ AX, AX
	TESTQ DX, DX
	JZ   q4one8

q4loop16:
	PREFETCHT1  (R15)(AX*4)
	VMOVUPS     (SI)(AX*4), Y8
	VMOVUPS     32(SI)(AX*4), Y9
	VFMADD231PS (R8)(AX*4), Y8, Y0
	VFMADD231PS 32(R8)(AX*4), Y9, Y1
	VFMADD231PS (R9)(AX*4), Y8, Y2
	VFMADD231PS 32(R9)(AX*4), Y9, Y3
	VFMADD231PS (R10)(AX*4), Y8, Y4
	VFMADD231PS 32(R10)(AX*4), Y9, Y5
	VFMADD231PS (R11)(AX*4), Y8, Y6
	VFMADD231PS 32(R11)(AX*4), Y9, Y7
	ADDQ $16, AX
	CMPQ AX, DX
	JB   q4loop16

q4one8:
	CMPQ R13, $8
	JB   q4tail
	VMOVUPS     (SI)(AX*4), Y8
	VFMADD231PS (R8)(AX*4), Y8, Y0
	VFMADD231PS (R9)(AX*4), Y8, Y2
	VFMADD231PS (R10)(AX*4), Y8, Y4
	VFMADD231PS (R11)(AX*4), Y8, Y6
	ADDQ $8, AX

q4tail:
	TESTQ R14, R14
	JZ    q4reduce
	VMASKMOVPS  (SI)(AX*4), Y15, Y9
	VMASKMOVPS  (R8)(AX*4), Y15, Y8
	VFMADD231PS Y9, Y8, Y1
	VMASKMOVPS  (R9)(AX*4), Y15, Y8
	VFMADD231PS Y9, Y8, Y3
	VMASKMOVPS  (R10)(AX*4), Y15, Y8
	VFMADD231PS Y9, Y8, Y5
	VMASKMOVPS  (R11)(AX*4), Y15, Y8
	VFMADD231PS Y9, Y8, Y7

q4reduce:
	// Each query's two accumulators, reduced as dotRowsAVX2 reduces one
	// row's, into X0, X2, X4, X6.
	VADDPS  Y1, Y0, Y0
	VADDPS  Y3, Y2, Y2
	VADDPS  Y5, Y4, Y4
	VADDPS  Y7, Y6, Y6
	VHADDPS Y0, Y0, Y0
	VHADDPS Y2, Y2, Y2
	VHADDPS Y4, Y4, Y4
	VHADDPS Y6, Y6, Y6
	VHADDPS Y0, Y0, Y0
	VHADDPS Y2, Y2, Y2
	VHADDPS Y4, Y4, Y4
	VHADDPS Y6, Y6, Y6
	VEXTRACTF128 $1, Y0, X1
	VEXTRACTF128 $1, Y2, X3
	VEXTRACTF128 $1, Y4, X5
	VEXTRACTF128 $1, Y6, X7
	VADDPS  X1, X0, X0
	VADDPS  X3, X2, X2
	VADDPS  X5, X4, X4
	VADDPS  X7, X6, X6
	MOVQ    out+32(FP), BX
	MOVQ    0(BX), AX
	MOVSS   X0, (AX)(DI*1)
	MOVQ    8(BX), AX
	MOVSS   X2, (AX)(DI*1)
	MOVQ    16(BX), AX
	MOVSS   X4, (AX)(DI*1)
	MOVQ    24(BX), AX
	MOVSS   X6, (AX)(DI*1)
	ADDQ $4, DI
	ADDQ CX, SI
	ADDQ CX, R15
	DECQ R12
	JNZ  q4row
	VZEROUPPER
	RET

// func sumAVX2(p *float32, n int) float32
TEXT ·sumAVX2(SB), NOSPLIT, $0-20
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	XORQ AX, AX

sumloop:
	VADDPS (SI)(AX*4), Y0, Y0
	VADDPS 32(SI)(AX*4), Y1, Y1
	VADDPS 64(SI)(AX*4), Y2, Y2
	VADDPS 96(SI)(AX*4), Y3, Y3
	ADDQ $32, AX
	CMPQ AX, CX
	JB   sumloop

	VADDPS Y1, Y0, Y0
	VADDPS Y3, Y2, Y2
	VADDPS Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS  X1, X0, X0
	VHADDPS X0, X0, X0
	VHADDPS X0, X0, X0
	VZEROUPPER
	MOVSS X0, ret+16(FP)
	RET

// The int8 kernels. Each 32-byte step multiplies |q| (unsigned) by the row
// with q's signs applied (VPSIGNB), so that VPMADDUBSW's unsigned×signed
// products are q[i]·r[i]; its pairwise int16 sums stay within ±2·127·127,
// far from saturating. VPMADDWD by ones widens pairs of them to int32.

// func dotInt8x1AVX2(a, b *int8, n int) int32
TEXT ·dotInt8x1AVX2(SB), NOSPLIT, $0-28
	MOVQ a+0(FP), SI
	MOVQ b+8(FP), DI
	MOVQ n+16(FP), CX
	VPCMPEQW Y15, Y15, Y15
	VPSRLW   $15, Y15, Y15
	VPXOR    Y0, Y0, Y0
	XORQ     AX, AX

i8loop1:
	VMOVDQU    (SI)(AX*1), Y4
	VPABSB     Y4, Y5
	VMOVDQU    (DI)(AX*1), Y6
	VPSIGNB    Y4, Y6, Y6
	VPMADDUBSW Y6, Y5, Y6
	VPMADDWD   Y15, Y6, Y6
	VPADDD     Y6, Y0, Y0
	ADDQ       $32, AX
	CMPQ       AX, CX
	JB         i8loop1

	VEXTRACTI128 $1, Y0, X1
	VPADDD       X1, X0, X0
	VPSHUFD      $0x4e, X0, X1
	VPADDD       X1, X0, X0
	VPSHUFD      $0xb1, X0, X1
	VPADDD       X1, X0, X0
	VMOVD        X0, AX
	VZEROUPPER
	MOVL AX, ret+24(FP)
	RET

// func dotInt8x4AVX2(q *int8, n int, r0, r1, r2, r3 *int8, out *[4]int32, p0, p1, p2, p3 *int8)
//
// Each iteration also prefetches the same offset of p0..p3, the next four
// rows, as dot4AVX2 does.
TEXT ·dotInt8x4AVX2(SB), NOSPLIT, $0-88
	MOVQ q+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ r0+16(FP), R8
	MOVQ r1+24(FP), R9
	MOVQ r2+32(FP), R10
	MOVQ r3+40(FP), R11
	MOVQ p0+56(FP), BX
	MOVQ p1+64(FP), R12
	MOVQ p2+72(FP), R13
	MOVQ p3+80(FP), DI
	VPCMPEQW Y15, Y15, Y15
	VPSRLW   $15, Y15, Y15
	VPXOR    Y0, Y0, Y0
	VPXOR    Y1, Y1, Y1
	VPXOR    Y2, Y2, Y2
	VPXOR    Y3, Y3, Y3
	XORQ     AX, AX

i8loop4:
	PREFETCHT0 (BX)(AX*1)
	PREFETCHT0 (R12)(AX*1)
	PREFETCHT0 (R13)(AX*1)
	PREFETCHT0 (DI)(AX*1)
	VMOVDQU    (SI)(AX*1), Y4
	VPABSB     Y4, Y5
	VMOVDQU    (R8)(AX*1), Y6
	VMOVDQU    (R9)(AX*1), Y7
	VMOVDQU    (R10)(AX*1), Y8
	VMOVDQU    (R11)(AX*1), Y9
	VPSIGNB    Y4, Y6, Y6
	VPSIGNB    Y4, Y7, Y7
	VPSIGNB    Y4, Y8, Y8
	VPSIGNB    Y4, Y9, Y9
	VPMADDUBSW Y6, Y5, Y6
	VPMADDUBSW Y7, Y5, Y7
	VPMADDUBSW Y8, Y5, Y8
	VPMADDUBSW Y9, Y5, Y9
	VPMADDWD   Y15, Y6, Y6
	VPMADDWD   Y15, Y7, Y7
	VPMADDWD   Y15, Y8, Y8
	VPMADDWD   Y15, Y9, Y9
	VPADDD     Y6, Y0, Y0
	VPADDD     Y7, Y1, Y1
	VPADDD     Y8, Y2, Y2
	VPADDD     Y9, Y3, Y3
	ADDQ       $32, AX
	CMPQ       AX, CX
	JB         i8loop4

	// Y0 = [r0 r0 r1 r1 | r0 r0 r1 r1] pairwise, Y2 likewise for r2, r3.
	VPHADDD      Y1, Y0, Y0
	VPHADDD      Y3, Y2, Y2
	// Y0 = [r0 r1 r2 r3 | r0 r1 r2 r3], each lane a partial sum.
	VPHADDD      Y2, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPADDD       X1, X0, X0
	MOVQ         out+48(FP), DI
	VMOVDQU      X0, (DI)
	VZEROUPPER
	RET

// func dotNibblex4AVX2(q *int8, n int, r0, r1, r2, r3 *byte, out *[4]int32, p0, p1, p2, p3 *byte)
//
// n >= 32, a multiple of 32: the bytes of a row. Each iteration reads 32
// bytes (64 codes) of each row: the low nibbles against the block's first
// 32 weights, the high ones against the next 32 (VPMADDUBSW: unsigned
// codes times signed weights, pairs at most 2·15·127, no saturation),
// widened to int32 per block.
TEXT ·dotNibblex4AVX2(SB), NOSPLIT, $0-88
	MOVQ q+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ r0+16(FP), R8
	MOVQ r1+24(FP), R9
	MOVQ r2+32(FP), R10
	MOVQ r3+40(FP), R11
	MOVQ p0+56(FP), BX
	MOVQ p1+64(FP), R12
	MOVQ p2+72(FP), R13
	MOVQ p3+80(FP), DI
	VPCMPEQW Y15, Y15, Y15
	VPSRLW   $15, Y15, Y15     // int16 ones
	VPCMPEQB Y14, Y14, Y14
	VPSRLW   $12, Y14, Y14     // 0x000F words
	VPACKUSWB Y14, Y14, Y14    // 0x0F bytes
	VPXOR    Y0, Y0, Y0
	VPXOR    Y1, Y1, Y1
	VPXOR    Y2, Y2, Y2
	VPXOR    Y3, Y3, Y3
	XORQ     AX, AX            // byte offset in the rows
	MOVQ     SI, DX            // the block's weights

nibloop4:
	PREFETCHT0 (BX)(AX*1)
	PREFETCHT0 (R12)(AX*1)
	PREFETCHT0 (R13)(AX*1)
	PREFETCHT0 (DI)(AX*1)
	VMOVDQU    (DX), Y4
	VMOVDQU    32(DX), Y5

	VMOVDQU    (R8)(AX*1), Y6
	VPSRLW     $4, Y6, Y7
	VPAND      Y14, Y6, Y6
	VPAND      Y14, Y7, Y7
	VPMADDUBSW Y4, Y6, Y6
	VPMADDUBSW Y5, Y7, Y7
	VPADDW     Y7, Y6, Y6
	VPMADDWD   Y15, Y6, Y6
	VPADDD     Y6, Y0, Y0

	VMOVDQU    (R9)(AX*1), Y8
	VPSRLW     $4, Y8, Y9
	VPAND      Y14, Y8, Y8
	VPAND      Y14, Y9, Y9
	VPMADDUBSW Y4, Y8, Y8
	VPMADDUBSW Y5, Y9, Y9
	VPADDW     Y9, Y8, Y8
	VPMADDWD   Y15, Y8, Y8
	VPADDD     Y8, Y1, Y1

	VMOVDQU    (R10)(AX*1), Y10
	VPSRLW     $4, Y10, Y11
	VPAND      Y14, Y10, Y10
	VPAND      Y14, Y11, Y11
	VPMADDUBSW Y4, Y10, Y10
	VPMADDUBSW Y5, Y11, Y11
	VPADDW     Y11, Y10, Y10
	VPMADDWD   Y15, Y10, Y10
	VPADDD     Y10, Y2, Y2

	VMOVDQU    (R11)(AX*1), Y12
	VPSRLW     $4, Y12, Y13
	VPAND      Y14, Y12, Y12
	VPAND      Y14, Y13, Y13
	VPMADDUBSW Y4, Y12, Y12
	VPMADDUBSW Y5, Y13, Y13
	VPADDW     Y13, Y12, Y12
	VPMADDWD   Y15, Y12, Y12
	VPADDD     Y12, Y3, Y3

	ADDQ       $64, DX
	ADDQ       $32, AX
	CMPQ       AX, CX
	JB         nibloop4

	VPHADDD      Y1, Y0, Y0
	VPHADDD      Y3, Y2, Y2
	VPHADDD      Y2, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPADDD       X1, X0, X0
	MOVQ         out+48(FP), DI
	VMOVDQU      X0, (DI)
	VZEROUPPER
	RET

// func dotNibbleRowsAVX2(q *int8, n int, rows *byte, count int, out *int32, ahead int)
//
// n >= 32, a multiple of 32: the bytes of a row; count >= 1. It writes
// into out[i] the dot product of the 2n weights at q with row i of the
// count contiguous packed rows at rows, reading them in memory order (one
// stream, which the hardware prefetchers follow), and prefetches the line
// ahead bytes past each block it reads. Each row sums exactly as
// dotNibblex4AVX2 sums it.
TEXT ·dotNibbleRowsAVX2(SB), NOSPLIT, $0-48
	MOVQ q+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ rows+16(FP), R8
	MOVQ count+24(FP), R9
	MOVQ out+32(FP), DI
	MOVQ ahead+40(FP), R10
	VPCMPEQW  Y15, Y15, Y15
	VPSRLW    $15, Y15, Y15     // int16 ones
	VPCMPEQB  Y14, Y14, Y14
	VPSRLW    $12, Y14, Y14
	VPACKUSWB Y14, Y14, Y14     // 0x0F bytes

nibrow:
	VPXOR Y0, Y0, Y0
	XORQ  AX, AX                // byte offset in the row
	MOVQ  SI, DX                // the block's weights

nibrowblock:
	PREFETCHT0 (R8)(R10*1)
	VMOVDQU    (R8), Y6
	VPSRLW     $4, Y6, Y7
	VPAND      Y14, Y6, Y6
	VPAND      Y14, Y7, Y7
	VPMADDUBSW (DX), Y6, Y6
	VPMADDUBSW 32(DX), Y7, Y7
	VPADDW     Y7, Y6, Y6
	VPMADDWD   Y15, Y6, Y6
	VPADDD     Y6, Y0, Y0
	ADDQ       $32, R8
	ADDQ       $64, DX
	ADDQ       $32, AX
	CMPQ       AX, CX
	JB         nibrowblock

	VEXTRACTI128 $1, Y0, X1
	VPADDD       X1, X0, X0
	VPSHUFD      $0x4E, X0, X1
	VPADDD       X1, X0, X0
	VPSHUFD      $0xB1, X0, X1
	VPADDD       X1, X0, X0
	MOVL         X0, (DI)
	ADDQ         $4, DI
	DECQ         R9
	JNZ          nibrow
	VZEROUPPER
	RET
