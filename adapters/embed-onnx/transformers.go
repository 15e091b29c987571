package embedonnx

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/foliovec/folio/adapters/embed-onnx/hub"
	"github.com/foliovec/folio/core"
)

var _ core.EmbeddingsModel = (*TransformersEmbeddings)(nil)

// TransformersOptions configures CreateTransformersEmbeddings. The zero
// value loads DefaultModel from the models folder, fp32, on the best
// device, mean-pooled and normalised.
type TransformersOptions struct {
	// Model is a model folder's path, or a hub model id (such as
	// "Xenova/all-MiniLM-L6-v2", optionally with "@revision") looked up
	// under the models folder and fetched from the hub once when it is not
	// there. "" means DefaultModel.
	Model string
	// ModelsDir is where model ids are kept: "" means $FOLIO_MODELS_DIR,
	// else <user cache folder>/folio/models.
	ModelsDir string
	// Hub configures fetching: the endpoint ($HF_ENDPOINT), the token
	// ($HF_TOKEN), offline mode (Offline or $HF_HUB_OFFLINE: never fetch),
	// the HTTP client, timeouts and the size cap. Its Progress, when nil,
	// reports through Progress below.
	Hub hub.Options
	// LibraryPath is the ONNX Runtime shared library: "" means
	// $ONNXRUNTIME_SHARED_LIBRARY_PATH, else .cache/onnxruntime/<version>/
	// in the working directory or a parent, else the user cache folder.
	LibraryPath string
	// MaxTokens is what MaxTokens reports (it sizes the document index's
	// batches); 0 means 512.
	MaxTokens int
	// Device: auto (default), gpu, cpu or wasm.
	Device Device
	// Dtype chooses the model file: fp32 (default, model.onnx), fp16
	// (model_fp16.onnx), q8 (model_quantized.onnx) or q4 (model_q4.onnx).
	Dtype Dtype
	// Normalize scales every vector to unit length; nil means true.
	Normalize *bool
	// Pooling: mean (default) or cls.
	Pooling Pooling
	// Progress, when set, is called while the model is fetched and loads.
	Progress func(Progress)
	// Threads is the number of threads one inference uses; 0 lets the
	// runtime use one per core.
	Threads int
	// Logger receives debug logs; nil means silent.
	Logger *slog.Logger
}

// TransformersEmbeddings embeds text with a local transformer encoder
// (a BERT-style ONNX model, such as all-MiniLM-L6-v2) through ONNX
// Runtime. Create it with CreateTransformersEmbeddings; Close it when done.
type TransformersEmbeddings struct {
	model     string
	maxTokens int
	engine    *engine
}

// CreateTransformersEmbeddings loads the model now: its folder (fetched
// from the hub first when a model id is not in the models folder),
// tokenizer and ONNX session. nil opts are the defaults.
func CreateTransformersEmbeddings(ctx context.Context, o *TransformersOptions) (*TransformersEmbeddings, error) {
	var opts TransformersOptions
	if o != nil {
		opts = *o
	}
	if opts.MaxTokens < 0 {
		return nil, fmt.Errorf("embedonnx: max tokens %d: %w", opts.MaxTokens, core.ErrInvalidArgument)
	}
	if opts.Threads < 0 {
		return nil, fmt.Errorf("embedonnx: threads %d: %w", opts.Threads, core.ErrInvalidArgument)
	}
	normalize := opts.Normalize == nil || *opts.Normalize
	pooling := opts.Pooling
	if pooling == "" {
		pooling = PoolingMean
	}
	e, err := loadEngine(ctx, engineSpec{
		model: opts.Model, modelsDir: opts.ModelsDir, libraryPath: opts.LibraryPath, hub: opts.Hub,
		device: opts.Device, dtype: opts.Dtype, pooling: pooling, normalize: normalize,
		threads: opts.Threads, progress: opts.Progress, logger: opts.Logger,
	})
	if err != nil {
		return nil, err
	}
	model := opts.Model
	if model == "" {
		model = DefaultModel
	}
	maxTokens := opts.MaxTokens
	if maxTokens == 0 {
		maxTokens = 512
	}
	return &TransformersEmbeddings{model: model, maxTokens: maxTokens, engine: e}, nil
}

// Model is the Model option (DefaultModel when it was empty).
func (m *TransformersEmbeddings) Model() string { return m.model }

// MaxTokens is the most tokens one CreateEmbeddings call should carry.
func (m *TransformersEmbeddings) MaxTokens() int { return m.maxTokens }

// GetTokenizer returns the model's tokenizer (the same one on every call).
func (m *TransformersEmbeddings) GetTokenizer() *TransformersTokenizer { return m.engine.tokenizer }

// CreateEmbeddings embeds inputs in batches, one vector per input. Inputs
// longer than the model's maximum length are truncated.
func (m *TransformersEmbeddings) CreateEmbeddings(ctx context.Context, inputs []string) (core.EmbeddingsResponse, error) {
	out, err := m.engine.embed(ctx, inputs)
	if err != nil {
		return failure(ctx, "error generating embeddings: ", err)
	}
	return core.EmbeddingsResponse{Status: core.EmbeddingsSuccess, Output: out, Model: m.model}, nil
}

// Close releases the ONNX session. Calls after Close fail with ErrClosed.
func (m *TransformersEmbeddings) Close() error { return m.engine.close() }
