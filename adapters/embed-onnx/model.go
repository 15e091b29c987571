package embedonnx

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/foliovec/folio/adapters/embed-onnx/hub"
	"github.com/foliovec/folio/adapters/embed-onnx/wordpiece"
	"github.com/foliovec/folio/core"
)

// DefaultModel is the model used when the options name none: the
// all-MiniLM-L6-v2 sentence model (384 dimensions) in the layout
// transformers.js uses.
const DefaultModel = "Xenova/all-MiniLM-L6-v2"

// ModelsDirEnv names the environment variable that gives the models folder
// when the options do not.
const ModelsDirEnv = hub.ModelsDirEnv

// ErrModelNotFound: the model folder, or the model file for the requested
// dtype, does not exist, or the hub has no such model. It wraps
// fs.ErrNotExist.
var ErrModelNotFound = hub.ErrNotFound

// modelSpec is what resolveModel needs.
type modelSpec struct {
	model, modelsDir string
	dtype            Dtype
	hub              hub.Options
	progress         func(Progress)
}

// resolveModel turns the Model option into a folder: an existing folder
// path is used as it is; anything else is a model id, looked up under the
// models folder (modelsDir, else $FOLIO_MODELS_DIR, else
// <user cache>/folio/models) and pulled from the hub when the folder lacks
// what the dtype needs, unless the hub options (or $HF_HUB_OFFLINE) say
// offline.
func resolveModel(ctx context.Context, spec modelSpec) (string, error) {
	model := spec.model
	if model == "" {
		model = DefaultModel
	}
	if info, err := os.Stat(model); err == nil && info.IsDir() {
		return model, nil
	}
	if filepath.IsAbs(model) || strings.HasPrefix(model, ".") {
		return "", fmt.Errorf("embedonnx: model folder %s: %w", model, ErrModelNotFound)
	}
	if _, err := hub.ParseRef(model); err != nil {
		return "", fmt.Errorf("embedonnx: model id %q is not a folder or a hub id: %w", model, core.ErrInvalidArgument)
	}
	opts := spec.hub
	if opts.Progress == nil && spec.progress != nil {
		opts.Progress = func(p hub.Progress) {
			if p.Status == "ready" {
				return // the engine says when the model can run
			}
			q := Progress{Status: p.Status, File: p.File, Loaded: p.Loaded, Total: p.Total}
			if p.Total > 0 {
				q.Fraction = float64(p.Loaded) / float64(p.Total)
			}
			spec.progress(q)
		}
	}
	m, err := hub.New(spec.modelsDir, &opts).Pull(ctx, model, string(spec.dtype))
	if err != nil {
		return "", fmt.Errorf("embedonnx: %w", err)
	}
	return m.Dir, nil
}

// Dtype is the precision of the model file to load.
type Dtype string

// Dtypes, as transformers.js names them.
const (
	DtypeFP32 Dtype = "fp32"
	DtypeFP16 Dtype = "fp16"
	DtypeQ8   Dtype = "q8"
	DtypeQ4   Dtype = "q4"
)

// modelFileNames are the file names each dtype's variant goes by, in the
// order they are tried: wordpiece.ModelFileNames.
func modelFileNames(d Dtype) ([]string, error) { return wordpiece.ModelFileNames(string(d)) }

// findModelFile picks the ONNX file for dtype in folder: onnx/<name>
// (the transformers.js layout) before <name>.
func findModelFile(folder string, d Dtype) (string, error) {
	names, err := modelFileNames(d)
	if err != nil {
		return "", err
	}
	var tried []string
	for _, name := range names {
		for _, rel := range []string{"onnx/" + name, name} {
			path := filepath.Join(folder, filepath.FromSlash(rel))
			info, err := os.Stat(path)
			if err == nil && !info.IsDir() {
				return path, nil
			}
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				return "", fmt.Errorf("embedonnx: model file %s: %w", path, err)
			}
			tried = append(tried, rel)
		}
	}
	if d == "" {
		d = DtypeFP32
	}
	return "", fmt.Errorf("embedonnx: model folder %s has no %s model file (looked for %s): %w",
		folder, d, strings.Join(tried, ", "), ErrModelNotFound)
}
