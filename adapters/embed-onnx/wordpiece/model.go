package wordpiece

import (
	"fmt"

	"github.com/foliovec/folio/core"
)

// ModelFileNames are the file names, in the onnx folder of a model, that
// each dtype's variant goes by, in the order they are tried
// (transformers.js suffixes: "" for fp32, _fp16, _quantized for q8, _q4;
// exports also name 8-bit files _int8 or _uint8 and 4-bit ones _q4f16 or
// _bnb4). dtype is "fp32" (or ""), "fp16", "q8" or "q4"; anything else is
// core.ErrInvalidArgument.
func ModelFileNames(dtype string) ([]string, error) {
	switch dtype {
	case "", "fp32":
		return []string{"model.onnx"}, nil
	case "fp16":
		return []string{"model_fp16.onnx"}, nil
	case "q8":
		return []string{"model_quantized.onnx", "model_int8.onnx", "model_uint8.onnx"}, nil
	case "q4":
		return []string{"model_q4.onnx", "model_q4f16.onnx", "model_bnb4.onnx"}, nil
	}
	return nil, fmt.Errorf("wordpiece: dtype %q: want fp32, fp16, q8 or q4: %w", dtype, core.ErrInvalidArgument)
}
