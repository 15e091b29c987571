module github.com/foliovec/folio/js

go 1.26.0

require (
	github.com/chromedp/cdproto v0.159.0
	github.com/chromedp/chromedp v0.23.0
	github.com/foliovec/folio/adapters/codec-pb v0.0.0-00010101000000-000000000000
	github.com/foliovec/folio/adapters/embed-hash v0.0.0-00010101000000-000000000000
	github.com/foliovec/folio/adapters/embed-hosted v0.0.0-00010101000000-000000000000
	github.com/foliovec/folio/adapters/embed-onnx v0.0.0-00010101000000-000000000000
	github.com/foliovec/folio/adapters/fetch-browser v0.0.0-00010101000000-000000000000
	github.com/foliovec/folio/adapters/storage-fs v0.0.0-00010101000000-000000000000
	github.com/foliovec/folio/adapters/storage-idb v0.0.0-00010101000000-000000000000
	github.com/foliovec/folio/adapters/tokenizer-tiktoken v0.0.0-00010101000000-000000000000
	github.com/foliovec/folio/browser v0.0.0-00010101000000-000000000000
	github.com/foliovec/folio/core v0.0.0-00010101000000-000000000000
)

require (
	github.com/dlclark/regexp2 v1.10.0 // indirect
	github.com/foliovec/folio/adapters/codec-json v0.0.0-00010101000000-000000000000 // indirect
	github.com/foliovec/folio/adapters/storage-http v0.0.0-00010101000000-000000000000
	github.com/go-json-experiment/json v0.0.0-20260820222146-c27c302e5fc3 // indirect
	github.com/gofrs/flock v0.13.2 // indirect
	github.com/google/uuid v1.3.0 // indirect
	github.com/pkoukk/tiktoken-go v0.1.8 // indirect
	github.com/yalue/onnxruntime_go v1.27.0 // indirect
	golang.org/x/net v0.58.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/text v0.41.0 // indirect
	google.golang.org/protobuf v1.36.12 // indirect
)

replace (
	github.com/foliovec/folio/adapters/codec-json => ../adapters/codec-json
	github.com/foliovec/folio/adapters/codec-pb => ../adapters/codec-pb
	github.com/foliovec/folio/adapters/embed-hash => ../adapters/embed-hash
	github.com/foliovec/folio/adapters/embed-hosted => ../adapters/embed-hosted
	github.com/foliovec/folio/adapters/embed-onnx => ../adapters/embed-onnx
	github.com/foliovec/folio/adapters/fetch-browser => ../adapters/fetch-browser
	github.com/foliovec/folio/adapters/storage-idb => ../adapters/storage-idb
	github.com/foliovec/folio/adapters/tokenizer-tiktoken => ../adapters/tokenizer-tiktoken
	github.com/foliovec/folio/browser => ../browser
	github.com/foliovec/folio/conformance => ../conformance
	github.com/foliovec/folio/core => ../core
)

replace github.com/foliovec/folio/adapters/storage-http => ../adapters/storage-http

replace github.com/foliovec/folio/adapters/storage-fs => ../adapters/storage-fs
