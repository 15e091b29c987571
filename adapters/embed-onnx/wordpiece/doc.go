// Package wordpiece is the BERT side of a transformer embeddings model
// that needs no ONNX Runtime: the WordPiece tokenizer read from a model's
// files (tokenizer.json or vocab.txt) and the pooling of its hidden
// states. It is pure Go and builds for js/wasm, where Folio's JavaScript
// package runs the model with onnxruntime-web and tokenizes and pools
// here, as embedonnx does natively.
package wordpiece
