package embedonnx

import (
	"context"
	"fmt"
	"log/slog"
	"sync"

	"github.com/foliovec/folio/adapters/embed-onnx/hub"
	"github.com/foliovec/folio/core"
)

var _ core.EmbeddingsModel = (*LocalEmbeddings)(nil)

// LocalOptions configures NewLocalEmbeddings. The zero value uses
// DefaultModel (all-MiniLM-L6-v2) and 256 tokens.
type LocalOptions struct {
	// Model is a model folder's path or a hub model id, fetched once
	// when it is not in the models folder, as in TransformersOptions; ""
	// means DefaultModel.
	Model string
	// ModelsDir, Hub and LibraryPath are as in TransformersOptions.
	ModelsDir   string
	Hub         hub.Options
	LibraryPath string
	// MaxTokens is what MaxTokens reports; 0 means 256.
	MaxTokens int
	// Threads is as in TransformersOptions.
	Threads int
	// Logger receives debug logs; nil means silent.
	Logger *slog.Logger
}

// LocalEmbeddings embeds text with a local sentence model, mean-pooled and
// normalised, on the CPU. The model is loaded on the first
// CreateEmbeddings call, once, however many calls arrive together; a
// failed load is reported by that call and tried again by the next.
type LocalEmbeddings struct {
	opts LocalOptions

	mu     sync.Mutex // guards engine and closed while loading or closing
	engine *engine
	closed bool
	loads  int // successful loads, for tests: at most one
}

// NewLocalEmbeddings returns a model that loads on first use; nil opts are
// the defaults (DefaultModel).
func NewLocalEmbeddings(o *LocalOptions) *LocalEmbeddings {
	var opts LocalOptions
	if o != nil {
		opts = *o
	}
	if opts.Model == "" {
		opts.Model = DefaultModel
	}
	return &LocalEmbeddings{opts: opts}
}

// Model is the Model option (DefaultModel when it was empty).
func (m *LocalEmbeddings) Model() string { return m.opts.Model }

// MaxTokens is the most tokens one CreateEmbeddings call should carry.
func (m *LocalEmbeddings) MaxTokens() int {
	if m.opts.MaxTokens > 0 {
		return m.opts.MaxTokens
	}
	return 256
}

// CreateEmbeddings loads the model on first use, then embeds inputs, one
// vector per input. Every failure, loading included, is reported as a
// *core.EmbeddingsError.
func (m *LocalEmbeddings) CreateEmbeddings(ctx context.Context, inputs []string) (core.EmbeddingsResponse, error) {
	e, err := m.load(ctx)
	if err != nil {
		return failure(ctx, "", err)
	}
	out, err := e.embed(ctx, inputs)
	if err != nil {
		return failure(ctx, "", err)
	}
	return core.EmbeddingsResponse{Status: core.EmbeddingsSuccess, Output: out}, nil
}

// load returns the engine, creating it on the first call.
func (m *LocalEmbeddings) load(ctx context.Context) (*engine, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, ErrClosed
	}
	if m.engine != nil {
		return m.engine, nil
	}
	if m.opts.MaxTokens < 0 || m.opts.Threads < 0 {
		return nil, fmt.Errorf("embedonnx: max tokens %d, threads %d: %w", m.opts.MaxTokens, m.opts.Threads, core.ErrInvalidArgument)
	}
	e, err := loadEngine(ctx, engineSpec{
		model: m.opts.Model, modelsDir: m.opts.ModelsDir, libraryPath: m.opts.LibraryPath, hub: m.opts.Hub,
		device: DeviceCPU, pooling: PoolingMean, normalize: true, threads: m.opts.Threads,
		logger: m.opts.Logger,
	})
	if err != nil {
		return nil, err
	}
	m.engine = e
	m.loads++
	return e, nil
}

// Close releases the ONNX session if one was created. Calls after Close
// fail with ErrClosed.
func (m *LocalEmbeddings) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closed = true
	if m.engine == nil {
		return nil
	}
	return m.engine.close()
}
