package embedonnx

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/foliovec/folio/adapters/embed-onnx/wordpiece"
	"github.com/foliovec/folio/core"
)

// DefaultModel is the model used when the options name none: the
// all-MiniLM-L6-v2 sentence model (384 dimensions) in the layout
// transformers.js uses.
const DefaultModel = "Xenova/all-MiniLM-L6-v2"

// ModelsDirEnv names the environment variable that gives the models folder
// when the options do not.
const ModelsDirEnv = "FOLIO_MODELS_DIR"

// ErrModelNotFound: the model folder, or the model file for the requested
// dtype, does not exist. It wraps fs.ErrNotExist.
var ErrModelNotFound = fmt.Errorf("model not found: %w", fs.ErrNotExist)

// resolveModel turns the Model option into a folder: an existing folder
// path is used as it is; anything else is a model id looked up under the
// models folder (modelsDir, else $FOLIO_MODELS_DIR, else
// <user cache>/folio/models). Nothing is ever downloaded.
func resolveModel(model, modelsDir string) (string, error) {
	if model == "" {
		model = DefaultModel
	}
	if info, err := os.Stat(model); err == nil && info.IsDir() {
		return model, nil
	}
	if filepath.IsAbs(model) || strings.HasPrefix(model, ".") {
		return "", fmt.Errorf("embedonnx: model folder %s: %w", model, ErrModelNotFound)
	}
	id := filepath.FromSlash(model)
	if !filepath.IsLocal(id) {
		return "", fmt.Errorf("embedonnx: model id %q: %w", model, core.ErrInvalidArgument)
	}
	dir, source := modelsDir, "option ModelsDir"
	if dir == "" {
		dir, source = os.Getenv(ModelsDirEnv), "$"+ModelsDirEnv
	}
	if dir == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			return "", fmt.Errorf("embedonnx: model %q: no models folder (set %s): %w", model, ModelsDirEnv, err)
		}
		dir, source = filepath.Join(cache, "folio", "models"), "the default models folder"
	}
	folder := filepath.Join(dir, id)
	if info, err := os.Stat(folder); err != nil || !info.IsDir() {
		return "", fmt.Errorf("embedonnx: model %q: no folder %s (under %s, %s); models are never downloaded: "+
			"put the model's files (onnx/model.onnx, tokenizer.json, config.json, tokenizer_config.json) there, "+
			"or set Model to a folder path: %w", model, folder, dir, source, ErrModelNotFound)
	}
	return folder, nil
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
