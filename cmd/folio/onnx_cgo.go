//go:build cgo

package main

import (
	embedonnx "github.com/foliovec/folio/adapters/embed-onnx"
	"github.com/foliovec/folio/core"
)

// localModel is the local ONNX sentence model in a folder, or an id under
// $FOLIO_MODELS_DIR. It loads on first use.
func localModel(name string) (core.EmbeddingsModel, error) {
	return embedonnx.NewLocalEmbeddings(&embedonnx.LocalOptions{Model: name}), nil
}
