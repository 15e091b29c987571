package bertgen

import "math"

func sqrtf(n int) float64 { return math.Sqrt(float64(n)) }

// Forward is a plain float64 forward pass of the encoder over one sequence
// (no padding), written independently of the ONNX graph: it returns the last
// hidden state, one row of Hidden values per token. Tests compare the ONNX
// Runtime output against it.
func (w *Weights) Forward(ids, typeIDs []int) [][]float64 {
	h := w.Hidden
	x := make([][]float64, len(ids))
	for t, id := range ids {
		row := make([]float64, h)
		for j := range h {
			row[j] = float64(w.Word[id*h+j]) + float64(w.Position[t*h+j]) + float64(w.Type[typeIDs[t]*h+j])
		}
		x[t] = layerNorm(row, w.EmbLNG, w.EmbLNB, w.LayerNormEps)
	}
	for _, l := range w.Layers {
		x = w.layer(l, x)
	}
	return x
}

func (w *Weights) layer(l Layer, x [][]float64) [][]float64 {
	h, heads := w.Hidden, w.Heads
	d := h / heads
	q, k, v := linear(x, l.Q, l.QB, h), linear(x, l.K, l.KB, h), linear(x, l.V, l.VB, h)
	n := len(x)
	ctx := make([][]float64, n)
	for t := range n {
		ctx[t] = make([]float64, h)
	}
	scale := 1 / math.Sqrt(float64(d))
	for hd := range heads {
		off := hd * d
		for t := range n {
			scores := make([]float64, n)
			maxScore := math.Inf(-1)
			for s := range n {
				var dot float64
				for j := range d {
					dot += q[t][off+j] * k[s][off+j]
				}
				scores[s] = dot * scale
				maxScore = math.Max(maxScore, scores[s])
			}
			var sum float64
			for s := range n {
				scores[s] = math.Exp(scores[s] - maxScore)
				sum += scores[s]
			}
			for s := range n {
				p := scores[s] / sum
				for j := range d {
					ctx[t][off+j] += p * v[s][off+j]
				}
			}
		}
	}
	attn := linear(ctx, l.O, l.OB, h)
	for t := range n {
		for j := range h {
			attn[t][j] += x[t][j]
		}
		attn[t] = layerNorm(attn[t], l.AttnLNG, l.AttnLNB, w.LayerNormEps)
	}
	inner := linear(attn, l.FF1, l.FF1B, w.Intermediate)
	for t := range n {
		for j, a := range inner[t] {
			inner[t][j] = 0.5 * a * (1 + math.Erf(a/math.Sqrt2))
		}
	}
	out := linear(inner, l.FF2, l.FF2B, h)
	for t := range n {
		for j := range h {
			out[t][j] += attn[t][j]
		}
		out[t] = layerNorm(out[t], l.OutputLNG, l.OutputLNB, w.LayerNormEps)
	}
	return out
}

// linear computes x·W + b with W row-major [in][out].
func linear(x [][]float64, wt, b []float32, out int) [][]float64 {
	y := make([][]float64, len(x))
	for t, row := range x {
		r := make([]float64, out)
		for j := range out {
			r[j] = float64(b[j])
		}
		for i, xi := range row {
			wrow := wt[i*out : (i+1)*out]
			for j, wij := range wrow {
				r[j] += xi * float64(wij)
			}
		}
		y[t] = r
	}
	return y
}

func layerNorm(x []float64, gamma, beta []float32, eps float64) []float64 {
	var mean float64
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	var variance float64
	for _, v := range x {
		variance += (v - mean) * (v - mean)
	}
	variance /= float64(len(x))
	inv := 1 / math.Sqrt(variance+eps)
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = (v-mean)*inv*float64(gamma[i]) + float64(beta[i])
	}
	return out
}
