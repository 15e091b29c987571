module github.com/foliovec/folio/examples

go 1.26.0

require (
	github.com/chromedp/chromedp v0.23.0
	github.com/foliovec/folio v0.0.0-00010101000000-000000000000
	github.com/foliovec/folio/adapters/codec-json v0.0.0-00010101000000-000000000000
	github.com/foliovec/folio/adapters/codec-pb v0.0.0-00010101000000-000000000000
	github.com/foliovec/folio/adapters/embed-hash v0.0.0-00010101000000-000000000000
	github.com/foliovec/folio/adapters/storage-fs v0.0.0-00010101000000-000000000000
	github.com/foliovec/folio/conformance v0.0.0-00010101000000-000000000000
	github.com/foliovec/folio/core v0.0.0-00010101000000-000000000000
)

require (
	github.com/chromedp/cdproto v0.159.0 // indirect
	github.com/dlclark/regexp2 v1.10.0 // indirect
	github.com/foliovec/folio/adapters/storage-http v0.0.0-00010101000000-000000000000
	github.com/foliovec/folio/adapters/tokenizer-tiktoken v0.0.0-00010101000000-000000000000 // indirect
	github.com/go-json-experiment/json v0.0.0-20260820222146-c27c302e5fc3 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/pkoukk/tiktoken-go v0.1.8 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/sys v0.48.0 // indirect
	google.golang.org/protobuf v1.36.12 // indirect
)

replace (
	github.com/foliovec/folio => ../
	github.com/foliovec/folio/adapters/codec-json => ../adapters/codec-json
	github.com/foliovec/folio/adapters/codec-pb => ../adapters/codec-pb
	github.com/foliovec/folio/adapters/embed-hash => ../adapters/embed-hash
	github.com/foliovec/folio/adapters/embed-hosted => ../adapters/embed-hosted
	github.com/foliovec/folio/adapters/fetch-browser => ../adapters/fetch-browser
	github.com/foliovec/folio/adapters/storage-blob => ../adapters/storage-blob
	github.com/foliovec/folio/adapters/storage-fs => ../adapters/storage-fs
	github.com/foliovec/folio/adapters/storage-idb => ../adapters/storage-idb
	github.com/foliovec/folio/adapters/storage-mem => ../adapters/storage-mem
	github.com/foliovec/folio/adapters/tokenizer-tiktoken => ../adapters/tokenizer-tiktoken
	github.com/foliovec/folio/browser => ../browser
	github.com/foliovec/folio/conformance => ../conformance
	github.com/foliovec/folio/core => ../core
)

replace github.com/foliovec/folio/adapters/storage-http => ../adapters/storage-http
