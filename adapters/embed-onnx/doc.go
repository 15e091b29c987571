// Package embedonnx runs transformer sentence encoders (BERT-style ONNX
// models such as all-MiniLM-L6-v2) in process, through ONNX Runtime:
// [LocalEmbeddings], [TransformersEmbeddings] and the matching WordPiece
// [TransformersTokenizer]. A model is a folder, or a Hugging Face hub id
// fetched once into the models folder (package hub) and used from there
// ever after; the runtime library is installed beforehand.
//
// # The runtime library
//
// The adapter loads ONNX Runtime [RuntimeVersion] (libonnxruntime.so.1 on
// Linux) with dlopen. It is found through the LibraryPath option, else
// $ONNXRUNTIME_SHARED_LIBRARY_PATH, else .cache/onnxruntime/<version>/ in
// the working directory or one of its parents (where `make onnxruntime`
// puts it in a Folio checkout), else <user cache folder>/folio/onnxruntime/<version>/.
// To install it elsewhere: `npm pack onnxruntime-node@1.24.3`, extract
// package/bin/napi-v6/<os>/<arch>/libonnxruntime.* from the tarball, and
// point ONNXRUNTIME_SHARED_LIBRARY_PATH at it.
//
// # Models by name, or in a folder
//
// A model is a folder in the Hugging Face layout, as transformers.js uses it:
//
//	<folder>/onnx/model.onnx        (or model.onnx at the top; model_fp16.onnx,
//	                                 model_quantized.onnx, model_q4.onnx for the
//	                                 fp16, q8 and q4 dtypes)
//	<folder>/tokenizer.json         (and/or vocab.txt)
//	<folder>/tokenizer_config.json  (optional: lower-casing, maximum length)
//	<folder>/config.json            (optional: maximum positions)
//
// The Model option selects one in one of two ways:
//
//   - a folder path ("/path/to/folder", "./model"), used as it is; a
//     missing one is an error that names it;
//   - a hub id ("Xenova/all-MiniLM-L6-v2", the default, optionally with
//     "@revision"), kept in <models folder>/<id>, where the models folder
//     is the ModelsDir option, else $FOLIO_MODELS_DIR, else
//     <user cache folder>/folio/models (~/.cache/folio/models on Linux,
//     ~/Library/Caches/folio/models on macOS). When that folder lacks the
//     files the dtype needs, they are fetched from the hub
//     ($HF_ENDPOINT, else https://huggingface.co; $HF_TOKEN for gated
//     models), checked against the hub's checksums and written atomically,
//     once: later loads make no request. The Hub option's Offline, or
//     $HF_HUB_OFFLINE=1, refuses the network; a model not in place is then
//     an error naming the model and the folder. See package hub.
//
// A folder filled by hand (git clone with git-lfs, `huggingface-cli
// download --local-dir`, an Optimum export) works in either place.
//
// Only BERT-style WordPiece tokenizers are supported (BERT, MiniLM, bge, e5
// and other encoders with a cased or uncased BERT vocabulary); inputs and
// outputs are read from the model
// (input_ids, attention_mask, token_type_ids and position_ids as the model
// asks; last_hidden_state or the first [batch, sequence, hidden] output).
//
// # Concurrency
//
// Every type is safe for concurrent use. CreateEmbeddings calls run in
// parallel on one session; Close waits for running calls and makes later
// ones fail with [ErrClosed]. [LocalEmbeddings] creates its session on the
// first call, once, however many calls arrive together.
//
// The runtime environment is process-global in ONNX Runtime and in its Go
// binding, so the package keeps one piece of package-level state, on
// purpose: a mutex-guarded record of the library loaded. The first model
// created loads the library; later models share it; a failed load (library
// missing) can be retried; the environment is never torn down (sessions
// are released by Close), so one model closing cannot break another. A
// process loads one library: asking for a different LibraryPath afterwards
// is an error.
//
// # Errors
//
// Creation fails with errors wrapping [ErrRuntimeNotFound] (the message
// says how to install the library), [ErrModelNotFound] (wrapping
// fs.ErrNotExist; the message names the folder and files looked for),
// the errors of package hub for a fetch (hub.ErrOffline, hub.ErrChecksum,
// hub.ErrUnauthorized, context.DeadlineExceeded for a stalled download),
// [ErrDeviceUnavailable] (device gpu without CUDA) or
// core.ErrInvalidArgument (an unknown device, dtype or pooling, a
// negative count, a model that is not a text encoder). A corrupt tokenizer
// file wraps core.ErrCorrupt. CreateEmbeddings reports every failure as a
// *core.EmbeddingsError: Status cancelled with the context's error when
// ctx ends (a running inference is terminated), Status error otherwise.
// [LocalEmbeddings] reports loading failures the same way, from the call
// that loads.
package embedonnx
