package core

// tokenBudget packs a stream of embeddings inputs into calls of at most
// limit tokens in all; an input over the limit goes alone, for the model to
// judge. A limit of 0 or less puts everything in one call. It is the one
// rule of how embeddings calls are batched: by the bulk pipeline (chunks
// whose tokens are known), by query batches and, through TokenBatches, by
// the gRPC server.
type tokenBudget struct {
	limit, used, inputs int
}

// startsNew reports whether an input of n tokens must start a new call:
// the current one holds inputs and n more tokens would pass the limit.
func (b *tokenBudget) startsNew(n int) bool {
	return b.inputs > 0 && b.limit > 0 && b.used+n > b.limit
}

// add counts an input of n tokens into the current call.
func (b *tokenBudget) add(n int) { b.used, b.inputs = b.used+n, b.inputs+1 }

// reset starts a new call.
func (b *tokenBudget) reset() { b.used, b.inputs = 0, 0 }

// TokenBatches cuts texts into runs [from, to) of consecutive texts whose
// token counts (tok.Encode) add up to at most limit, for embeddings calls
// of at most an EmbeddingsModel's MaxTokens; a text over the limit is a run
// of its own. With a limit of 0 or less, or a nil tokenizer, all texts are
// one run; no texts, no run.
func TokenBatches(texts []string, tok Tokenizer, limit int) [][2]int {
	if len(texts) == 0 {
		return nil
	}
	if tok == nil || limit <= 0 {
		return [][2]int{{0, len(texts)}}
	}
	var out [][2]int
	b := tokenBudget{limit: limit}
	from := 0
	for i, t := range texts {
		n := len(tok.Encode(t))
		if b.startsNew(n) {
			out = append(out, [2]int{from, i})
			from = i
			b.reset()
		}
		b.add(n)
	}
	return append(out, [2]int{from, len(texts)})
}
