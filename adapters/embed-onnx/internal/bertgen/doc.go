// Package bertgen writes BERT-shaped ONNX sentence encoders for the tests and
// examples of package embedonnx: deterministic pseudo-random [Weights] of a
// given [Config] ([Tiny] for fast tests, [MiniLML6] for the real model's
// shape), the ONNX graph built from them ([Weights.Model]), a Hugging Face
// style model folder ([WriteFolder]), and an independent float64 forward
// pass ([Weights.Forward]) that the ONNX Runtime output is compared with.
// The ONNX protocol buffers are written by hand, so no generated code or
// protobuf dependency is needed.
//
// # Concurrency
//
// Weights are read-only once [NewWeights] returns them: Model and Forward
// may run concurrently on the same Weights. WriteFolder calls must not
// write to the same folder at the same time.
//
// # Errors
//
// Only [WriteFolder] fails: its errors name the file being written and wrap
// the underlying file-system error (fs.ErrPermission, …). A Config or input
// outside the model's shape (an id beyond the vocabulary, a sequence longer
// than MaxPositions) is a programming error and panics.
package bertgen
