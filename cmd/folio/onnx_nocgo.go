//go:build !cgo

package main

import (
	"context"
	"fmt"

	"github.com/foliovec/folio/core"
)

// localModel fails: ONNX Runtime is loaded through cgo, and this folio was
// built without it (CGO_ENABLED=0), as a fully static binary.
func (a *app) localModel(_ context.Context, name string) (core.EmbeddingsModel, string, error) {
	return nil, "", fmt.Errorf("--model %s: this folio was built without cgo, which local ONNX models need; use a build with CGO_ENABLED=1, --keys or --hash-dims", name)
}
