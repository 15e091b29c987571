package vecmath

// The portable kernels: plain Go with independent accumulators, so that the
// adds of consecutive elements do not wait on each other. They are the only
// kernels off amd64 and are tested on every platform.

func dotGeneric(a, b []float32) float32 {
	var s0, s1, s2, s3 float32
	for len(a) >= 4 && len(b) >= 4 { // this form leaves no bounds checks in the loop
		s0 += a[0] * b[0]
		s1 += a[1] * b[1]
		s2 += a[2] * b[2]
		s3 += a[3] * b[3]
		a, b = a[4:], b[4:]
	}
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// dot4Generic returns the dot products of q with four rows of len(q) (or
// more) values, loading each element of q once for the four rows.
func dot4Generic(q, r0, r1, r2, r3 []float32) (float32, float32, float32, float32) {
	n := len(q)
	r0, r1, r2, r3 = r0[:n], r1[:n], r2[:n], r3[:n]
	var a0, a1, b0, b1, c0, c1, d0, d1 float32
	i := 0
	for ; i <= n-2; i += 2 { // this form leaves no bounds checks in the loop
		x, y := q[i], q[i+1]
		a0 += x * r0[i]
		a1 += y * r0[i+1]
		b0 += x * r1[i]
		b1 += y * r1[i+1]
		c0 += x * r2[i]
		c1 += y * r2[i+1]
		d0 += x * r3[i]
		d1 += y * r3[i+1]
	}
	if i < n {
		x := q[i]
		a0 += x * r0[i]
		b0 += x * r1[i]
		c0 += x * r2[i]
		d0 += x * r3[i]
	}
	return a0 + a1, b0 + b1, c0 + c1, d0 + d1
}

func dotManyGeneric(q, arena, out []float32) {
	d := len(q)
	i := 0
	for ; i+4 <= len(out); i += 4 {
		r := arena[i*d : (i+4)*d]
		out[i], out[i+1], out[i+2], out[i+3] = dot4Generic(q, r, r[d:], r[2*d:], r[3*d:])
	}
	if i < len(out) {
		// The last one to three rows go through the four-row kernel too
		// (the last row repeated), so that a row's dot product never
		// depends on the rows it is scored with.
		var r [4][]float32
		for j := range r {
			k := min(i+j, len(out)-1)
			r[j] = arena[k*d : (k+1)*d]
		}
		dot4TailGeneric(q, r, out[i:])
	}
}

// dot4TailGeneric writes into out (one to three values) the dot products
// of q with the first len(out) of rows, through the four-row kernel.
func dot4TailGeneric(q []float32, r [4][]float32, out []float32) {
	var tail [4]float32
	tail[0], tail[1], tail[2], tail[3] = dot4Generic(q, r[0], r[1], r[2], r[3])
	copy(out, tail[:])
}

func dotManyIdxGeneric(q, arena []float32, rows []int32, out []float32) {
	d := len(q)
	out = out[:len(rows)]
	i := 0
	for ; i+4 <= len(rows); i += 4 {
		out[i], out[i+1], out[i+2], out[i+3] = dot4Generic(q,
			row(arena, rows[i], d), row(arena, rows[i+1], d),
			row(arena, rows[i+2], d), row(arena, rows[i+3], d))
	}
	if i < len(rows) {
		// As in dotManyGeneric: the tail through the four-row kernel.
		var r [4][]float32
		for j := range r {
			r[j] = row(arena, rows[min(i+j, len(rows)-1)], d)
		}
		dot4TailGeneric(q, r, out[i:])
	}
}

// row returns row r of a row-major arena of d columns.
func row(arena []float32, r int32, d int) []float32 {
	return arena[int(r)*d : (int(r)+1)*d]
}

func sumGeneric(v []float32) float32 {
	var s0, s1, s2, s3 float32
	for len(v) >= 4 {
		s0 += v[0]
		s1 += v[1]
		s2 += v[2]
		s3 += v[3]
		v = v[4:]
	}
	for _, x := range v {
		s0 += x
	}
	return (s0 + s1) + (s2 + s3)
}
