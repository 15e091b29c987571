package embedonnx

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/foliovec/folio/adapters/embed-onnx/hub"
	"github.com/foliovec/folio/adapters/embed-onnx/wordpiece"
	"github.com/foliovec/folio/core"
)

// Progress reports model loading.
type Progress struct {
	// Status is "initiate" (a file is about to be read, or looked up on
	// the hub), "download" (its download from the hub starts), "progress"
	// (part of it was read or downloaded), "done" (it was read or is in
	// place) or "ready" (the model can run).
	Status string
	// File is the file's path relative to the model folder ("" for ready).
	File string
	// Fraction is how much of File was read, 0 to 1; 1 for ready.
	Fraction float64
	// Loaded and Total are the bytes of a download: received so far and
	// expected (0 when unknown, and while reading from disk).
	Loaded, Total int64
}

// engine is a loaded model: tokenizer, session and pooling. Both
// TransformersEmbeddings and LocalEmbeddings run on it.
type engine struct {
	folder    string
	tokenizer *TransformersTokenizer
	pooling   Pooling
	normalize bool
	// batchTokens bounds a batch's padded size (rows x longest row).
	batchTokens int
	logger      *slog.Logger

	mu   sync.RWMutex // runs hold it shared; close holds it alone
	sess *session
}

type engineSpec struct {
	model, modelsDir, libraryPath string
	hub                           hub.Options
	device                        Device
	dtype                         Dtype
	pooling                       Pooling
	normalize                     bool
	threads                       int
	progress                      func(Progress)
	logger                        *slog.Logger
}

// defaultBatchTokens bounds a batch's padded size (rows x longest row):
// big enough that 64 short sentences or 16 of 256 tokens run as one batch,
// small enough that a MiniLM-size model's attention scores for a batch stay
// near 100 MB even at 512 tokens a row.
const defaultBatchTokens = 4096

// chunkSize is how much of the model file is read between progress reports.
const chunkSize = 4 << 20

func loadEngine(ctx context.Context, spec engineSpec) (*engine, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := spec.pooling.Validate(); err != nil {
		return nil, err
	}
	switch spec.device {
	case "", DeviceAuto, DeviceGPU, DeviceCPU, DeviceWASM:
	default:
		return nil, fmt.Errorf("embedonnx: device %q: want auto, gpu, cpu or wasm: %w", spec.device, core.ErrInvalidArgument)
	}
	folder, err := resolveModel(ctx, modelSpec{
		model: spec.model, modelsDir: spec.modelsDir, dtype: spec.dtype, hub: spec.hub, progress: spec.progress,
	})
	if err != nil {
		return nil, err
	}
	modelPath, err := findModelFile(folder, spec.dtype)
	if err != nil {
		return nil, err
	}
	report := func(p Progress) {
		if spec.progress != nil {
			spec.progress(p)
		}
	}
	tokFile := "tokenizer.json"
	if !isFile(filepath.Join(folder, tokFile)) {
		tokFile = "vocab.txt"
	}
	report(Progress{Status: "initiate", File: tokFile})
	tok, err := wordpiece.Load(folder)
	if err != nil {
		return nil, err
	}
	report(Progress{Status: "done", File: tokFile, Fraction: 1})

	if err := initRuntime(spec.libraryPath); err != nil {
		return nil, err
	}
	rel, _ := filepath.Rel(folder, modelPath)
	rel = filepath.ToSlash(rel)
	report(Progress{Status: "initiate", File: rel})
	sspec := sessionSpec{path: modelPath, device: spec.device, threads: spec.threads}
	if !hasExternalData(modelPath) {
		// Read the file here, so loading reports progress; a model with
		// external data is read by the runtime, which finds its data file.
		sspec.data, err = readWithProgress(ctx, modelPath, func(f float64) {
			report(Progress{Status: "progress", File: rel, Fraction: f})
		})
		if err != nil {
			return nil, err
		}
	}
	sess, err := openSession(sspec)
	if err != nil {
		return nil, err
	}
	report(Progress{Status: "done", File: rel, Fraction: 1})
	logger := spec.logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	logger.Debug("embedonnx: model loaded", "folder", folder, "file", rel, "cuda", sess.usesCUDA, "output", sess.output)
	if want := poolingConfig(folder); want != "" && want != spec.pooling {
		logger.Warn("embedonnx: the model's sentence-transformers pooling config asks for another pooling than the one used",
			"folder", folder, "config", want, "pooling", spec.pooling)
	}
	report(Progress{Status: "ready", Fraction: 1})
	return &engine{
		folder: folder, tokenizer: tok, pooling: spec.pooling, normalize: spec.normalize,
		batchTokens: defaultBatchTokens, logger: logger, sess: sess,
	}, nil
}

func hasExternalData(modelPath string) bool {
	return isFile(modelPath+"_data") || isFile(modelPath+".data") || isFile(modelPath+"_data_0")
}

// readWithProgress reads a file in chunks, reporting the fraction read.
func readWithProgress(ctx context.Context, path string, progress func(float64)) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("embedonnx: read model %s: %w", path, err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("embedonnx: read model %s: %w", path, err)
	}
	size := info.Size()
	data := make([]byte, 0, size)
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		n, err := io.ReadFull(f, data[len(data):min(int64(len(data)+chunkSize), size)])
		data = data[:len(data)+n]
		if size > 0 {
			progress(float64(len(data)) / float64(size))
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || int64(len(data)) >= size {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("embedonnx: read model %s: %w", path, err)
		}
	}
	return data, nil
}

// embed returns one vector per input, in order.
func (e *engine) embed(ctx context.Context, inputs []string) ([][]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if len(inputs) == 0 {
		return [][]float32{}, nil
	}
	ids := make([][]int, len(inputs))
	for i, in := range inputs {
		ids[i] = e.tokenizer.EncodeTruncated(in)
	}
	// Batches of similar lengths waste little on padding.
	order := make([]int, len(inputs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return len(ids[a]) - len(ids[b]) })

	e.mu.RLock()
	defer e.mu.RUnlock()
	if e.sess == nil {
		return nil, ErrClosed
	}
	out := make([][]float32, len(inputs))
	for start := 0; start < len(order); {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		end := start + 1
		for end < len(order) && (end-start+1)*len(ids[order[end]]) <= e.batchTokens {
			end++
		}
		if err := e.runBatch(ctx, ids, order[start:end], out); err != nil {
			return nil, err
		}
		start = end
	}
	return out, nil
}

// runBatch embeds the inputs rows (indexes into ids, shortest first),
// padded to the longest.
func (e *engine) runBatch(ctx context.Context, ids [][]int, rows []int, out [][]float32) error {
	seq := len(ids[rows[len(rows)-1]])
	for _, r := range rows {
		seq = max(seq, len(ids[r]))
	}
	batchIDs := make([][]int64, len(rows))
	mask := make([][]int64, len(rows))
	for k, r := range rows {
		batchIDs[k] = make([]int64, seq)
		mask[k] = make([]int64, seq)
		for p := range seq {
			if p < len(ids[r]) {
				batchIDs[k][p] = int64(ids[r][p])
				mask[k][p] = 1
			} else {
				batchIDs[k][p] = int64(e.tokenizer.Pad())
			}
		}
	}
	hidden, dim, err := e.sess.run(ctx, batchIDs, mask)
	if err != nil {
		return err
	}
	for k, r := range rows {
		out[r] = wordpiece.Pool(hidden, k, seq, dim, len(ids[r]), e.pooling, e.normalize)
	}
	return nil
}

func (e *engine) close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.sess == nil {
		return nil
	}
	err := e.sess.close()
	e.sess = nil
	return err
}

// poolingConfig is the pooling the model's sentence-transformers config
// (1_Pooling/config.json) names: mean, cls, or "" when it has none or
// names another.
func poolingConfig(folder string) Pooling {
	raw, err := os.ReadFile(filepath.Join(folder, "1_Pooling", "config.json"))
	if err != nil {
		return ""
	}
	var c struct {
		CLS  bool `json:"pooling_mode_cls_token"`
		Mean bool `json:"pooling_mode_mean_tokens"`
	}
	switch {
	case json.Unmarshal(raw, &c) != nil, c.CLS == c.Mean:
		return ""
	case c.CLS:
		return PoolingCLS
	}
	return PoolingMean
}
