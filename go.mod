module github.com/foliovec/folio

go 1.26.0

require (
	github.com/foliovec/folio/adapters/codec-json v0.0.0-00010101000000-000000000000
	github.com/foliovec/folio/adapters/codec-pb v0.0.0-00010101000000-000000000000
	github.com/foliovec/folio/adapters/embed-hash v0.0.0-00010101000000-000000000000
	github.com/foliovec/folio/adapters/storage-fs v0.0.0-00010101000000-000000000000
	github.com/foliovec/folio/adapters/storage-mem v0.0.0-00010101000000-000000000000
	github.com/foliovec/folio/adapters/tokenizer-tiktoken v0.0.0-00010101000000-000000000000
	github.com/foliovec/folio/core v0.0.0-00010101000000-000000000000
)

require github.com/stretchr/testify v1.12.1 // indirect

require (
	github.com/dlclark/regexp2 v1.10.0 // indirect
	github.com/go-json-experiment/json v0.0.0-20260820222146-c27c302e5fc3 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/pkoukk/tiktoken-go v0.1.8 // indirect
	golang.org/x/sys v0.48.0 // indirect
	google.golang.org/protobuf v1.36.12 // indirect
)

replace (
	github.com/foliovec/folio/adapters/codec-json => ./adapters/codec-json
	github.com/foliovec/folio/adapters/codec-pb => ./adapters/codec-pb
	github.com/foliovec/folio/adapters/embed-hash => ./adapters/embed-hash
	github.com/foliovec/folio/adapters/storage-fs => ./adapters/storage-fs
	github.com/foliovec/folio/adapters/storage-mem => ./adapters/storage-mem
	github.com/foliovec/folio/adapters/tokenizer-tiktoken => ./adapters/tokenizer-tiktoken
	github.com/foliovec/folio/conformance => ./conformance
	github.com/foliovec/folio/core => ./core
)
