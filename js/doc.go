// Command js is Folio's JavaScript package: compiled to js/wasm it becomes
// folio.wasm, which the ES module package/folio.js loads. Together they
// give a web page Vectra 0.15's browser API (LocalIndex,
// LocalDocumentIndex, IndexedDBStorage, BrowserWebFetcher,
// TransformersEmbeddings and the rest, with the same names, constructor
// options and Promise-returning methods) over Folio's engine.
//
// `make js` builds the package into .cache/js: folio.js, folio.d.ts,
// folio.wasm, the tokenizer's ranks (o200k_base.tiktoken.gz, which
// bridge.js fetches beside folio.wasm and hands over, so the module does
// not carry them), Go's wasm_exec.js and onnxruntime-web's files.
//
// The bridge is globalThis.__folio, which only folio.js uses: it creates
// Go objects (handles), calls their methods (asynchronous ones return
// Promises and run in their own goroutine) and releases them. JavaScript
// objects given where Vectra takes an embeddings model, a tokenizer or a
// FileStorage are wrapped as Folio's ports; a rejected Promise or a thrown
// error in them comes back as an error with its message kept, and a Go
// panic in any call is answered as a rejected Promise (or a thrown Error),
// never as a trap that stops the module.
package main
