//go:build js && wasm

package main

import (
	"context"
	"fmt"
	"math"
	"syscall/js"

	"github.com/foliovec/folio/core"
)

// jsEmbeddings is an embeddings model written in JavaScript: an object
// with maxTokens and createEmbeddings(inputs), which returns (a Promise
// of) {status, output, message}.
type jsEmbeddings struct{ obj js.Value }

func (m jsEmbeddings) MaxTokens() int {
	if v := prop(m.obj, "maxTokens"); v.Type() == js.TypeNumber {
		return v.Int()
	}
	return 0
}

func (m jsEmbeddings) CreateEmbeddings(ctx context.Context, inputs []string) (_ core.EmbeddingsResponse, err error) {
	defer guard(&err, "createEmbeddings")
	list := make([]any, len(inputs))
	for i, s := range inputs {
		list[i] = s
	}
	v, err := invoke(ctx, m.obj, "createEmbeddings", js.ValueOf(list))
	if err != nil {
		return core.EmbeddingsResponse{Status: core.EmbeddingsFailed, Message: err.Error()},
			fmt.Errorf("%w: %w", core.ErrEmbeddingsFailed, err)
	}
	var resp embeddingsResponse
	if err := readEmbeddings(v, &resp.Output); err != nil {
		return core.EmbeddingsResponse{Status: core.EmbeddingsFailed, Message: err.Error()}, err
	}
	out := resp.Output
	resp.Output = nil
	if err := fromJSON(withoutOutput(v), &resp); err != nil {
		return core.EmbeddingsResponse{Status: core.EmbeddingsFailed, Message: err.Error()},
			fmt.Errorf("%w: the response of createEmbeddings: %w", core.ErrEmbeddingsFailed, err)
	}
	return core.EmbeddingsResponse{Status: resp.Status, Output: out, Message: resp.Message, Model: resp.Model, Usage: resp.Usage}, nil
}

// withoutOutput is a shallow copy of a response without its output, whose
// vectors readEmbeddings reads without JSON.
func withoutOutput(v js.Value) js.Value {
	if v.Type() != js.TypeObject {
		return v
	}
	c := js.Global().Get("Object").Call("assign", js.Global().Get("Object").New(), v)
	c.Delete("output")
	return c
}

// readEmbeddings reads a response's output: an array of vectors, each an
// array of numbers or a typed array, copied through a Float32Array.
// Anything else (a string, an object, a vector holding something other
// than finite numbers) is an error wrapping core.ErrEmbeddingsFailed.
func readEmbeddings(resp js.Value, out *[][]float32) error {
	if resp.Type() != js.TypeObject {
		return fmt.Errorf("%w: createEmbeddings answered %s, want an object", core.ErrEmbeddingsFailed, resp.Type())
	}
	list := prop(resp, "output")
	if list.IsUndefined() || list.IsNull() {
		return nil
	}
	if tag(list) != "Array" {
		return fmt.Errorf("%w: createEmbeddings answered an output that is not an array of vectors", core.ErrEmbeddingsFailed)
	}
	n := length(list)
	vecs := make([][]float32, n)
	for i := range n {
		vec, err := vector(prop(list, i))
		if err != nil {
			return fmt.Errorf("%w: createEmbeddings answered output[%d]: %w", core.ErrEmbeddingsFailed, i, err)
		}
		vecs[i] = vec
	}
	*out = vecs
	return nil
}

// float32s copies a Float32Array.
func float32s(f js.Value) []float32 {
	n := prop(f, "length").Int()
	b := make([]byte, 4*n)
	js.CopyBytesToGo(b, js.Global().Get("Uint8Array").New(prop(f, "buffer"), prop(f, "byteOffset"), 4*n))
	out := make([]float32, n)
	for i := range out {
		out[i] = math.Float32frombits(uint32(b[4*i]) | uint32(b[4*i+1])<<8 | uint32(b[4*i+2])<<16 | uint32(b[4*i+3])<<24)
	}
	return out
}
