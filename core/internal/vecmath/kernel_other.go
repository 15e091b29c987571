//go:build !amd64 || purego

package vecmath

// hasAVX2FMA is false off amd64 (and with the purego tag): the portable
// kernels run.
const hasAVX2FMA = false

func dotAVX2(a, b []float32) float32 { panic("vecmath: no AVX2 kernel on this platform") }

func dotManyAVX2(q, arena, out []float32) { panic("vecmath: no AVX2 kernel on this platform") }

func dotManyIdxAVX2(q, arena []float32, rows []int32, out []float32) {
	panic("vecmath: no AVX2 kernel on this platform")
}

func dotInt8AVX2(a, b []int8) int32 { panic("vecmath: no AVX2 kernel on this platform") }

func dotInt8ManyAVX2(q, codes []int8, out []int32) {
	panic("vecmath: no AVX2 kernel on this platform")
}

func dotInt8ManyIdxAVX2(q, codes []int8, rows []int32, out []int32) {
	panic("vecmath: no AVX2 kernel on this platform")
}

func sumAVX2(p *float32, n int) float32 { panic("vecmath: no AVX2 kernel on this platform") }

func dotMany4AVX2(qs *[4][]float32, arena, next []float32, outs *[4][]float32) {
	panic("vecmath: no AVX2 kernel on this platform")
}

func dotNibbleManyAVX2(q []int8, codes []byte, out []int32) {
	panic("vecmath: no AVX2 kernel on this platform")
}

func dotNibbleManyIdxAVX2(q []int8, codes []byte, rows []int32, out []int32) {
	panic("vecmath: no AVX2 kernel on this platform")
}
