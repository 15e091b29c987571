//go:build cgo

package main

import (
	embedonnx "github.com/foliovec/folio/adapters/embed-onnx"
	"github.com/foliovec/folio/core"
)

// localCallTokens is the token budget of one embeddings call to the local
// model: sixteen chunks of --chunk-size's default. The model reads at most
// 256 tokens of each input whatever a call carries, and runs a call's
// inputs in batches of its own, so a call of one chunk (Vectra's budget of
// 256 a call) only costs calls: 102 chunks took 101 calls.
const localCallTokens = 16 * defaultChunkSize

// localModel is the local ONNX sentence model in a folder, or an id under
// $FOLIO_MODELS_DIR. It loads on first use.
func localModel(name string) (core.EmbeddingsModel, error) {
	return embedonnx.NewLocalEmbeddings(&embedonnx.LocalOptions{Model: name, MaxTokens: localCallTokens}), nil
}
