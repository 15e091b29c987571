package embedonnx

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"

	ort "github.com/yalue/onnxruntime_go"

	"github.com/foliovec/folio/core"
)

// Device is where the model runs.
type Device string

// Devices, as Vectra names them.
const (
	// DeviceAuto uses CUDA when the runtime library has it and a GPU is
	// there, else the CPU.
	DeviceAuto Device = "auto"
	// DeviceGPU uses CUDA and fails when it is unavailable.
	DeviceGPU Device = "gpu"
	// DeviceCPU uses the CPU.
	DeviceCPU Device = "cpu"
	// DeviceWASM is the browser fallback; outside a browser it is the CPU.
	DeviceWASM Device = "wasm"
)

// ErrDeviceUnavailable: the requested device cannot be used.
var ErrDeviceUnavailable = errors.New("device unavailable")

// inputKind is what the adapter feeds a model input.
type inputKind int

const (
	inputIDs inputKind = iota
	inputMask
	inputTypes
	inputPositions
)

// session is one ONNX Runtime session of a BERT-style encoder, with its
// input and output names read from the model.
type session struct {
	s           *ort.DynamicAdvancedSession
	inputs      []inputKind
	inputInt32  []bool
	output      string
	outFloat16  bool
	hidden      int // the output's last dimension, 0 when symbolic
	usesCUDA    bool
	description string
}

type sessionSpec struct {
	path    string // model file, for messages and external data
	data    []byte // model bytes; nil to let the runtime read path
	device  Device
	threads int
}

// openSession creates the session and maps the model's inputs and outputs.
func openSession(spec sessionSpec) (*session, error) {
	inInfo, outInfo, err := modelInfo(spec)
	if err != nil {
		return nil, fmt.Errorf("embedonnx: read model %s: %w", spec.path, err)
	}
	s := &session{description: spec.path}
	var inNames []string
	for _, in := range inInfo {
		kind, ok := classifyInput(in.Name)
		if !ok {
			return nil, fmt.Errorf("embedonnx: model %s: input %q is not one a text encoder takes (input_ids, attention_mask, token_type_ids, position_ids): %w",
				spec.path, in.Name, core.ErrInvalidArgument)
		}
		switch in.DataType {
		case ort.TensorElementDataTypeInt64, ort.TensorElementDataTypeInt32:
		default:
			return nil, fmt.Errorf("embedonnx: model %s: input %q has element type %v, want int64 or int32: %w",
				spec.path, in.Name, in.DataType, core.ErrInvalidArgument)
		}
		inNames = append(inNames, in.Name)
		s.inputs = append(s.inputs, kind)
		s.inputInt32 = append(s.inputInt32, in.DataType == ort.TensorElementDataTypeInt32)
	}
	if !containsKind(s.inputs, inputIDs) {
		return nil, fmt.Errorf("embedonnx: model %s has no input_ids input: %w", spec.path, core.ErrInvalidArgument)
	}
	out, err := pickOutput(outInfo)
	if err != nil {
		return nil, fmt.Errorf("embedonnx: model %s: %w", spec.path, err)
	}
	s.output = out.Name
	s.outFloat16 = out.DataType == ort.TensorElementDataTypeFloat16
	if d := out.Dimensions[len(out.Dimensions)-1]; d > 0 {
		s.hidden = int(d)
	}
	if s.outFloat16 && s.hidden == 0 {
		return nil, fmt.Errorf("embedonnx: model %s: float16 output %q needs a fixed last dimension: %w",
			spec.path, out.Name, core.ErrInvalidArgument)
	}

	create := func(cuda bool) (*ort.DynamicAdvancedSession, error) {
		opts, err := ort.NewSessionOptions()
		if err != nil {
			return nil, err
		}
		defer opts.Destroy()
		if err := opts.SetGraphOptimizationLevel(ort.GraphOptimizationLevelEnableAll); err != nil {
			return nil, err
		}
		// Idle worker threads sleep instead of spinning: the process has
		// other work (Go's own threads), and spinning on a busy machine
		// burns the cores the inference needs.
		if err := opts.AddSessionConfigEntry("session.intra_op.allow_spinning", "0"); err != nil {
			return nil, err
		}
		if spec.threads > 0 {
			if err := opts.SetIntraOpNumThreads(spec.threads); err != nil {
				return nil, err
			}
			if err := opts.SetInterOpNumThreads(1); err != nil {
				return nil, err
			}
		}
		if cuda {
			if err := appendCUDA(opts); err != nil {
				return nil, fmt.Errorf("%w: %w", ErrDeviceUnavailable, err)
			}
		}
		if spec.data != nil {
			return ort.NewDynamicAdvancedSessionWithONNXData(spec.data, inNames, []string{s.output}, opts)
		}
		return ort.NewDynamicAdvancedSession(spec.path, inNames, []string{s.output}, opts)
	}
	switch spec.device {
	case DeviceGPU:
		s.s, err = create(true)
		if errors.Is(err, ErrDeviceUnavailable) {
			return nil, fmt.Errorf("embedonnx: device gpu: the CUDA execution provider cannot be used (it needs an ONNX Runtime built with CUDA, and a GPU): %w", err)
		}
		if err != nil {
			return nil, fmt.Errorf("embedonnx: create session for %s on CUDA: %w", spec.path, err)
		}
		s.usesCUDA = true
	case DeviceAuto, "":
		// CUDA when it works (the provider is there and a session can be
		// made on it), else the CPU.
		s.s, err = create(true)
		if err == nil {
			s.usesCUDA = true
			break
		}
		s.s, err = create(false)
	default:
		s.s, err = create(false)
	}
	if err != nil {
		return nil, fmt.Errorf("embedonnx: create session for %s: %w", spec.path, err)
	}
	return s, nil
}

func appendCUDA(opts *ort.SessionOptions) error {
	cuda, err := ort.NewCUDAProviderOptions()
	if err != nil {
		return err
	}
	defer cuda.Destroy()
	return opts.AppendExecutionProviderCUDA(cuda)
}

// modelInfo reads the model's inputs and outputs.
func modelInfo(spec sessionSpec) ([]ort.InputOutputInfo, []ort.InputOutputInfo, error) {
	opts, err := ort.NewSessionOptions()
	if err != nil {
		return nil, nil, err
	}
	defer opts.Destroy()
	// Only names and types are read: skip optimising the graph.
	if err := opts.SetGraphOptimizationLevel(ort.GraphOptimizationLevelDisableAll); err != nil {
		return nil, nil, err
	}
	// The file is read again (from the page cache) rather than handing
	// over spec.data: the binding's in-memory variant takes no options.
	return ort.GetInputOutputInfoWithOptions(spec.path, opts)
}

func classifyInput(name string) (inputKind, bool) {
	switch n := strings.ToLower(name); {
	case strings.Contains(n, "input_ids"):
		return inputIDs, true
	case strings.Contains(n, "attention_mask"):
		return inputMask, true
	case strings.Contains(n, "token_type_ids"):
		return inputTypes, true
	case strings.Contains(n, "position_ids"):
		return inputPositions, true
	}
	return 0, false
}

func containsKind(kinds []inputKind, k inputKind) bool {
	for _, x := range kinds {
		if x == k {
			return true
		}
	}
	return false
}

// pickOutput chooses the per-token hidden state: last_hidden_state or
// token_embeddings by name, else the first float output of rank 3.
func pickOutput(outs []ort.InputOutputInfo) (ort.InputOutputInfo, error) {
	isHidden := func(o ort.InputOutputInfo) bool {
		return o.OrtValueType == ort.ONNXTypeTensor && len(o.Dimensions) == 3 &&
			(o.DataType == ort.TensorElementDataTypeFloat || o.DataType == ort.TensorElementDataTypeFloat16)
	}
	for _, want := range []string{"last_hidden_state", "token_embeddings"} {
		for _, o := range outs {
			if o.Name == want && isHidden(o) {
				return o, nil
			}
		}
	}
	for _, o := range outs {
		if isHidden(o) {
			return o, nil
		}
	}
	names := make([]string, len(outs))
	for i, o := range outs {
		names[i] = o.String()
	}
	return ort.InputOutputInfo{}, fmt.Errorf("no per-token hidden state output ([batch, sequence, hidden] float) among %s: %w",
		strings.Join(names, "; "), core.ErrInvalidArgument)
}

// run feeds one padded batch (rows of equal length, pad where mask is 0)
// and returns the hidden states, flat [batch][sequence][hidden], and hidden.
func (s *session) run(ctx context.Context, ids, mask [][]int64) ([]float32, int, error) {
	batch, seq := len(ids), len(ids[0])
	shape := ort.NewShape(int64(batch), int64(seq))
	var values []ort.Value
	defer func() {
		for _, v := range values {
			if v != nil {
				v.Destroy()
			}
		}
	}()
	for i, kind := range s.inputs {
		flat := make([]int64, 0, batch*seq)
		for r := range batch {
			switch kind {
			case inputIDs:
				flat = append(flat, ids[r]...)
			case inputMask:
				flat = append(flat, mask[r]...)
			case inputTypes:
				flat = append(flat, make([]int64, seq)...)
			case inputPositions:
				for p := range seq {
					flat = append(flat, int64(p))
				}
			}
		}
		var v ort.Value
		var err error
		if s.inputInt32[i] {
			narrow := make([]int32, len(flat))
			for j, x := range flat {
				narrow[j] = int32(x)
			}
			v, err = ort.NewTensor(shape, narrow)
		} else {
			v, err = ort.NewTensor(shape, flat)
		}
		if err != nil {
			return nil, 0, err
		}
		values = append(values, v)
	}

	var out ort.Value
	var raw []byte
	if s.outFloat16 {
		raw = make([]byte, 2*batch*seq*s.hidden)
		t, err := ort.NewCustomDataTensor(ort.NewShape(int64(batch), int64(seq), int64(s.hidden)), raw, ort.TensorElementDataTypeFloat16)
		if err != nil {
			return nil, 0, err
		}
		out = t
	}
	outputs := []ort.Value{out}
	defer func() {
		if outputs[0] != nil {
			outputs[0].Destroy()
		}
	}()

	runOpts, err := ort.NewRunOptions()
	if err != nil {
		return nil, 0, err
	}
	defer runOpts.Destroy()
	// Terminate may run on the context's goroutine while the run ends: it
	// must be over before the deferred Destroy frees runOpts.
	terminated := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		defer close(terminated)
		_ = runOpts.Terminate()
	})
	err = s.s.RunWithOptions(values, outputs, runOpts)
	if !stop() {
		<-terminated
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		return nil, 0, ctxErr
	}
	if err != nil {
		return nil, 0, err
	}

	if s.outFloat16 {
		hidden := make([]float32, batch*seq*s.hidden)
		for i := range hidden {
			hidden[i] = halfToFloat(binary.LittleEndian.Uint16(raw[2*i:]))
		}
		return hidden, s.hidden, nil
	}
	t, ok := outputs[0].(*ort.Tensor[float32])
	if !ok {
		return nil, 0, fmt.Errorf("output %q is %T, want a float32 tensor", s.output, outputs[0])
	}
	dims := t.GetShape()
	if len(dims) != 3 || dims[0] != int64(batch) || dims[1] != int64(seq) {
		return nil, 0, fmt.Errorf("output %q has shape %v, want [%d %d hidden]", s.output, dims, batch, seq)
	}
	data := t.GetData()
	hidden := make([]float32, len(data))
	copy(hidden, data)
	return hidden, int(dims[2]), nil
}

func (s *session) close() error {
	if s.s == nil {
		return nil
	}
	err := s.s.Destroy()
	s.s = nil
	return err
}

// halfToFloat converts an IEEE 754 half-precision value.
func halfToFloat(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	frac := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f: // Inf or NaN
		return math.Float32frombits(sign | 0xff<<23 | frac<<13)
	case exp == 0 && frac == 0:
		return math.Float32frombits(sign)
	case exp == 0: // subnormal
		f := float32(frac) / 1024 / 16384
		if sign != 0 {
			return -f
		}
		return f
	}
	return math.Float32frombits(sign | (exp+127-15)<<23 | frac<<13)
}
