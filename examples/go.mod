module github.com/foliovec/folio/examples

go 1.26

require (
	github.com/foliovec/folio v0.0.0-00010101000000-000000000000
	github.com/foliovec/folio/adapters/embed-hash v0.0.0-00010101000000-000000000000
	github.com/foliovec/folio/core v0.0.0-00010101000000-000000000000
)

replace (
	github.com/foliovec/folio => ../
	github.com/foliovec/folio/adapters/codec-json => ../adapters/codec-json
	github.com/foliovec/folio/adapters/codec-pb => ../adapters/codec-pb
	github.com/foliovec/folio/adapters/embed-hash => ../adapters/embed-hash
	github.com/foliovec/folio/adapters/storage-fs => ../adapters/storage-fs
	github.com/foliovec/folio/adapters/storage-mem => ../adapters/storage-mem
	github.com/foliovec/folio/adapters/tokenizer-tiktoken => ../adapters/tokenizer-tiktoken
	github.com/foliovec/folio/conformance => ../conformance
	github.com/foliovec/folio/core => ../core
)
