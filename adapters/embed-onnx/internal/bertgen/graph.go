package bertgen

import (
	"fmt"
	"math"
	"slices"
)

// ModelOptions varies the exported graph the way real exports vary.
type ModelOptions struct {
	// NoTokenTypeInput drops the token_type_ids input (as DistilBERT-style
	// exports do); token type 0 is used for every token.
	NoTokenTypeInput bool
	// OutputName names the hidden-state output; "" means last_hidden_state.
	OutputName string
	// Float16Output casts the hidden state to float16, as fp16 exports do.
	Float16Output bool
	// PositionIDsInput takes positions from a position_ids input instead
	// of computing them, as some exports do.
	PositionIDsInput bool
	// ReverseInputs lists the graph's inputs in reverse order.
	ReverseInputs bool
}

// graph collects the nodes and initializers of an ONNX graph.
type graph struct {
	nodes        []message
	initializers []message
	n            int
}

func (g *graph) name(prefix string) string {
	g.n++
	return fmt.Sprintf("%s_%d", prefix, g.n)
}

// op adds a node with one output and returns the output's name.
func (g *graph) op(opType string, inputs []string, attrs ...attribute) string {
	out := g.name(opType)
	g.nodes = append(g.nodes, node(opType, out+"_node", inputs, []string{out}, attrs...))
	return out
}

func (g *graph) floats(prefix string, dims []int64, data []float32) string {
	name := g.name(prefix)
	g.initializers = append(g.initializers, floatTensor(name, dims, data))
	return name
}

func (g *graph) int64s(prefix string, dims []int64, data ...int64) string {
	name := g.name(prefix)
	g.initializers = append(g.initializers, int64Tensor(name, dims, data))
	return name
}

// Model returns the ONNX ModelProto (opset 17) of the encoder: inputs
// input_ids, attention_mask and token_type_ids (int64, [batch, sequence]),
// output last_hidden_state ([batch, sequence, hidden]).
func (w *Weights) Model(opts ModelOptions) []byte {
	g := &graph{}
	h, heads := int64(w.Hidden), int64(w.Heads)
	d := h / heads
	eps := float32(w.LayerNormEps)
	scalar := func(v float32) string { return g.floats("const", nil, []float32{v}) }

	// Embeddings: word + position + token type, then layer norm.
	word := g.op("Gather", []string{g.floats("word_embeddings", []int64{int64(w.VocabSize), h}, w.Word), "input_ids"})
	positions := "position_ids"
	if !opts.PositionIDsInput {
		shape := g.op("Shape", []string{"input_ids"})
		seqLen := g.op("Gather", []string{shape, g.int64s("one", nil, 1)}, intAttr("axis", 0))
		positions = g.op("Range", []string{g.int64s("zero", nil, 0), seqLen, g.int64s("one", nil, 1)})
	}
	posEmb := g.op("Gather", []string{g.floats("position_embeddings", []int64{int64(w.MaxPositions), h}, w.Position), positions})
	var typeEmb string
	if opts.NoTokenTypeInput {
		typeEmb = g.floats("token_type_0", []int64{h}, w.Type[:h])
	} else {
		typeEmb = g.op("Gather", []string{g.floats("token_type_embeddings", []int64{int64(w.TypeVocab), h}, w.Type), "token_type_ids"})
	}
	sum := g.op("Add", []string{g.op("Add", []string{word, posEmb}), typeEmb})
	layerNorm := func(x string, gamma, beta []float32) string {
		return g.op("LayerNormalization", []string{x, g.floats("ln_gamma", []int64{h}, gamma), g.floats("ln_beta", []int64{h}, beta)},
			intAttr("axis", -1), floatAttr("epsilon", eps))
	}
	x := layerNorm(sum, w.EmbLNG, w.EmbLNB)

	// Additive attention mask: 0 where attended, -10000 where padded, shaped
	// [batch, 1, 1, sequence].
	mask := g.op("Cast", []string{g.op("Unsqueeze", []string{"attention_mask", g.int64s("axes", []int64{2}, 1, 2)})}, intAttr("to", typeFloat))
	maskBias := g.op("Mul", []string{g.op("Sub", []string{scalar(1), mask}), scalar(-10000)})

	headShape := g.int64s("head_shape", []int64{4}, 0, 0, heads, d)
	mergedShape := g.int64s("merged_shape", []int64{3}, 0, 0, h)
	linear := func(x string, wt, b []float32, in, out int64) string {
		mm := g.op("MatMul", []string{x, g.floats("weight", []int64{in, out}, wt)})
		return g.op("Add", []string{mm, g.floats("bias", []int64{out}, b)})
	}
	for _, l := range w.Layers {
		split := func(wt, b []float32, perm ...int64) string {
			return g.op("Transpose", []string{g.op("Reshape", []string{linear(x, wt, b, h, h), headShape})}, intsAttr("perm", perm...))
		}
		q := split(l.Q, l.QB, 0, 2, 1, 3) // [b, heads, s, d]
		k := split(l.K, l.KB, 0, 2, 3, 1) // [b, heads, d, s]
		v := split(l.V, l.VB, 0, 2, 1, 3) // [b, heads, s, d]
		scores := g.op("Div", []string{g.op("MatMul", []string{q, k}), scalar(float32(math.Sqrt(float64(d))))})
		probs := g.op("Softmax", []string{g.op("Add", []string{scores, maskBias})}, intAttr("axis", -1))
		ctx := g.op("MatMul", []string{probs, v})
		ctx = g.op("Reshape", []string{g.op("Transpose", []string{ctx}, intsAttr("perm", 0, 2, 1, 3)), mergedShape})
		attn := layerNorm(g.op("Add", []string{linear(ctx, l.O, l.OB, h, h), x}), l.AttnLNG, l.AttnLNB)

		inner := linear(attn, l.FF1, l.FF1B, h, int64(w.Intermediate))
		erf := g.op("Erf", []string{g.op("Div", []string{inner, scalar(float32(math.Sqrt2))})})
		gelu := g.op("Mul", []string{g.op("Mul", []string{inner, g.op("Add", []string{erf, scalar(1)})}), scalar(0.5)})
		out := linear(gelu, l.FF2, l.FF2B, int64(w.Intermediate), h)
		x = layerNorm(g.op("Add", []string{out, attn}), l.OutputLNG, l.OutputLNB)
	}

	outName := opts.OutputName
	if outName == "" {
		outName = "last_hidden_state"
	}
	outType := typeFloat
	if opts.Float16Output {
		x = g.op("Cast", []string{x}, intAttr("to", typeFloat16))
		outType = typeFloat16
	}
	g.nodes = append(g.nodes, node("Identity", "output_node", []string{x}, []string{outName}))

	var gp message
	for _, n := range g.nodes {
		gp.bytes(1, n)
	}
	gp.string(2, "bert")
	for _, t := range g.initializers {
		gp.bytes(5, t)
	}
	inputs := []string{"input_ids", "attention_mask", "token_type_ids"}
	if opts.NoTokenTypeInput {
		inputs = inputs[:2]
	}
	if opts.PositionIDsInput {
		inputs = append(inputs, "position_ids")
	}
	if opts.ReverseInputs {
		slices.Reverse(inputs)
	}
	for _, in := range inputs {
		gp.bytes(11, valueInfo(in, typeInt64, "batch_size", "sequence_length"))
	}
	gp.bytes(12, valueInfo(outName, outType, "batch_size", "sequence_length", w.Hidden))

	var opset message
	opset.string(1, "")
	opset.int(2, 17)
	var model message
	model.int(1, 8) // ir_version
	model.string(2, "folio-bertgen")
	model.bytes(7, gp)
	model.bytes(8, opset)
	return model
}
