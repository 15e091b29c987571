//go:build cgo

package main

import (
	"context"
	"fmt"

	embedonnx "github.com/foliovec/folio/adapters/embed-onnx"
	"github.com/foliovec/folio/adapters/embed-onnx/hub"
	"github.com/foliovec/folio/core"
)

// localCallTokens is the token budget of one embeddings call to the local
// model: sixteen chunks of --chunk-size's default. The model reads at most
// 256 tokens of each input whatever a call carries, and runs a call's
// inputs in batches of its own, so a call of one chunk (Vectra's budget of
// 256 a call) only costs calls: 102 chunks took 101 calls.
const localCallTokens = 16 * defaultChunkSize

// localModel is the local ONNX sentence model in a folder, or a hub id in
// the models folder, fetched now (reporting on stderr) when it is not
// there; commit is the hub commit of a model fetched by id. It loads on
// first use.
func (a *app) localModel(ctx context.Context, name string) (_ core.EmbeddingsModel, commit string, _ error) {
	if !isDir(name) && !hub.IsRef(name) {
		return nil, "", fmt.Errorf("--model %s: no such model folder, and not a Hugging Face id (owner/name[@revision]): %w", name, embedonnx.ErrModelNotFound)
	}
	if !isDir(name) {
		m, err := a.pullModel(ctx, name, "")
		if err != nil {
			return nil, "", err
		}
		commit = m.Commit
	}
	// In place now: loading it needs no network.
	return embedonnx.NewLocalEmbeddings(&embedonnx.LocalOptions{
		Model: name, MaxTokens: localCallTokens, Hub: hub.Options{Offline: true},
	}), commit, nil
}
